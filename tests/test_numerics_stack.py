"""Many runs trained as one stack (weighttying.stack) give every run's numbers of the one-model loop
(train.iter_train), run by run, to 1e-9 relative: loss and exact expected loss at every chunk and every
final parameter. The largest relative difference measured is printed (pytest -s) and asserted."""
import numpy as np
import pytest

from weighttying import data, deep, model, paper, pathdrop, repeat, stack, tasks, train

TOL = 1e-9


def rel(a, b) -> float:
    """Largest |a - b| / max(|b|, 1e-12) over all entries (a near-zero entry is judged absolutely)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12)))


def worst_against_loop(runs: list, params: list, net, **kw) -> float:
    """Train runs as one stack and each alone with train.iter_train; the largest relative difference."""
    stacked = list(stack.iter_train(runs, params, net=net, **kw))
    worst = 0.0
    for i, (r, p0) in enumerate(zip(runs, params)):
        alone = list(train.iter_train(p0, r.cfg, r.task, seed=r.seed, paths=r.paths,
                                      input_grad_scale=r.input_grad_scale, net=net, **kw))
        assert [p["step"] for p in alone] == [p["step"] for p in stacked]
        for one, many in zip(alone, stacked):
            worst = max(worst, rel(many["loss"][i], one["loss"]), rel(many["eval"][i], one["eval"]))
            mine = stack.member(many["params"], i, r)
            assert mine.keys() == one["params"].keys()
            worst = max(worst, *(rel(mine[k], one["params"][k]) for k in mine))
    return worst


def mixed_runs(V=64):
    """Tied and untied, aligned and misaligned, a dropped path, a scaled input path, shared and own seeds."""
    A, M = (data.markov_task(V, aligned=a) for a in (True, False))
    runs = [stack.Run(model.Config(tied=t, seed=s), P, s) for s in (0, 1) for P in (A, M) for t in (True, False)]
    return runs + [stack.Run(model.Config(tied=True, seed=3), M, 3, paths=("output",)),
                   stack.Run(model.Config(tied=True, seed=3), M, 3, paths=("input",), input_grad_scale=4.0),
                   stack.Run(model.Config(tied=False, seed=4), M, 7, paths=())]


def test_stack_equals_the_one_model_loop_run_by_run():
    runs = mixed_runs()
    worst = worst_against_loop(runs, [model.init_params(r.cfg) for r in runs], model, steps=120, chunk=40)
    print(f"\nstack vs one-model loop, {len(runs)} runs x 120 steps: largest relative difference {worst:.3g}")
    assert worst <= TOL


@pytest.mark.parametrize("kind", ["all tied", "all untied", "all output-only", "all scaled", "mixed"])
def test_uniform_stacks_equal_the_loop_to_1e12(kind):
    """stack.route applies a mask or scale shared by every run once (no per-run np.where): each such stack, and a
    mixed one, gives every run's loss, eval and params of the one-model loop within 1e-12 * max(1, |loop|)."""
    M = data.default_task()
    paths, scale = {"all output-only": (("output",), 1.0), "all scaled": (model.PATHS, 3.0)}.get(kind, (model.PATHS, 1.0))
    tied = {"all untied": (False,) * 4, "mixed": (True, False, True, False)}.get(kind, (True,) * 4)
    runs = [stack.Run(model.Config(tied=t, seed=s), M, s, paths, scale) for s, t in zip((0, 0, 1, 2), tied)]
    stacked = list(stack.iter_train(runs, steps=60, chunk=30))
    worst = 0.0
    for i, r in enumerate(runs):
        alone = list(train.iter_train(model.init_params(r.cfg), r.cfg, M, steps=60, chunk=30, seed=r.seed,
                                      paths=paths, input_grad_scale=scale))
        for one, many in zip(alone, stacked, strict=True):
            mine = stack.member(many["params"], i, r)
            pairs = [(many["loss"][i], one["loss"]), (many["eval"][i], one["eval"]),
                     *((mine[k], one["params"][k]) for k in one["params"])]
            worst = max(worst, *(float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))) for a, b in pairs))
    assert worst <= 1e-12, f"{kind}: stack vs loop differ by {worst:.3g}"


def test_deep_stack_equals_the_one_model_loop():
    M = data.default_task()
    runs = [stack.Run(model.Config(tied=t, seed=s), M, s) for s in (0, 1) for t in (True, False)]
    params = [deep.init_params(r.cfg, 3) for r in runs]
    worst = worst_against_loop(runs, params, deep, steps=60, chunk=30, lr=0.5)
    print(f"\ndeep (3 blocks) stack vs loop: largest relative difference {worst:.3g}")
    assert worst <= TOL


def test_batches_are_each_streams_own_draws():
    P = np.stack([data.markov_task(16, aligned=a, seed=2) for a in (True, False, True)])
    stream = np.array([1, 0, 1])
    rngs = [np.random.default_rng(s) for s in (5, 9)]
    alone = [np.random.default_rng((5, 9)[k]) for k in stream]  # each run's own copy of its stream
    for _ in range(3):
        inputs, targets = data.sample_batches(np.cumsum(P, -1), 8, rngs, stream)
        for i in range(3):
            want = data.sample_batch(P[i], 8, alone[i])
            assert (inputs[i] == want[0]).all() and (targets[i] == want[1]).all()


def test_tasks_stream_equals_the_loop():
    want = []
    for seed in (0, 1):
        for aligned in (True, False):
            P = data.markov_task(aligned=aligned, **tasks.TASK)
            tied, untied = (train.train(model.init_params(model.Config(tied=t, seed=seed)), model.Config(tied=t, seed=seed),
                                        P, steps=50, seed=seed, chunk=50, lr=tasks.LR, batch=tasks.BATCH)["history"][-1]["eval"]
                            - data.entropy(P)
                            for t in (True, False))
            want.append((seed, tied, untied))
    got = [(p["run"]["seed"], p["run"]["tied"], p["run"]["untied"]) for p in tasks.iter_runs(range(2), 50, chunk=25)
           if "run" in p]
    assert [g[0] for g in got] == [w[0] for w in want]
    assert max(rel(g[1:], w[1:]) for g, w in zip(got, want)) <= TOL


def test_runs_of_different_shapes_do_not_stack():
    M = data.default_task()
    runs = [stack.Run(model.Config(seed=0), M, 0), stack.Run(model.Config(seed=0, res=0.0), M, 0)]
    with pytest.raises(ValueError, match="must share V, d, hidden, res"):
        list(stack.iter_train(runs, steps=2))


def test_sections_stacks_equal_their_one_model_loops():
    """repeat.race and trained_table, pathdrop's curves: each run's numbers are its one-model loop's."""
    race = [p for p in repeat.race(steps=50, chunk=5, every=25, seed=1) if "ranks" in p]
    for name in ("tied", "untied"):
        cfg = model.Config(tied=name == "tied", seed=1)
        alone = [p for p in repeat.iter_ranks(cfg, steps=50, seed=1, chunk=5, every=25) if "ranks" in p]
        assert [p["step"] for p in alone] == [p["step"] for p in race] == [0, 25, 50]
        assert max(max(rel(p["ranks"][name], q["ranks"]), rel(p["eval"][name], q["eval"])) for p, q in zip(race, alone)) <= TOL
    table = repeat.trained_table(steps=40, seeds=range(2))
    for row, tied in zip(table, (True, False)):
        loop = [float(list(repeat.iter_ranks(model.Config(tied=tied, seed=s), steps=40, seed=s, chunk=40))[-1]["ranks"].mean())
                for s in range(2)]
        assert rel(row["per_seed"], loop) <= TOL
    curves = pathdrop.training_curves(steps=40, chunk=20, seed=2)
    for name, paths in pathdrop.CURVES.items():
        cfg = model.Config()
        loop = train.train(model.init_params(cfg), cfg, data.default_task(), steps=40, seed=2, chunk=20, paths=paths)
        assert rel([p["eval"] for p in curves[name]], [p["eval"] for p in loop["history"]]) <= TOL


def test_paper_study_and_alignment_equal_their_loops():
    """paper's stacks (one-block runs, two-block runs) against paper.trained, the one-model loop."""
    study = paper.study(scale=4.0, steps=30, seed=1, seeds=2)
    align = paper.alignment(scales=(4.0,), seeds=range(1, 3), steps=30)[0]
    cka = []
    for i, s in enumerate((1, 2)):
        tied, untied = paper.trained(model.Config(seed=s), 30, 0.5, 4.0), paper.trained(model.Config(tied=False, seed=s), 30, 0.5)
        cka.append(paper.linear_cka(tied["E"], untied["U"]))
        assert rel(study["align_seeds"][i]["cka_with_U"], cka[-1]) <= TOL
        deep_tied = paper.trained(model.Config(seed=s), 30, 0.5, 4.0, net=deep)
        want = paper.lens_one(deep_tied, model.Config(seed=s), data.default_task())
        assert rel([study["lens_seeds"][i][k] for k in ("tied_loss_drop", "tied_norm_share")], want) <= TOL
    assert rel(align["cka_with_U"], np.mean(cka)) <= TOL
