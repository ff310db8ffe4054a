"""Tying is free when its assumption holds: tied vs untied on an aligned and a misaligned task.

Each run is scored by its excess loss: the exact expected loss minus the task's own entropy, so the
two tasks are compared on what is learnable, not on how noisy they are.
"""
from __future__ import annotations

import numpy as np

from . import data, model, recipes, stack

TASKS = {"ALIGNED": True, "MISALIGNED": False}
R = recipes.TASKS  # the table's task, lr, batch and steps (the page gives none of them: calibrate searched them)
STEPS, LR, BATCH, TASK = R.steps, R.lr, R.batch, {"rank": R.rank, "beta": R.beta}


def param_count(cfg: model.Config) -> int:
    """Number of parameters of the model cfg describes (an int)."""
    return sum(P.size for P in model.init_params(cfg).values())


def parameter_counts(V: int = 64, d: int = 16) -> dict:
    """Tied and untied parameter counts and the two ways to quote the V*d tying removes."""
    tied, untied = (param_count(model.Config(V=V, d=d, tied=t)) for t in (True, False))
    return {"tied": tied, "untied": untied, "removed": untied - tied,
            "saving": 1 - tied / untied, "saving_of_tied": untied / tied - 1}


def summary(name: str, runs: list[dict], V: int = 64, d: int = 16, **task_kw) -> dict:
    """One task's row from its per-seed runs: mean excess tied and untied, ratio of means, per-seed range."""
    tied, untied = np.mean([r["tied"] for r in runs]), np.mean([r["untied"] for r in runs])
    ratios = [r["ratio"] for r in runs]
    counts = parameter_counts(V, d)
    return {"task": name, "entropy": data.entropy(data.markov_task(V, aligned=TASKS[name], **{**TASK, **task_kw})),
            "tied": float(tied), "untied": float(untied), "ratio": float(tied / untied),
            "ratio_min": min(ratios), "ratio_max": max(ratios), "runs": runs,
            "saving": counts["saving"], "saving_of_tied": counts["saving_of_tied"]}


def table(seeds=range(5), steps: int = STEPS, lr: float = LR, V: int = 64, d: int = 16,
          batch: int = BATCH, **task_kw) -> list[dict]:
    """Per task: mean excess loss tied and untied over seeds, ratio of means, per-seed ratio range, saving."""
    runs = {name: [] for name in TASKS}
    for p in iter_runs(seeds, steps, lr, V, d, steps, batch, **task_kw):
        if "run" in p:
            runs[p["task"]].append(p["run"])
    return [summary(name, runs[name], V, d, **task_kw) for name in TASKS]


def stack_runs(pairs, V: int, d: int, tasks: dict, **task_kw) -> list[stack.Run]:
    """The stack of a table's (seed, task) pairs: per pair, tied then untied (batches seeded by the seed)."""
    P = {name: data.markov_task(V, aligned=aligned, **{**TASK, **task_kw}) for name, aligned in tasks.items()}
    return [stack.Run(model.Config(V=V, d=d, tied=tied, seed=seed), P[name], seed)
            for seed, name in pairs for tied in (True, False)]


def iter_runs(seeds=range(5), steps: int = STEPS, lr: float = LR, V: int = 64, d: int = 16, chunk: int = 50,
              batch: int = BATCH, tasks: dict = TASKS, pairs=None, **task_kw):
    """The runs of `table`, streamed: yield {step (done over all runs), total, loss (the worst run's), seed, task,
    model, models} every chunk of training; all (seed, task, tied) runs train at once as one stack
    (stack.iter_train), so the last chunk is followed by one point per (seed, task) pair carrying
    "run" = {seed, tied, untied (excess losses), ratio}, in seed order. "seed", "task" and "model" name
    the stack's first run, "models" how many train at once. The chunk size does not change any number.
    pairs: the (seed, task) pairs to train (default: every seed with every task); a pair's numbers do not
    depend on the others it trains with (a seed's batches come from its own generator), so a table can be
    split across workers.
    """
    pairs = [(s, name) for s in seeds for name in tasks] if pairs is None else [tuple(p) for p in pairs]
    runs = stack_runs(pairs, V, d, tasks, **task_kw)
    if not runs:
        return
    entropy = {name: data.entropy(r.task) for (_, name), r in zip(pairs, runs[::2])}
    total = len(runs) * steps
    first = {"seed": runs[0].seed, "task": pairs[0][1], "model": "tied", "models": len(runs), "total": total}
    for point in stack.iter_train(runs, steps=steps, lr=lr, batch=batch, chunk=chunk, every=steps):
        yield {**first, "step": len(runs) * point["step"], "loss": float(np.max(point["loss"]))}
    for (i, r), (_, name) in zip(enumerate(runs[::2]), pairs):
        tied, untied = (float(point["eval"][2 * i + k]) - entropy[name] for k in (0, 1))
        yield {**first, "step": total, "loss": float(np.max(point["loss"])), "seed": r.seed, "task": name,
               "run": {"seed": r.seed, "tied": tied, "untied": untied, "ratio": tied / untied}}
