"""One seed's value of every noisy page number under a recipe, and `spread`: those values over SEEDS at the
recipes in use, the sd every verdict's tolerance is computed from (quoted.judge).

The runs are the experiments' own (the same task, init, batches and steps pathdrop, repeat and tasks use; a
test checks they are equal), memoised per process so the calibration search trains a run two experiments
share once (the path-drop race's correct model is the repeat race's tied one at the same recipe).
"""
from __future__ import annotations

import functools

import numpy as np

from . import data, model, recipes, repeat, stack, sweep, train
from .recipes import Recipe

SEEDS = range(10)  # the verdicts' sd, at build: an sd of n seeds is itself uncertain by ~1/sqrt(2(n-1)), 24 % at ten
CHUNK = 600  # every step count read below is a multiple of it, so one run serves all of them
MISALIGNED = False  # both races train on the misaligned task: the data give the just-read token no special place


@functools.lru_cache(maxsize=None)
def task(rank: int, beta: float, aligned: bool) -> np.ndarray:
    """data.markov_task of the toy's V for a recipe's task (V, V)."""
    return data.markov_task(model.Config().V, aligned=aligned, rank=rank, beta=beta)


@functools.lru_cache(maxsize=None)
def run(rank: int, beta: float, aligned: bool, lr: float, batch: int, tied: bool, paths: tuple, seed: int,
        steps: int) -> dict[int, tuple[float, float]]:
    """{step: (exact expected loss, mean self-rank)} every CHUNK steps of one run of the toy (init and batches
    from seed)."""
    if (rank, beta, aligned, lr, batch, tied, paths, seed, steps) in STACKED:
        return STACKED[rank, beta, aligned, lr, batch, tied, paths, seed, steps]
    cfg = model.Config(tied=tied, seed=seed)
    P = task(rank, beta, aligned)
    out = {}
    for p in train.iter_train(model.init_params(cfg), cfg, P, steps=steps, lr=lr, batch=batch, seed=seed,
                              chunk=CHUNK, paths=paths):
        out[p["step"]] = (p["eval"], float(repeat.self_ranks(p["params"], cfg).mean()))
    return out


STACKED: dict = {}  # run()'s results of runs trained as one stack (train_stacked), by run()'s arguments


def train_stacked(keys: list[tuple]) -> None:
    """run() of every key (run()'s arguments) of one recipe and length not yet in STACKED, all as one stack
    (stack.py: each run's numbers are its one-model loop's to rounding, in a fraction of the time)."""
    todo = [k for k in dict.fromkeys(keys) if k not in STACKED]
    if not todo:
        return
    rank, beta, _, lr, batch, _, _, _, steps = todo[0]
    runs = [stack.Run(model.Config(tied=k[5], seed=k[7]), task(rank, beta, k[2]), k[7], k[6]) for k in todo]
    out, cfg = [{} for _ in runs], stack.shared_cfg(runs)
    for p in stack.iter_train(runs, steps=steps, lr=lr, batch=batch, chunk=CHUNK):
        for o, loss, rank_ in zip(out, p["eval"], repeat.self_ranks(p["params"], cfg).mean(-1)):
            o[p["step"]] = (float(loss), float(rank_))
    STACKED.update(zip(todo, out))


# experiment -> the (aligned, tied, paths) of each run its values() reads, per seed
RUNS = {"pathdrop": ((MISALIGNED, True, model.PATHS), (MISALIGNED, True, ("output",))),
        "repeat": ((MISALIGNED, True, model.PATHS), (MISALIGNED, False, model.PATHS)),
        "tasks": tuple((aligned, tied, model.PATHS) for aligned in (True, False) for tied in (True, False))}


def race_task(r: Recipe) -> np.ndarray:
    """The task a race trains on under recipe r (V, V): the misaligned one."""
    return task(r.rank, r.beta, MISALIGNED)


def runs(r: Recipe, aligned: bool, tied: bool, seed: int, steps, paths=model.PATHS) -> dict[int, tuple[float, float]]:
    """run() of recipe r, long enough for every one of steps."""
    return run(r.rank, r.beta, aligned, r.lr, r.batch, tied, tuple(paths), seed, max(steps))


def pathdrop_values(r: Recipe, seed: int, steps) -> dict[int, dict[str, float]]:
    """{t: {id: value}} of the path-drop race at each t of steps: correct and output-path-only final loss, gap."""
    correct = runs(r, MISALIGNED, True, seed, steps)
    broken = runs(r, MISALIGNED, True, seed, steps, paths=("output",))
    return {t: {"pathdrop.loss.correct": correct[t][0], "pathdrop.loss.output_only": broken[t][0],
                "pathdrop.loss.gap": broken[t][0] - correct[t][0]} for t in steps}


def repeat_values(r: Recipe, seed: int, steps) -> dict[int, dict[str, float]]:
    """{t: {id: value}} of the repeat race at each t of steps: tied and untied mean self-rank."""
    tied, untied = (runs(r, MISALIGNED, t, seed, steps) for t in (True, False))
    return {t: {"repeat.trained.tied": tied[t][1], "repeat.trained.untied": untied[t][1]} for t in steps}


def tasks_values(r: Recipe, seed: int, steps) -> dict[int, dict[str, float]]:
    """{t: {id: value}} of the tasks table at each t of steps: tied and untied excess loss and their ratio."""
    out = {t: {} for t in steps}
    for name, aligned in (("aligned", True), ("misaligned", False)):
        h = data.entropy(task(r.rank, r.beta, aligned))
        tied, untied = (runs(r, aligned, t, seed, steps) for t in (True, False))
        for t in steps:
            et, eu = tied[t][0] - h, untied[t][0] - h
            out[t].update({f"tasks.{name}.tied": et, f"tasks.{name}.untied": eu, f"tasks.{name}.ratio": et / eu})
    return out


# experiment -> (the recipe in use, its values(recipe, seed, steps), the page numbers it is calibrated on)
TRAINED = {
    "pathdrop": (lambda: recipes.PATHDROP, pathdrop_values,
                 ("pathdrop.loss.correct", "pathdrop.loss.output_only", "pathdrop.loss.gap")),
    "repeat": (lambda: recipes.REPEAT, repeat_values, ("repeat.trained.tied", "repeat.trained.untied")),
    "tasks": (lambda: recipes.TASKS, tasks_values,
              tuple(f"tasks.{t}.{k}" for t in ("aligned", "misaligned") for k in ("tied", "untied", "ratio"))),
}


def init_values(seed: int) -> dict[str, float]:
    """The page's rank table at init for one seed (the toy's sigma): {id: mean self-rank}."""
    rows = repeat.init_table(seeds=[seed])
    ids = {"tied, res = 1": "tied_res1", "untied": "untied", "tied, res = 0 (the control)": "tied_res0"}
    return {f"repeat.init.{ids[r['model']]}": r["mean_rank"] for r in rows if r["model"] in ids}


def sweep_values(seed: int) -> dict[str, float]:
    """The sweep's page numbers for one seed's init draw: coarse and fine hits, both doubling factors."""
    d = sweep.doubling(seed=seed)
    return {"sweep.coarse_hits": sweep.sweep_grid("coarse", seed=seed)["hits"],
            "sweep.fine_hits": sweep.sweep_grid("fine", seed=seed)["hits"],
            "sweep.doubling.resid": d["resid"], "sweep.doubling.logit": d["logit"]}


def per_seed(experiment: str, seed: int) -> dict[str, float]:
    """{id: value} of one experiment ("pathdrop", "repeat", "tasks", "repeat.init", "sweep") for one seed,
    at the recipe in use."""
    if experiment in TRAINED:
        recipe, values, _ = TRAINED[experiment]
        r = recipe()
        return values(r, seed, (r.steps,))[r.steps]
    return {"repeat.init": init_values, "sweep": sweep_values}[experiment](seed)


@functools.lru_cache(maxsize=None)
def spread(experiment: str, seeds: tuple = tuple(SEEDS)) -> dict[str, list[float]]:
    """{id: [value per seed]} of one experiment over seeds: the noise its verdicts are judged by. Trained
    experiments cost seconds a seed (computed at build, shipped with the section's results); "repeat.init"
    costs milliseconds, so a view computes it where it runs."""
    if experiment in TRAINED:  # every seed's runs at once
        r = TRAINED[experiment][0]()
        train_stacked([(r.rank, r.beta, a, r.lr, r.batch, t, p, s, r.steps) for s in seeds for a, t, p in RUNS[experiment]])
    per = [per_seed(experiment, s) for s in seeds]
    return {qid: [p[qid] for p in per] for qid in per[0]}
