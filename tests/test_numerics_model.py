"""The model's hand-written backward pass against central differences, and its contract."""
import math

import numpy as np
import pytest

from weighttying import gradcheck, model

CONFIGS = [dict(tied=t, res=r) for t in (True, False) for r in (0.0, 1.0)] + [
    dict(tied=True, res=0.5, in_scale=1.7), dict(tied=False, res=0.5, in_scale=1.7)]


def batch_with_repeats(seed, V=64, B=24, distinct=6):
    """B inputs drawn from only `distinct` tokens, so rows of E are read several times."""
    rng = np.random.default_rng(seed)
    tokens = rng.choice(V, distinct, replace=False)
    return rng.choice(tokens, B), rng.integers(0, V, B)


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_every_entry_matches_central_differences(kw):
    cfg = model.Config(seed=2, **kw)
    params = model.init_params(cfg)
    inputs, targets = batch_with_repeats(2)
    assert len(np.unique(inputs)) < len(inputs)
    result = gradcheck.check(params, cfg, inputs, targets)
    assert set(result["max"]) == set(params)
    assert max(result["max"].values()) < 1e-4, result["max"]


def test_input_grad_scale_scales_only_the_input_path():
    cfg = model.Config(seed=3)
    params = model.init_params(cfg)
    inputs, targets = batch_with_repeats(3)
    _, full = model.loss_and_grads(params, cfg, inputs, targets)
    _, out = model.loss_and_grads(params, cfg, inputs, targets, paths=("output",))
    _, scaled = model.loss_and_grads(params, cfg, inputs, targets, input_grad_scale=3.0)
    np.testing.assert_allclose(scaled["E"], out["E"] + 3.0 * (full["E"] - out["E"]), atol=1e-14)
    np.testing.assert_array_equal(scaled["W1"], full["W1"])


def test_output_only_gradient_is_wrong_exactly_on_rows_read():
    cfg = model.Config(seed=2)
    params = model.init_params(cfg)
    inputs, targets = batch_with_repeats(2)
    result = gradcheck.check(params, cfg, inputs, targets, paths=("output",))
    wrong = np.flatnonzero(result["E_rows"] > 1e-4)
    np.testing.assert_array_equal(wrong, np.unique(inputs))


def test_loss_and_grads_does_not_mutate_arguments():
    cfg = model.Config(tied=False, seed=1)
    params = model.init_params(cfg)
    inputs, targets = batch_with_repeats(1)
    before = {k: v.copy() for k, v in params.items()}
    inputs_before, targets_before = inputs.copy(), targets.copy()
    model.loss_and_grads(params, cfg, inputs, targets, input_grad_scale=2.0)
    for k in params:
        np.testing.assert_array_equal(params[k], before[k])
    np.testing.assert_array_equal(inputs, inputs_before)
    np.testing.assert_array_equal(targets, targets_before)


def test_loss_at_tiny_sigma_is_log_V():
    cfg = model.Config(sigma=1e-9)
    params = model.init_params(cfg)
    inputs, targets = batch_with_repeats(0)
    loss, _ = model.loss_and_grads(params, cfg, inputs, targets)
    assert loss == pytest.approx(math.log(cfg.V), abs=1e-6)


def test_init_params_keys_and_shapes():
    tied, untied = model.init_params(model.Config()), model.init_params(model.Config(tied=False, hidden=8))
    assert set(tied) == {"E", "W1", "b1", "W2", "b2"}
    assert untied["U"].shape == untied["E"].shape == (64, 16) and untied["W1"].shape == (16, 8)
    assert not np.array_equal(untied["E"], untied["U"])


def test_unknown_path_is_rejected():
    cfg = model.Config()
    with pytest.raises(ValueError, match="paths"):
        model.loss_and_grads(model.init_params(cfg), cfg, [0], [1], paths=("inputs",))


@pytest.mark.parametrize("kw, field", [
    (dict(V=1), "V"), (dict(d=0), "d"), (dict(hidden=0), "hidden"), (dict(V=64.0), "V"),
    (dict(sigma=-0.1), "sigma"), (dict(sigma=float("nan")), "sigma"), (dict(sigma=float("inf")), "sigma"),
    (dict(in_scale=-1.0), "in_scale"), (dict(in_scale=float("nan")), "in_scale"), (dict(res=float("nan")), "res"),
])
def test_bad_config_raises_a_clear_value_error(kw, field):
    with pytest.raises(ValueError, match=rf"Config\.{field} must"):
        model.Config(**kw)
