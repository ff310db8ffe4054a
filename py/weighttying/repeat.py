"""The repeat bias: where the token just read ranks among the model's predictions for the next one.

Tied, logit[t] = h . E[t], and the residual stream keeps x = in_scale * E[t] inside h, so the
self-logit carries |E[t]|^2, the largest dot product in the row. The tasks have no fixed points,
so any preference for repeating is the architecture's, not the data's.
"""
from __future__ import annotations

import numpy as np

from . import data, model, stack, train


def self_ranks(params: dict, cfg: model.Config) -> np.ndarray:
    """Rank (1 = top, ties shared) of token t among the V logits after reading t, for every t: (..., V)
    (params stacked (S, ...) give (S, V))."""
    logits = model.forward(params, cfg, np.arange(cfg.V))["logits"]
    own = np.diagonal(logits, axis1=-2, axis2=-1)[..., None]
    return 1.0 + (logits > own).sum(-1) + 0.5 * ((logits == own).sum(-1) - 1)


def rank_at_init(cfg: model.Config) -> float:
    """Mean self-rank of a freshly initialised model: a float in [1, V]."""
    return float(self_ranks(model.init_params(cfg), cfg).mean())


def init_spread(V: int = 64, d: int = 16, sigma: float = 0.25, seeds=range(5)) -> dict:
    """The logits behind the repeat bias of a fresh tied model with res = 1, over every token read and seeds:
    {self_mean, self_sd} of the just-read token's logit (V per seed), {other_mean, other_sd} of the V - 1 others."""
    own, others = [], []
    for s in seeds:
        cfg = model.Config(V=V, d=d, sigma=sigma, seed=s)
        logits = model.forward(model.init_params(cfg), cfg, np.arange(V))["logits"]
        diagonal = np.eye(V, dtype=bool)
        own.append(logits[diagonal])
        others.append(logits[~diagonal])
    own, others = np.concatenate(own), np.concatenate(others)
    return {"self_mean": float(own.mean()), "self_sd": float(own.std()),
            "other_mean": float(others.mean()), "other_sd": float(others.std())}


def rank_histogram(ranks: np.ndarray, V: int, bins: int = 8) -> dict:
    """Counts of ranks in `bins` equal bins over [1, V]: {"edges": (bins+1,), "counts": (bins,)}."""
    counts, edges = np.histogram(ranks, bins=bins, range=(1, V + 1))
    return {"edges": edges, "counts": counts}


def init_table(V: int = 64, d: int = 16, sigma: float = 0.25, seeds=range(5)) -> list[dict]:
    """Mean self-rank at init over seeds for tied res=1, untied, chance, tied res=0: {model, mean_rank, min, max, per_seed}."""
    models = {"tied, res = 1": dict(tied=True, res=1.0), "untied": dict(tied=False, res=1.0),
              "tied, res = 0 (the control)": dict(tied=True, res=0.0)}
    rows = []
    for name, kw in models.items():
        per_seed = [rank_at_init(model.Config(V=V, d=d, sigma=sigma, seed=s, **kw)) for s in seeds]
        rows.append({"model": name, "mean_rank": float(np.mean(per_seed)), "min": min(per_seed), "max": max(per_seed),
                     "per_seed": per_seed})
    chance = (V + 1) / 2  # a uniformly random rank among V
    rows.insert(2, {"model": "chance", "mean_rank": chance, "min": chance, "max": chance, "per_seed": [chance]})
    return rows


def iter_ranks(cfg: model.Config, task=None, steps: int = 600, lr: float = train.LR, seed: int = 0, chunk: int = 50,
               every: int | None = None, batch: int = train.BATCH):
    """Yield {step, loss, eval} at init and every chunk of training (data.default_task if None), with
    "ranks" (V,) at init, every `every` steps (default: every chunk) and at the end.

    At step 0 no batch has been drawn, so "loss" is the exact expected loss there (= "eval").
    """
    task = data.default_task(cfg.V) if task is None else task
    every = chunk if every is None else every
    params = model.init_params(cfg)
    ev = data.expected_loss(params, cfg, task)
    yield {"step": 0, "loss": ev, "eval": ev, "ranks": self_ranks(params, cfg)}
    for point in train.iter_train(params, cfg, task, steps=steps, lr=lr, seed=seed, chunk=chunk, batch=batch):
        p = {"step": point["step"], "loss": point["loss"], "eval": point["eval"]}
        if point["step"] % every == 0 or point["step"] == steps:
            p["ranks"] = self_ranks(point["params"], cfg)
        yield p


def race(res: float = 1.0, sigma: float = 0.25, steps: int = 600, lr: float = train.LR, seed: int = 0,
         chunk: int = 5, every: int = 25, V: int = 64, d: int = 16, task=None, batch: int = train.BATCH,
         names=("tied", "untied")):
    """Train tied and untied side by side on task (data.default_task if None; same res, sigma, seed, batches;
    one stack); yield every chunk of steps {step, loss (the worse of the two, NaN if either is)}, and at init,
    every `every` steps and at the end also {tied, untied (mean self-rank), ranks: {"tied": (V,), "untied": (V,)},
    eval: {"tied", "untied"}}.

    Small chunks keep each yield short (a UI can stay responsive between them); `every` sets the
    points of the rank curves. Neither changes any number. names: the models to train (one alone gives
    its numbers in the race, so the two can train in different workers).
    """
    runs = [stack.Run(model.Config(V=V, d=d, sigma=sigma, tied=name == "tied", res=res, seed=seed),
                      data.default_task(V) if task is None else task, seed) for name in names]
    params = stack.stack([model.init_params(r.cfg) for r in runs], runs)
    cfg, P = stack.shared_cfg(runs), np.stack([r.task for r in runs])

    def ranked(step, loss, evals, params):
        ranks = self_ranks(params, cfg)
        return {"step": step, "loss": float(np.max(loss)), **{k: float(ranks[i].mean()) for i, k in enumerate(names)},
                "ranks": dict(zip(names, ranks)), "eval": {k: float(e) for k, e in zip(names, evals)}}
    evals = data.expected_losses(params, cfg, P)
    yield ranked(0, evals, evals, params)  # no batch drawn yet: the loss is the exact expected loss
    for p in stack.iter_train(runs, steps=steps, lr=lr, batch=batch, chunk=chunk, every=every):
        if "eval" in p:
            yield ranked(p["step"], p["loss"], p["eval"], p["params"])
        else:
            yield {"step": p["step"], "loss": float(np.max(p["loss"]))}


def trained_table(V: int = 64, d: int = 16, sigma: float = 0.25, steps: int = 600, lr: float = train.LR,
                  seeds=range(5), task=None, batch: int = train.BATCH) -> list[dict]:
    """Mean self-rank after `steps` of training, tied vs untied, over seeds (one stack of every run):
    {model, mean_rank, min, max, per_seed}."""
    task = data.default_task(V) if task is None else task
    models = (("tied", True), ("untied", False))
    runs = [stack.Run(model.Config(V=V, d=d, sigma=sigma, tied=tied, seed=s), task, s) for _, tied in models for s in seeds]
    final = list(stack.iter_train(runs, steps=steps, lr=lr, batch=batch, chunk=steps))[-1]["params"]
    means = self_ranks(final, stack.shared_cfg(runs)).mean(-1).reshape(len(models), -1)
    return [{"model": name, "mean_rank": float(np.mean(m)), "min": float(min(m)), "max": float(max(m)),
             "per_seed": [float(x) for x in m]} for (name, _), m in zip(models, means)]
