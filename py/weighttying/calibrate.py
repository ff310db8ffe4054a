"""`python -m weighttying calibrate`: search the choices the page leaves open, one experiment at a time.

Each trained experiment (the path-drop race, the repeat race, the tasks table) is searched separately and
scored only on its own page numbers (measure.TRAINED), so no search looks at numbers it is not calibrating:
the tasks table is held out of the races' searches and the races out of the tasks'. Every candidate runs the
same seeds; each number is judged by quoted.judge (the candidate's own seeds give the sd), so a candidate's
score is how many of its page numbers it reproduces within their tolerance at once.

Bounds, what keeps a candidate "the same kind of toy": the model is the page's (V = 64, d = 16, sigma = 0.25,
plain SGD); the task is data.markov_task with rank in {2, 4, 8} and beta in {8, 16, 32} (entropy 0.58 to 2.71
nats: a token's successors from a few to many), misaligned for the races (the data give the just-read token no
special place); lr and batch halve or double the package's recipe (lr {0.5, 1, 2}, batch {32, 64, 128}); the
races train 600 steps (the page's "after 600 steps": said of the repeat race, held for the path-drop race too),
the tasks table 600 or 1200 (the page does not say).
"""
from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from . import measure, quoted, recipes
from .recipes import Recipe

TASK_SPACE = {"rank": (2, 4, 8), "beta": (8.0, 16.0, 32.0)}
RECIPE_SPACE = {"lr": (0.5, 1.0, 2.0), "batch": (32, 64, 128)}
STEPS = {"pathdrop": (600,), "repeat": (600,), "tasks": (600, 1200)}  # read from the same runs
ROUNDS = 2  # stages: the task at the start's recipe, the recipe at the best task, twice at most
SEEDS = range(5)


def grid(space: dict, fixed: Recipe) -> list[Recipe]:
    """Every combination of the space's values, each replacing those choices of fixed."""
    return [dataclasses.replace(fixed, **dict(zip(space, values))) for values in itertools.product(*space.values())]


def score(experiment: str, r: Recipe, per_seed: list[dict]) -> dict:
    """{experiment, candidate, verdicts {id: quoted.judge}, within (count), total, cost (sum of squared
    distances, each capped at 10)} of one candidate from its per-seed values."""
    verdicts = {}
    for qid in measure.TRAINED[experiment][2]:
        values = [p[qid] for p in per_seed]
        verdicts[qid] = quoted.judge(qid, values) if np.all(np.isfinite(values)) else \
            {"id": qid, "ours": float("nan"), "page": quoted.QUOTES[qid][0], "distance": float("inf"),
             "verdict": "diverged"}
    within = sum(v["distance"] <= 1 for v in verdicts.values())
    cost = float(sum(min(v["distance"], 10.0) ** 2 for v in verdicts.values()))
    return {"experiment": experiment, "candidate": r, "verdicts": verdicts, "within": within,
            "total": len(verdicts), "cost": cost}


def scores(experiment: str, r: Recipe, seeds=SEEDS) -> list[dict]:
    """score() of r at every step count of STEPS[experiment], from one set of runs per seed."""
    values, steps = measure.TRAINED[experiment][1], STEPS[experiment]
    with np.errstate(all="ignore"):  # a learning rate that diverges is scored "diverged", not raised
        per = [values(r, s, steps) for s in seeds]
    return [score(experiment, dataclasses.replace(r, steps=t), [p[t] for p in per]) for t in steps]


def best(scores: list[dict]) -> dict:
    """The candidate reproducing the most page numbers; ties go to the smaller summed squared distance."""
    return min(scores, key=lambda s: (-s["within"], s["cost"]))


def iter_search(experiment: str, seeds=SEEDS, rounds: int = ROUNDS):
    """Yield score() of every candidate the coordinate search visits for one experiment, each once: the task
    grid at recipes.BASE's lr and batch, then the recipe grid at the best task, ..., until a stage leaves the
    winner where it was (at most 2 * rounds stages, so at most 36 recipes)."""
    start = recipes.BASE
    seen, done, fixed = set(), [], start
    for stage in [TASK_SPACE, RECIPE_SPACE] * rounds:
        before = best(done)["candidate"] if done else None
        for r in grid(stage, fixed):
            if r not in seen:
                seen.add(r)
                done += scores(experiment, r, seeds)
                yield from done[-len(STEPS[experiment]):]
        win = best(done)["candidate"]
        if win == before:
            return
        fixed = dataclasses.replace(win, steps=start.steps)


def current(experiment: str) -> Recipe:
    """The recipe the package uses now for one experiment (recipes.PATHDROP, REPEAT or TASKS)."""
    return measure.TRAINED[experiment][0]()


def short(qid: str) -> str:
    """An id without its section, for a narrow column: 'tasks.aligned.tied' -> 'aligned.tied'."""
    return qid.split(".", 1)[1]


def line(s: dict) -> str:
    """One candidate as text: its choices, how many page numbers it reproduces, each id's distance in tolerances."""
    c = " ".join(f"{f.name}={getattr(s['candidate'], f.name):g}" for f in dataclasses.fields(Recipe))
    d = " ".join(f"{short(k)}={v['distance']:.2f}" for k, v in s["verdicts"].items())
    return f"{s['experiment']}: {c} | {s['within']}/{s['total']} within, cost {s['cost']:.1f} | {d}"


