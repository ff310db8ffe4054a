"""Tying is free when its assumption holds: tied vs untied on an aligned and a misaligned task.

Each run is scored by its excess loss: the exact expected loss minus the task's own entropy, so the
two tasks are compared on what is learnable, not on how noisy they are.
"""
from __future__ import annotations

import numpy as np

from . import data, model, train

TASKS = {"ALIGNED": True, "MISALIGNED": False}


def param_count(cfg: model.Config) -> int:
    """Number of parameters of the model cfg describes (an int)."""
    return sum(P.size for P in model.init_params(cfg).values())


def excess_loss(task: np.ndarray, cfg: model.Config, steps: int = 600, lr: float = 0.5, seed: int = 0) -> float:
    """Exact expected loss after training minus the task's entropy, for one model and seed (nats)."""
    final = train.train(model.init_params(cfg), cfg, task, steps=steps, lr=lr, seed=seed, chunk=steps)
    return final["history"][-1]["eval"] - data.entropy(task)


def run_task(aligned: bool, seed: int, steps: int = 600, lr: float = 0.5, V: int = 64, d: int = 16) -> dict:
    """Tied and untied excess loss on one task for one seed (model init and batches), and their ratio."""
    task = data.markov_task(V, aligned=aligned)
    tied, untied = (excess_loss(task, model.Config(V=V, d=d, tied=t, seed=seed), steps, lr, seed) for t in (True, False))
    return {"seed": seed, "tied": tied, "untied": untied, "ratio": tied / untied}


def table(seeds=range(5), steps: int = 600, lr: float = 0.5, V: int = 64, d: int = 16) -> list[dict]:
    """Per task: mean excess loss tied and untied over seeds, ratio of means, per-seed ratio range, saving."""
    tied_params, untied_params = (param_count(model.Config(V=V, d=d, tied=t)) for t in (True, False))
    rows = []
    for name, aligned in TASKS.items():
        runs = [run_task(aligned, s, steps, lr, V, d) for s in seeds]
        tied, untied = np.mean([r["tied"] for r in runs]), np.mean([r["untied"] for r in runs])
        ratios = [r["ratio"] for r in runs]
        rows.append({"task": name, "entropy": data.entropy(data.markov_task(V, aligned=aligned)),
                     "tied": float(tied), "untied": float(untied), "ratio": float(tied / untied),
                     "ratio_min": min(ratios), "ratio_max": max(ratios), "runs": runs,
                     "saving": 1 - tied_params / untied_params, "saving_of_tied": untied_params / tied_params - 1})
    return rows
