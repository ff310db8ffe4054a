"""Many training runs as one: S models stacked along a leading axis, so each NumPy call steps them all.

A run is what train.iter_train does for one model: its init, task, kept paths into E, input-gradient
scale and batches (drawn from default_rng(seed), as iter_train draws them). The runs of a stack share
the shape (V, d, hidden, res, in_scale), the net (model or deep), lr, batch and steps; tied and untied
mix. Every run's numbers are the one-model loop's to rounding (tests/test_numerics_stack.py).

Every run carries a U: a tied run's is a copy of its E, refreshed after each step, so the stack's
forward reads U for all (the untied net), and only the routing of dE_out differs per run.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from . import data, model, train


@dataclass(frozen=True)
class Run:
    """One model's training: cfg (its tied and seed), task P (V, V), batch seed, kept paths, input-gradient scale."""
    cfg: model.Config
    task: np.ndarray = field(repr=False)
    seed: int
    paths: tuple = model.PATHS
    input_grad_scale: float = 1.0


def shared_cfg(runs: list[Run]) -> model.Config:
    """The untied Config every run of the stack is stepped with; the runs must agree on all but tied and seed."""
    shapes = {dataclasses.replace(r.cfg, tied=False, seed=0) for r in runs}
    if len(shapes) != 1:
        raise ValueError(f"a stack's runs must share V, d, hidden, res, in_scale and sigma; got {sorted(map(str, shapes))}")
    return shapes.pop()


def stack(params: list[dict], runs: list[Run]) -> dict:
    """One dict of (S, ...) arrays from per-run params; a tied run's U is a copy of its E."""
    full = [p if "U" in p else {**p, "U": p["E"]} for p in params]
    return {name: np.stack([p[name] for p in full]) for name in full[0]}


def member(params: dict, i: int, run: Run) -> dict:
    """Run i's own params from the stack (no U when tied), as train.iter_train would hold them."""
    return {name: P[i] for name, P in params.items() if name != "U" or not run.cfg.tied}


def route(grads: dict, tied: np.ndarray, keep_in: np.ndarray, keep_out: np.ndarray, scale: np.ndarray) -> dict:
    """model.route_E per run, on (S,) masks: dE = scale * dE_in (if kept) + dE_out (if tied and kept), dU = dE_out."""
    grads = dict(grads)
    dE_in, dE_out = grads.pop("E_in"), grads.pop("E_out")
    # a mask or scale the same for every run costs no per-run np.where: the same numbers, fewer passes
    dE = dE_in if keep_in.all() and (scale == 1.0).all() else \
        np.where(keep_in[:, None, None], scale[:, None, None] * dE_in, 0.0)
    both = tied & keep_out
    grads["E"] = dE + dE_out if both.all() else dE if not both.any() else \
        np.where(both[:, None, None], dE + dE_out, dE)
    grads["U"] = dE_out
    return grads


def iter_train(runs: list[Run], params: list[dict] | None = None, steps: int = 600, lr: float = train.LR,
               batch: int = train.BATCH, chunk: int = 50, net=model, every: int | None = None):
    """Yield {step, loss (S,) (mean batch loss of the chunk), params (stacked)} every chunk, as train.iter_train
    does for each run, with "eval" (S,) (exact expected loss) every `every` steps (default: every chunk) and at
    the end; params default to net.init_params(run.cfg). Small chunks keep a yield short, a large `every`
    spares the evals a caller does not read; neither changes any number."""
    cfg, every = shared_cfg(runs), chunk if every is None else every
    params = stack([net.init_params(r.cfg) for r in runs] if params is None else params, runs)
    seeds = sorted({r.seed for r in runs})
    rngs = [np.random.default_rng(s) for s in seeds]
    P = np.stack([r.task for r in runs])
    # runs with the same seed and task get the same batches: each distinct (seed, task) is sampled once
    keys = [(r.seed, r.task.tobytes()) for r in runs]
    distinct = list(dict.fromkeys(keys))
    first, which = [keys.index(k) for k in distinct], np.array([distinct.index(k) for k in keys])
    cdf, stream = np.cumsum(P[first], axis=-1), np.array([seeds.index(runs[i].seed) for i in first])
    tied = np.array([r.cfg.tied for r in runs])
    keep_in, keep_out = (np.array([p in r.paths for r in runs]) for p in model.PATHS)
    scale = np.array([float(r.input_grad_scale) for r in runs])
    losses = []
    for step in range(1, steps + 1):
        inputs, targets = (a[which] for a in data.sample_batches(cdf, batch, rngs, stream))
        cache = net.forward(params, cfg, inputs)
        loss, dlogits = model.cross_entropy(cache["logits"], targets)
        grads = route(net.backward(params, cfg, inputs, cache, dlogits), tied, keep_in, keep_out, scale)
        params = {name: A - lr * grads[name] for name, A in params.items()}
        params["U"] = np.where(tied[:, None, None], params["E"], params["U"])
        losses.append(loss)
        if step % chunk == 0 or step == steps:
            point = {"step": step, "loss": np.mean(losses, axis=0), "params": params}
            if step % every == 0 or step == steps:
                point["eval"] = data.expected_losses(params, cfg, P, net)
            yield point
            losses = []


def train(runs: list[Run], params: list[dict] | None = None, **kw) -> list[dict]:
    """Every run's final params, after iter_train to the end (as train.train's "params")."""
    for point in iter_train(runs, params, **kw):
        pass
    return [member(point["params"], i, r) for i, r in enumerate(runs)]
