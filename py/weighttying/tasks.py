"""Tying is free when its assumption holds: tied vs untied on an aligned and a misaligned task.

Each run is scored by its excess loss: the exact expected loss minus the task's own entropy, so the
two tasks are compared on what is learnable, not on how noisy they are.
"""
from __future__ import annotations

import numpy as np

from . import data, model, recipes, train

TASKS = {"ALIGNED": True, "MISALIGNED": False}
R = recipes.TASKS  # the table's task, lr, batch and steps (the page gives none of them: calibrate searched them)
STEPS, LR, BATCH, TASK = R.steps, R.lr, R.batch, {"rank": R.rank, "beta": R.beta}


def param_count(cfg: model.Config) -> int:
    """Number of parameters of the model cfg describes (an int)."""
    return sum(P.size for P in model.init_params(cfg).values())


def excess_loss(task: np.ndarray, cfg: model.Config, steps: int = STEPS, lr: float = LR, seed: int = 0,
                batch: int = BATCH) -> float:
    """Exact expected loss after training minus the task's entropy, for one model and seed (nats)."""
    final = train.train(model.init_params(cfg), cfg, task, steps=steps, lr=lr, seed=seed, chunk=steps, batch=batch)
    return final["history"][-1]["eval"] - data.entropy(task)


def run_task(aligned: bool, seed: int, steps: int = STEPS, lr: float = LR, V: int = 64, d: int = 16,
             batch: int = BATCH, **task_kw) -> dict:
    """Tied and untied excess loss on one task (data.markov_task(**task_kw)) for one seed, and their ratio."""
    task = data.markov_task(V, aligned=aligned, **{**TASK, **task_kw})
    tied, untied = (excess_loss(task, model.Config(V=V, d=d, tied=t, seed=seed), steps, lr, seed, batch)
                    for t in (True, False))
    return {"seed": seed, "tied": tied, "untied": untied, "ratio": tied / untied}


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
    return [summary(name, [run_task(aligned, s, steps, lr, V, d, batch, **task_kw) for s in seeds], V, d, **task_kw)
            for name, aligned in TASKS.items()]


def iter_runs(seeds=range(5), steps: int = STEPS, lr: float = LR, V: int = 64, d: int = 16, chunk: int = 50,
              batch: int = BATCH):
    """The runs of `table`, streamed: yield {step (done over all runs), total, loss, seed, task, model}
    every chunk of training; the chunk that finishes a (seed, task) pair also carries "run" = run_task's dict.

    Seeds outermost, so the table fills one seed at a time; the chunk size does not change any number
    (the batches come from the seed alone).
    """
    seeds = list(seeds)
    total, done = len(seeds) * len(TASKS) * 2 * steps, 0
    for seed in seeds:
        for name, aligned in TASKS.items():
            task = data.markov_task(V, aligned=aligned, **TASK)
            entropy, excess = data.entropy(task), {}
            for tied in (True, False):
                cfg = model.Config(V=V, d=d, tied=tied, seed=seed)
                which = "tied" if tied else "untied"
                for point in train.iter_train(model.init_params(cfg), cfg, task, steps=steps, lr=lr, seed=seed,
                                              chunk=chunk, batch=batch):
                    p = {"step": done + point["step"], "total": total, "loss": point["loss"], "seed": seed,
                         "task": name, "model": which}
                    if point["step"] == steps:
                        excess[which] = point["eval"] - entropy
                        if len(excess) == 2:
                            p["run"] = {"seed": seed, **excess, "ratio": excess["tied"] / excess["untied"]}
                    yield p
                done += steps
