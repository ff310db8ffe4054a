"""`python -m weighttying calibrate`: search the choices the page leaves open, score each against the page.

The page fixes the model (V = 64, d = 16, sigma = 0.25, 600 steps for the curves and the ranks) but
not the task's construction (rank, beta: how many directions meanings vary in, how sharp a successor
is), the learning rate, the batch, or the steps of the tasks table. Every candidate runs the same five
seeds through the page's trained numbers (quoted.TRAINED); each is judged by quoted.judge, so a
candidate's score is how many page numbers it reproduces within their noise tolerance at once.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from . import data, model, quoted, repeat, tasks, train

# A bounded coordinate search, not the full product: the recipe at the task this package started from,
# then the task at the best recipe, then the recipe again at the best task, and so on until a stage
# leaves the winner where it was (at most ROUNDS rounds). Both task_steps come from the same runs.
RECIPES = {"lr": (0.5, 1.0), "batch": (32, 64, 128)}
TASKS = {"rank": (2, 4, 8), "beta": (8.0, 16.0, 32.0)}
TASK_STEPS = (600, 1200)
START = {"rank": 4, "beta": 16.0}
ROUNDS = 3
STEPS = 600  # the page's steps for the loss curves and the trained ranks
SEEDS = range(5)


def grid(space: dict, fixed: dict) -> list[dict]:
    """Every combination of the space's values, each merged into the fixed choices: [{choice: value}]."""
    return [{**fixed, **dict(zip(space, values))} for values in itertools.product(*space.values())]


def run(cfg: model.Config, task: np.ndarray, lr: float, batch: int, steps: int, paths=model.PATHS) -> dict:
    """{step: (exact expected loss, mean self-rank)} every STEPS steps of one training run (seed = cfg.seed)."""
    out = {}
    for p in train.iter_train(model.init_params(cfg), cfg, task, steps=steps, lr=lr, batch=batch, seed=cfg.seed,
                              chunk=STEPS, paths=paths):
        out[p["step"]] = (p["eval"], float(repeat.self_ranks(p["params"], cfg).mean()))
    return out


def seed_measures(c: dict, seed: int, task_steps=TASK_STEPS) -> dict[int, dict[str, float]]:
    """{t: {id: our value}} of every quoted.TRAINED id for choices c and one seed, every t of task_steps
    read from the same runs (the runs pathdrop, repeat and tasks make with these choices)."""
    kw = dict(lr=c["lr"], batch=c["batch"], steps=max(STEPS, *task_steps))
    A, M = (data.markov_task(aligned=a, rank=c["rank"], beta=c["beta"]) for a in (True, False))
    tied, untied = (model.Config(tied=t, seed=seed) for t in (True, False))
    m_tied, m_untied, a_tied, a_untied = (run(cfg, P, **kw) for P in (M, A) for cfg in (tied, untied))
    broken = run(tied, M, lr=c["lr"], batch=c["batch"], steps=STEPS, paths=("output",))
    base = {"pathdrop.loss.correct": m_tied[STEPS][0], "pathdrop.loss.output_only": broken[STEPS][0],
            "repeat.trained.tied": m_tied[STEPS][1], "repeat.trained.untied": m_untied[STEPS][1]}
    hA, hM = data.entropy(A), data.entropy(M)
    out = {}
    for t in task_steps:
        out[t] = dict(base)
        for name, et, eu in (("aligned", a_tied[t][0] - hA, a_untied[t][0] - hA),
                             ("misaligned", m_tied[t][0] - hM, m_untied[t][0] - hM)):
            out[t].update({f"tasks.{name}.tied": et, f"tasks.{name}.untied": eu, f"tasks.{name}.ratio": et / eu})
    return out


def score(c: dict, per_seed: list[dict]) -> dict:
    """{candidate, verdicts {id: quoted.judge}, within (count), total, cost (sum of squared distances, capped)}."""
    verdicts = {}
    for qid in quoted.TRAINED:
        values = [p[qid] for p in per_seed]
        verdicts[qid] = quoted.judge(qid, values) if np.all(np.isfinite(values)) else \
            {"id": qid, "ours": float("nan"), "page": quoted.QUOTES[qid][0], "distance": float("inf"),
             "verdict": "diverged"}
    within = sum(v["distance"] <= 1 for v in verdicts.values())
    cost = float(sum(min(v["distance"], 10.0) ** 2 for v in verdicts.values()))
    return {"candidate": c, "verdicts": verdicts, "within": within, "total": len(verdicts), "cost": cost}


def scores(choices: dict, seeds=SEEDS) -> list[dict]:
    """score() of choices at every TASK_STEPS, from one set of runs per seed."""
    with np.errstate(all="ignore"):  # a learning rate that diverges is scored "diverged", not raised
        per = [seed_measures(choices, s) for s in seeds]
    return [score({**choices, "task_steps": t}, [p[t] for p in per]) for t in TASK_STEPS]


def best(scores: list[dict]) -> dict:
    """The candidate reproducing the most page numbers; ties go to the smaller summed squared distance."""
    return min(scores, key=lambda s: (-s["within"], s["cost"]))


def iter_search(seeds=SEEDS, rounds: int = ROUNDS):
    """Yield score() of every candidate the coordinate search visits (RECIPES, then TASKS, ...), each once."""
    seen, done, fixed = set(), [], dict(START)
    for stage in [RECIPES, TASKS] * rounds:
        before = best(done)["candidate"] if done else None
        for choices in grid(stage, fixed):
            key = tuple(sorted(choices.items()))
            if key not in seen:
                seen.add(key)
                done += scores(choices, seeds)
                yield from done[-len(TASK_STEPS):]
        win = best(done)["candidate"]
        if win == before:
            return
        fixed = {k: win[k] for k in (*TASKS, *RECIPES)}


def current() -> dict:
    """The choices the package uses now (data.RANK, data.BETA, train.LR, train.BATCH, tasks.STEPS), as a candidate."""
    return {"rank": data.RANK, "beta": data.BETA, "lr": train.LR, "batch": train.BATCH, "task_steps": tasks.STEPS}


def measured(seeds=SEEDS) -> list[dict[str, float]]:
    """Per seed, our value of every quoted.TRAINED id under the recipe in use (seed_measures at its task steps)."""
    steps = current()["task_steps"]
    return [seed_measures(current(), s, (steps,))[steps] for s in seeds]


@functools.lru_cache(maxsize=1)
def spread(seeds=SEEDS) -> dict[str, list[float]]:
    """{id: per-seed values} of every quoted.TRAINED id (and the loss gap) under the recipe in use: the
    noise a single live run of these quantities is judged by (computed at build, shipped with the results)."""
    per = measured(seeds)
    out = {qid: [p[qid] for p in per] for qid in quoted.TRAINED}
    out["pathdrop.loss.gap"] = [p["pathdrop.loss.output_only"] - p["pathdrop.loss.correct"] for p in per]
    return out


def short(qid: str) -> str:
    """An id without its section, for a narrow column: 'tasks.aligned.tied' -> 'aligned.tied'."""
    return qid.split(".", 1)[1]


def line(s: dict) -> str:
    """One candidate as text: its choices, how many page numbers it reproduces, each id's distance in tolerances."""
    c = " ".join(f"{k}={s['candidate'][k]:g}" for k in (*TASKS, *RECIPES, "task_steps"))
    d = " ".join(f"{short(k)}={v['distance']:.2f}" for k, v in s["verdicts"].items())
    return f"{c} | {s['within']}/{s['total']} within, cost {s['cost']:.1f} | {d}"
