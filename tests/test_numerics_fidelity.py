"""Fidelity to the page: the verdict rule, the calibration search, and the tuned lens."""
import math

import numpy as np
import pytest

from weighttying import calibrate, data, deep, lens, measure, model, pathdrop, quoted, recipes, repeat, tasks, train


def test_tolerance_follows_what_the_page_number_is():
    sd, half = 0.2, 0.005
    one_run = quoted.tolerance(sd, 5, 2, quoted.ONE_RUN)
    assert one_run == pytest.approx(2 * math.sqrt(sd ** 2 + sd ** 2 / 5) + half)
    mean_of_5 = quoted.tolerance(sd, 5, 2, 5)
    assert mean_of_5 == pytest.approx(2 * math.sqrt(sd ** 2 / 5 + sd ** 2 / 5) + half) and mean_of_5 < one_run
    assert quoted.tolerance(sd, 1, 0, quoted.EXACT) == 0.5  # an exact count: equal or not, whatever the spread
    assert quoted.tolerance(0.0, 5, 2, quoted.ONE_RUN) == pytest.approx(half)  # no spread: only the page's rounding


def test_every_page_number_says_what_it_is():
    assert {quoted.QUOTES[q][2] for q in quoted.QUOTES} == {quoted.EXACT, quoted.ONE_RUN, 5}
    assert quoted.basis("tasks.misaligned.ratio") == "mean of 5 runs"  # the page: "five seeds"
    assert {quoted.basis(f"pathdrop.loss.{k}") for k in ("correct", "output_only")} == {"one run"}
    assert quoted.basis("sweep.fine_hits") == quoted.basis("repeat.trained.tied") == "one run"
    assert quoted.basis("savings.gpt2_small") == quoted.basis("pathdrop.wrong_rows.output_only") == "exact"


def test_judge_takes_its_sd_from_the_builds_seeds_when_given():
    noise = [1.0, 1.2, 0.8, 1.1, 0.9, 1.0, 1.3, 0.7, 1.05, 0.95]
    j = quoted.judge("repeat.init.tied_res1", [1.6], noise)
    sd = np.std(noise, ddof=1)
    assert j["sd"] == pytest.approx(sd) and j["tol"] == pytest.approx(2 * math.sqrt(sd ** 2 + sd ** 2) + 0.05)
    assert "our 1 run" in j["verdict"] and "the build's 10 seeds" in j["verdict"] and j["page_is"] == "one run"
    own = quoted.judge("repeat.init.tied_res1", noise)  # no noise given: our own seeds' sd
    assert own["sd"] == pytest.approx(sd) and own["tol"] < j["tol"]


def test_judge_states_its_rule_and_can_fail():
    ok = quoted.judge("repeat.init.tied_res1", [1.7, 1.7, 1.7])
    assert ok["verdict"].startswith("agrees") and ok["distance"] == 0 and "sd²/1 + sd²/3" in ok["verdict"]
    bad = quoted.judge("pathdrop.wrong_rows.output_only", [9])
    assert bad["verdict"].startswith("differs") and bad["distance"] == 2.0 and "exact" in bad["verdict"]


def test_every_trained_id_is_quoted_and_each_belongs_to_one_experiment():
    ids = [q for _, _, qids in measure.TRAINED.values() for q in qids]
    assert len(ids) == len(set(ids)) and set(ids) <= set(quoted.TRAINED) <= set(quoted.QUOTES)


def test_calibration_measures_are_the_experiments_numbers():
    """measure's runs at each recipe in use give exactly what pathdrop, repeat and tasks give (seed 1)."""
    r = recipes.PATHDROP
    curves = pathdrop.training_curves(model.Config(seed=1), measure.task(r.rank, r.beta, False), steps=r.steps,
                                      lr=r.lr, seed=1, chunk=r.steps, batch=r.batch)
    got = measure.per_seed("pathdrop", 1)
    assert got["pathdrop.loss.correct"] == curves["both paths"][-1]["eval"]
    assert got["pathdrop.loss.output_only"] == curves["output path only"][-1]["eval"]
    r = recipes.REPEAT
    ranks = {x["model"]: x["mean_rank"] for x in repeat.trained_table(steps=r.steps, lr=r.lr, seeds=[1], batch=r.batch,
                                                                       task=measure.task(r.rank, r.beta, False))}
    got = measure.per_seed("repeat", 1)
    assert got["repeat.trained.tied"] == ranks["tied"] and got["repeat.trained.untied"] == ranks["untied"]
    r = recipes.TASKS
    got = measure.per_seed("tasks", 1)
    aligned, misaligned = tasks.table(seeds=[1], steps=r.steps, lr=r.lr, batch=r.batch, rank=r.rank, beta=r.beta)
    for name, x in (("aligned", aligned), ("misaligned", misaligned)):
        assert got[f"tasks.{name}.tied"] == pytest.approx(x["tied"], abs=1e-15)
        assert got[f"tasks.{name}.ratio"] == pytest.approx(x["ratio"], rel=1e-13)


def test_the_pages_races_run_their_recipe():
    """The sections' default race is seed 0 of the build's spread: the views train with recipes' task and batch."""
    from weighttying import state
    from weighttying.views import pathdrop as VP, repeat as VR
    end = VP.results(state.Pathdrop())["points"][-1]["points"]
    spread = measure.spread("pathdrop")
    assert end["both paths"]["eval"] == spread["pathdrop.loss.correct"][0]
    assert end["output path only"]["eval"] == spread["pathdrop.loss.output_only"][0]
    last = VR.results(state.Repeat())["points"][-1]
    assert last["tied"] == measure.spread("repeat")["repeat.trained.tied"][0]


def test_the_tasks_table_is_unchanged_by_the_races_choices(monkeypatch):
    before = measure.per_seed("tasks", 0)
    other = recipes.Recipe(rank=4, beta=8.0, lr=2.0, batch=32, steps=600)
    assert other not in (recipes.TASKS, recipes.PATHDROP, recipes.REPEAT)
    monkeypatch.setattr(recipes, "PATHDROP", other)
    monkeypatch.setattr(recipes, "REPEAT", other)
    assert measure.per_seed("tasks", 0) == before
    # the races did move: they train the other recipe now
    assert measure.per_seed("repeat", 0)["repeat.trained.tied"] == measure.runs(other, False, True, 0, (600,))[600][1]


def test_a_races_search_never_computes_the_tasks_table_and_the_reverse(monkeypatch):
    def forbidden(*_):
        raise AssertionError("a search looked at numbers it does not calibrate")
    tiny = recipes.BASE
    monkeypatch.setattr(calibrate, "TASK_SPACE", {"rank": (tiny.rank,), "beta": (tiny.beta,)})
    monkeypatch.setattr(calibrate, "RECIPE_SPACE", {"lr": (tiny.lr,), "batch": (tiny.batch,)})
    for experiment in measure.TRAINED:
        others = {k: v for k, v in measure.TRAINED.items() if k != experiment}
        patched = {**{k: (r, forbidden, ids) for k, (r, _, ids) in others.items()}, experiment: measure.TRAINED[experiment]}
        monkeypatch.setattr(measure, "TRAINED", patched)
        got = list(calibrate.iter_search(experiment, seeds=range(2)))
        assert all(set(s["verdicts"]) == set(patched[experiment][2]) for s in got)
        monkeypatch.setattr(measure, "TRAINED", {**others, experiment: patched[experiment]})


def test_best_prefers_more_numbers_within_then_smaller_cost():
    s = [{"candidate": "a", "within": 5, "cost": 9.0}, {"candidate": "b", "within": 6, "cost": 40.0},
         {"candidate": "c", "within": 6, "cost": 12.0}]
    assert calibrate.best(s)["candidate"] == "c"


def test_a_diverging_candidate_is_scored_not_raised():
    per = [dict.fromkeys(measure.TRAINED["pathdrop"][2], float("nan"))] * 2
    s = calibrate.score("pathdrop", recipes.Recipe(2, 32.0, 100.0, 64, 600), per)
    assert s["within"] == 0 and all(v["verdict"] == "diverged" for v in s["verdicts"].values())


def test_the_search_is_bounded_and_deterministic(monkeypatch):
    stage = calibrate.grid(calibrate.RECIPE_SPACE, recipes.BASE)
    assert len(stage) == 9 and all((c.rank, c.beta, c.steps) == (recipes.BASE.rank, recipes.BASE.beta, 600)
                                   for c in stage)
    # at most 2 * ROUNDS stages of at most 9 recipes each, whatever the scores
    stages = 2 * calibrate.ROUNDS * max(len(calibrate.grid(s, recipes.BASE)) for s in
                                        (calibrate.TASK_SPACE, calibrate.RECIPE_SPACE))
    assert stages == 36
    monkeypatch.setattr(calibrate, "TASK_SPACE", {"rank": (2, 4), "beta": (32.0,)})
    monkeypatch.setattr(calibrate, "RECIPE_SPACE", {"lr": (1.0,), "batch": (64, 128)})
    first = [calibrate.line(s) for s in calibrate.iter_search("repeat", seeds=range(2))]
    measure.run.cache_clear()  # recomputed from scratch, not read back from the memo
    assert [calibrate.line(s) for s in calibrate.iter_search("repeat", seeds=range(2))] == first
    assert 2 <= len(first) <= 2 * calibrate.ROUNDS * 2


def test_translator_gradient_matches_central_differences():
    rng = np.random.default_rng(0)
    hs, U = rng.standard_normal((2, 5, 3)), rng.standard_normal((7, 3))
    logp = model.log_softmax(rng.standard_normal((5, 7)))
    A, c = np.eye(3) + 0.1 * rng.standard_normal((2, 3, 3)), 0.1 * rng.standard_normal((2, 3))
    _, dA, dc = lens.translator_grads(hs, logp, U, A, c)
    eps = 1e-6
    for theta, grad in ((A, dA), (c, dc)):
        for i in np.ndindex(theta.shape):
            bump = np.zeros_like(theta)
            bump[i] = eps
            args = [(A + bump, c) if theta is A else (A, c + bump), (A - bump, c) if theta is A else (A, c - bump)]
            plus, minus = (lens.translator_grads(hs, logp, U, *a)[0].sum() for a in args)
            assert (plus - minus) / (2 * eps) == pytest.approx(grad[i], abs=1e-8)


@pytest.fixture(scope="module")
def lensed():
    """One short-trained tied deep toy (4 blocks) and its lens."""
    cfg, params = lens.trained(True, 0, steps=200)
    return cfg, params, lens.measure(cfg, params, 0)


def test_tuned_lens_beats_the_identity_translator_on_held_out_tokens(lensed):
    _, _, m = lensed
    assert len(m["tuned_kl"]) == lens.BLOCKS + 1 and m["tuned_kl"][-1] == m["logit_kl"][-1] == 0
    assert np.all(m["tuned_kl"][:-1] < m["logit_kl"][:-1]), (m["tuned_kl"], m["logit_kl"])


def test_lens_is_reproducible_per_seed(lensed):
    cfg, params, m = lensed
    again = lens.measure(cfg, params, 0)
    assert all(np.array_equal(m[k], again[k]) for k in m) and lens.early(m) == lens.early(again)
    fit_on, held = lens.split(cfg.V, 0)
    assert len(np.intersect1d(fit_on, held)) == 0 and len(fit_on) + len(held) == cfg.V


def test_contribution_is_each_blocks_output_over_the_final_stream(lensed):
    cfg, params, m = lensed
    cache = deep.forward(params, cfg, np.arange(cfg.V))
    for l in range(lens.BLOCKS):
        step = cache["hs"][l + 1] - cache["hs"][l]
        assert m["norm"][l] == pytest.approx(np.linalg.norm(step) / np.linalg.norm(cache["hs"][-1]), rel=1e-12)


def test_lens_verdict_needs_two_standard_errors():
    assert lens.verdict([-0.3, -0.2, -0.25])[2].startswith("agrees")
    assert lens.verdict([0.3, 0.2, 0.25])[2].startswith("differs")
    assert lens.verdict([-0.3, 0.2, 0.05])[2].startswith("not resolved")


def test_recipe_constants_are_the_defaults_everywhere():
    assert data.markov_task().tolist() == data.markov_task(rank=recipes.BASE.rank, beta=recipes.BASE.beta).tolist()
    assert (train.LR, train.BATCH, tasks.STEPS) == (recipes.BASE.lr, recipes.BASE.batch, recipes.TASKS.steps)
    cfg = model.Config(seed=2)
    a = train.train(model.init_params(cfg), cfg, data.default_task(), steps=20, chunk=20)
    b = train.train(model.init_params(cfg), cfg, data.default_task(), steps=20, chunk=20, lr=train.LR, batch=train.BATCH)
    assert a["history"][-1]["eval"] == b["history"][-1]["eval"]


def test_the_pages_sections_default_to_their_calibrated_recipe():
    from weighttying import state
    st = state.State()
    for section, r in (("pathdrop", recipes.PATHDROP), ("repeat", recipes.REPEAT), ("tasks", recipes.TASKS)):
        assert (getattr(st, section).lr, getattr(st, section).steps) == (r.lr, r.steps), section
    assert recipes.PATHDROP.steps == recipes.REPEAT.steps == 600  # the page's races: "after 600 steps"


def test_no_view_imports_the_search():
    import ast
    import pathlib
    from weighttying import views
    for path in pathlib.Path(views.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert "calibrate" not in names, path.name


def test_calibrate_command_prints_every_candidates_distances_and_the_winner(monkeypatch, capsys):
    from weighttying import __main__
    r = recipes.REPEAT
    monkeypatch.setattr(calibrate, "TASK_SPACE", {"rank": (r.rank,), "beta": (r.beta,)})
    monkeypatch.setattr(calibrate, "RECIPE_SPACE", {"lr": (r.lr,), "batch": (r.batch,)})
    # the search starts from the recipe in use, so the one candidate is the winner whatever the seeds' noise
    monkeypatch.setattr(recipes, "BASE", r)
    assert __main__.main(["calibrate", "--seeds", "2", "--only", "repeat"]) == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if " within, cost " in ln]
    assert len(lines) == 2 and lines[0].startswith("repeat: ")  # the one candidate, scored once, then the winner
    assert all(f"{calibrate.short(q)}=" in lines[0] for q in measure.TRAINED["repeat"][2])
    assert "pathdrop" not in out and "tasks." not in out
    assert f"in use: {r}\n" in out and "differs from the winner" not in out


def test_a_number_that_differs_says_why():
    assert set(quoted.LEFTOVERS) <= set(quoted.QUOTES)
    far = quoted.judge("sweep.fine_hits", [11.0, 12.0, 13.0])
    assert far["distance"] > 1 and quoted.explained(far).endswith(quoted.LEFTOVERS["sweep.fine_hits"])
    near = quoted.judge("sweep.fine_hits", [18.0, 19.0, 20.0])
    assert quoted.explained(near) == near["verdict"]
    trained = quoted.judge("repeat.trained.tied", [30.0, 30.5, 31.0])  # no entry: the pointer to the search
    assert quoted.explained(trained).endswith(quoted.CALIBRATED)
    assert quoted.explained(quoted.judge("pathdrop.wrong_rows.output_only", [9])).endswith("rounding)")
