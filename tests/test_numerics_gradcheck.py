"""The fast central differences (perturbed losses by exact algebra) against the brute-force definition
(stacked forward passes), on every configuration the gradient-check and path-drop sections can produce."""
import dataclasses

import numpy as np
import pytest

from weighttying import deep, gradcheck, model, pathdrop
from weighttying import state
from weighttying.views import gradcheck as gradcheck_view
def assert_same_differences(params, cfg, inputs, targets):
    """Fast == brute force up to the brute force's own rounding: a few ulp of the loss over 2 eps."""
    fast = gradcheck.numerical_grads(params, cfg, inputs, targets)
    brute = gradcheck.brute_numerical_grads(params, cfg, inputs, targets)
    loss = float(gradcheck.true_loss(cfg, inputs, targets)(params))
    noise = 16 * loss * np.finfo(float).eps / (2 * gradcheck.EPS)
    assert set(fast) == set(brute) == set(params)
    for name in brute:
        scale = np.abs(brute[name]).max()
        assert scale > 0, name
        np.testing.assert_allclose(fast[name], brute[name], rtol=0, atol=1e-9 * scale + noise, err_msg=name)


def gradcheck_state(**kw):
    return dataclasses.replace(state.State().gradcheck, **kw)


SECTION_STATES = [gradcheck_state(), gradcheck_state(tied=False), gradcheck_state(res=0.0),
                  gradcheck_state(res=0.5, tied=False, seed=3), gradcheck_state(batch=1),
                  gradcheck_state(batch=256), gradcheck_state(batch=200, repeats=False, tied=False),
                  gradcheck_state(batch=5, repeats=False, seed=7)]


@pytest.mark.parametrize("st", SECTION_STATES, ids=lambda st: f"tied={st.tied},res={st.res},B={st.batch},rep={st.repeats},s={st.seed}")
def test_fast_equals_brute_force_on_the_gradcheck_sections_states(st):
    cfg = gradcheck_view.config(st)
    assert_same_differences(model.init_params(cfg), cfg, *gradcheck_view.batch(st))


@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("res,in_scale", [(0.0, 1.0), (1.0, 1.0), (0.5, 1.7)])
def test_fast_equals_brute_force_with_targets_equal_to_inputs(tied, res, in_scale):
    """Repeated tokens, and targets that are the input token itself: a tied E bump moves that row's own logit."""
    cfg = model.Config(tied=tied, res=res, in_scale=in_scale, sigma=0.5, seed=4)
    inputs, targets = pathdrop.batch(cfg.V, 6, 24, seed=4)
    targets = np.where(np.arange(24) % 3 == 0, inputs, targets)
    assert_same_differences(model.init_params(cfg), cfg, inputs, targets)


def test_fast_equals_brute_force_where_tanh_saturates():
    """Large sigma and in_scale push pre-activations deep into tanh's flat tails: the exact tanh there."""
    cfg = model.Config(tied=False, in_scale=3.0, sigma=1.0, seed=0)
    params, (inputs, targets) = model.init_params(cfg), pathdrop.batch(seed=0)
    cache = model.forward(params, cfg, inputs)
    assert np.abs(cache["mlp"][1]).max() > 3  # tanh' < 0.01 there
    assert_same_differences(params, cfg, inputs, targets)


def test_steps_split_the_rows_not_the_result():
    cfg = model.Config(tied=False, res=0.5, seed=1)
    params, (inputs, targets) = model.init_params(cfg), pathdrop.batch(seed=1)
    whole = list(gradcheck.iter_fast_numerical_grads(params, cfg, inputs, targets, rows=64))
    steps = list(gradcheck.iter_fast_numerical_grads(params, cfg, inputs, targets, rows=1))
    assert len(whole) == 1 and len(steps) == 8  # one step per distinct token
    assert [p["step"] for p in steps] == sorted(p["step"] for p in steps) and steps[-1]["step"] == steps[-1]["total"]
    for name, grad in whole[-1]["numeric"].items():
        np.testing.assert_allclose(steps[-1]["numeric"][name], grad, rtol=1e-12, atol=1e-15)


def test_other_nets_fall_back_to_brute_force():
    cfg = model.Config(seed=3)
    params, (inputs, targets) = deep.init_params(cfg), pathdrop.batch(seed=3)
    numeric = gradcheck.numerical_grads(params, cfg, inputs, targets, net=deep)
    brute = gradcheck.brute_numerical_grads(params, cfg, inputs, targets, net=deep)
    assert set(numeric) == set(params) and all(np.array_equal(numeric[n], brute[n]) for n in brute)
    result = gradcheck.check(params, cfg, inputs, targets, net=deep)
    assert max(result["max"].values()) < 1e-4
    with pytest.raises(ValueError, match="W3"):
        gradcheck.bumped_losses(gradcheck.distinct_rows(params, cfg, inputs, targets), params, cfg, "W3", 1e-4)
