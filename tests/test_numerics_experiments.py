"""The experiments: each claim of the page as something our numbers could fail."""
import ast
import itertools
import math
import pathlib
import sys

import numpy as np
import pytest

from weighttying import data, deep, gradcheck, model, paper, pathdrop, repeat, savings, sweep, tasks, train

PKG = pathlib.Path(model.__file__).parent
NUMERICS = ["model", "gradcheck", "data", "train", "pathdrop", "repeat", "tasks", "sweep", "savings", "paper",
            "deep", "lens", "calibrate", "measure", "recipes", "quoted", "report"]


def test_numerics_import_only_numpy_and_the_standard_library():
    # the rule is numpy and the standard library, so the standard library is Python's own list of it
    allowed = {"numpy"} | set(sys.stdlib_module_names)
    assert "panel" not in allowed and "bokeh" not in allowed and "functools" in allowed
    for name in NUMERICS:
        tree = ast.parse((PKG / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert {a.name.split(".")[0] for a in node.names} <= allowed, name
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert node.module.split(".")[0] in allowed, (name, node.module)


def test_pathdrop_table_is_exactly_0_8_64():
    table = {r["setting"]: r for r in pathdrop.wrong_rows_table(distinct=8)}
    assert [table[s]["wrong_rows"] for s in pathdrop.SETTINGS] == [0, 8, 64]
    assert table["output path only"]["right_share"] == 56 / 64


def test_fancy_index_plus_equals_loses_exactly_the_repeated_tokens():
    trap = pathdrop.fancy_index_trap(distinct=8, B=32)
    assert trap["wrong_rows"] > 0
    assert trap["wrong_tokens"] == trap["repeated"]


def test_miss_probability_formula_matches_enumeration_and_simulation():
    entries, wrong, k = 9, 3, 4
    misses = sum(all(i >= wrong for i in combo) for combo in itertools.combinations(range(entries), k))
    assert pathdrop.miss_probability(k, wrong, entries) == pytest.approx(misses / math.comb(entries, k))
    assert pathdrop.miss_probability(20, 128, 3152) == pytest.approx(pathdrop.miss_simulated(20, 128, 3152), abs=0.01)
    assert pathdrop.miss_probability(7, 3, 9) == 0.0


@pytest.mark.parametrize("blocks", [1, 2, 4])
def test_deep_backward_matches_central_differences(blocks):
    for tied, seed in ((True, 2), (False, 3)):
        cfg = model.Config(tied=tied, seed=seed, res=0.7, in_scale=1.3)
        rng = np.random.default_rng(seed)
        inputs, targets = rng.integers(0, 8, 24), rng.integers(0, 64, 24)
        params = deep.init_params(cfg, blocks)
        result = gradcheck.check(params, cfg, inputs, targets, net=deep)
        assert deep.depth(params) == blocks and set(result["max"]) == set(params)
        assert max(result["max"].values()) < 1e-4, result["max"]


def test_tasks_have_no_fixed_points_and_exact_entropy():
    for aligned in (True, False):
        P = data.markov_task(aligned=aligned)
        np.testing.assert_allclose(P.sum(1), 1.0)
        assert np.all(np.diag(P) == 0)
        inputs, targets = data.sample_batch(P, 200_000, np.random.default_rng(0))
        assert not np.any(inputs == targets)
        # the sampled conditional log-likelihood converges to minus the exact entropy
        assert -np.log(P[inputs, targets]).mean() == pytest.approx(data.entropy(P), abs=0.01)


def test_training_is_deterministic_streams_chunks_and_leaves_params_alone():
    cfg = model.Config()
    params = model.init_params(cfg)
    before = {k: v.copy() for k, v in params.items()}
    task = data.default_task()
    points = list(train.iter_train(params, cfg, task, steps=120, chunk=50))
    assert [p["step"] for p in points] == [50, 100, 120]
    again = train.train(params, cfg, task, steps=120, chunk=50)["history"]
    assert [h["eval"] for h in again[1:]] == [p["eval"] for p in points]
    assert again[-1]["eval"] < again[0]["eval"]
    for k in params:
        np.testing.assert_array_equal(params[k], before[k])


def test_repeat_bias_at_init_tied_far_below_chance_others_near_it():
    rows = {r["model"]: r["mean_rank"] for r in repeat.init_table()}
    chance = rows["chance"]
    assert rows["tied, res = 1"] < 5
    assert abs(rows["untied"] - chance) < 6 and abs(rows["tied, res = 0 (the control)"] - chance) < 6


def test_training_suppresses_the_repeat_bias_without_removing_it():
    rows = {r["model"]: r for r in repeat.trained_table(seeds=range(2))}
    assert 5 < rows["tied"]["mean_rank"] < rows["untied"]["mean_rank"] - 5


def test_misaligned_task_costs_tying_and_aligned_does_not():
    aligned, misaligned = tasks.table(seeds=range(3))
    assert abs(aligned["ratio"] - 1) < 0.1
    assert misaligned["ratio"] > aligned["ratio"] + 0.15
    assert misaligned["ratio_min"] > 1


def test_sweep_is_the_per_cell_computation_broadcast():
    grid = sweep.sweep_grid("coarse")
    for i, j in ((1, 3), (4, 0), (2, 2)):
        one = sweep.init_scales(grid["sigmas"][i], grid["in_scales"][j])
        assert one["resid"] == pytest.approx(grid["resid"][i, j], rel=1e-12)
        assert one["logit"] == pytest.approx(grid["logit"][i, j], rel=1e-12)


def test_sweep_grid_artifact_coarse_misses_fine_hits():
    assert sweep.sweep_grid("coarse")["hits"] == 0
    fine = sweep.sweep_grid("fine")
    assert fine["hits"] > 0
    assert np.all(np.abs(fine["resid"][fine["hit_mask"]] - 1) <= fine["band"])


def test_doubling_sigma_is_linear_in_the_stream_and_less_than_quadratic_in_the_logits():
    # x = in_scale * E[t] is linear in sigma; tanh bends the MLP once it leaves its linear range, so
    # the logits (h against E) grow by less than the square, and by the square only where tanh is linear
    doubled = sweep.doubling(sigma=0.25)
    assert doubled["resid"] == pytest.approx(2.0, rel=1e-12)
    assert 3.5 < doubled["logit"] < 3.95 and 1.75 < doubled["stream"] < 1.98
    tiny = sweep.doubling(sigma=1e-4)
    assert tiny["logit"] == pytest.approx(4.0, rel=1e-6) and tiny["stream"] == pytest.approx(2.0, rel=1e-6)


def test_deep_with_one_block_is_model():
    cfg = model.Config(tied=False, res=0.5, seed=4)
    params, inputs = deep.init_params(cfg, 1), pathdrop.batch(seed=4)[0]
    assert params.keys() == model.init_params(cfg).keys()
    np.testing.assert_array_equal(deep.forward(params, cfg, inputs)["logits"], model.forward(params, cfg, inputs)["logits"])
    two = deep.init_params(cfg, 2)
    assert all(np.array_equal(two[k], v) for k, v in params.items()) and {"W3", "b3", "W4", "b4"} <= set(two)


@pytest.mark.filterwarnings("error")
def test_extreme_sigma_gives_inf_not_an_exception():
    out = sweep.init_scales(np.array([1e-8, 1e8, 1e200]), 1.0)
    assert np.all(np.isfinite(out["resid"][:2])) and out["nonfinite"] == 1


def test_tying_saves_exactly_V_times_d_and_never_half():
    for cfg in savings.PRESETS.values():
        s = savings.tying_saving(**cfg)
        assert s["saved"] == cfg["V"] * cfg["d"] and s["share"] < 0.5
    # GPT-2 small's published size, 124M parameters tied (HF's count: 124,439,808)
    assert savings.tying_saving(**savings.PRESETS["gpt2-small"])["tied"] == 124_439_808
    with pytest.raises(ValueError):
        savings.tying_saving(V=10, d=10, n_layers=1, d_ff=4, n_heads=3)


def test_linear_cka_ignores_rotation_and_scale():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 16))
    Q, _ = np.linalg.qr(rng.standard_normal((16, 16)))
    assert paper.linear_cka(X, 3.0 * X @ Q) == pytest.approx(1.0)
    assert paper.linear_cka(X, rng.standard_normal((64, 16))) < 0.5


def test_path_norms_are_the_two_halves_of_the_tied_gradient():
    cfg = model.Config()
    params = model.init_params(cfg)
    inputs, targets = pathdrop.batch()
    _, out = model.loss_and_grads(params, cfg, inputs, targets, paths=("output",))
    _, inp = model.loss_and_grads(params, cfg, inputs, targets, paths=("input",))
    _, both = model.loss_and_grads(params, cfg, inputs, targets)
    np.testing.assert_allclose(out["E"] + inp["E"], both["E"], atol=1e-15)
    assert paper.path_norms(params, cfg, inputs, targets) == (np.linalg.norm(out["E"]), np.linalg.norm(inp["E"]))
