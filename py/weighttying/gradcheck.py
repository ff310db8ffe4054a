"""Check the hand-written backward pass against central differences on every entry.

All entries of a parameter are perturbed at once: a stack of n copies, copy i bumped at entry i,
goes through one batched forward pass (model functions broadcast over leading axes).
"""
from __future__ import annotations

import numpy as np

from . import model

EPS = 1e-4  # truncation error ~EPS^2 stays below float64 rounding of the loss (~1e-15) / EPS
# Central differences cannot resolve entries far below a parameter's largest gradient entry, so the
# relative error's denominator never drops below this fraction of it.
FLOOR = 1e-4


def iter_numerical_grad(loss_fn, params: dict, name: str, eps: float = EPS, chunk: int = 1024):
    """Yield (flat indices (n,), central differences (n,)) of params[name], one chunk of entries at a time."""
    P = params[name]
    # chunks bound the memory of the stack (and, in the browser, the time between yields)
    for start in range(0, P.size, chunk):
        idx = np.arange(start, min(P.size, start + chunk))
        bump = np.zeros((len(idx), P.size))
        bump[np.arange(len(idx)), idx] = eps
        bump = bump.reshape(len(idx), *P.shape)
        plus = loss_fn({**params, name: P + bump})
        minus = loss_fn({**params, name: P - bump})
        yield idx, (plus - minus) / (2 * eps)


def numerical_grad(loss_fn, params: dict, name: str, eps: float = EPS, chunk: int = 1024) -> np.ndarray:
    """(loss(P + eps e_i) - loss(P - eps e_i)) / 2 eps for every entry i of params[name]; shape of it."""
    flat = np.empty(params[name].size)
    for idx, values in iter_numerical_grad(loss_fn, params, name, eps, chunk):
        flat[idx] = values
    return flat.reshape(params[name].shape)


def true_loss(cfg: model.Config, inputs, targets, net=model):
    """loss_fn(params) -> mean cross-entropy of net, (...) over any leading stack axes of params."""
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    return lambda p: model.cross_entropy(net.forward(p, cfg, inputs)["logits"], targets)[0]


def iter_numerical_grads(params: dict, cfg: model.Config, inputs, targets, net=model, chunk: int = 1024):
    """Yield {"step": entries done, "total": all entries} per chunk; the last also carries "numeric" {name: grad}."""
    loss_fn, total, done = true_loss(cfg, inputs, targets, net), sum(P.size for P in params.values()), 0
    flats = {name: np.empty(P.size) for name, P in params.items()}
    for name in params:
        for idx, values in iter_numerical_grad(loss_fn, params, name, chunk=chunk):
            flats[name][idx] = values
            done += len(idx)
            if done < total:
                yield {"step": done, "total": total}
    yield {"step": total, "total": total, "numeric": {n: flats[n].reshape(P.shape) for n, P in params.items()}}


def numerical_grads(params: dict, cfg: model.Config, inputs, targets, net=model) -> dict[str, np.ndarray]:
    """Central-difference gradient of net's true loss for every parameter {name: like param}."""
    loss_fn = true_loss(cfg, inputs, targets, net)
    return {name: numerical_grad(loss_fn, params, name) for name in params}


def rel_error(analytic: np.ndarray, numeric: np.ndarray) -> np.ndarray:
    """Entrywise |a - n| / max(|a| + |n|, FLOOR * max|n|), same shape as the inputs."""
    floor = max(FLOOR * np.abs(numeric).max(), 1e-300)
    return np.abs(analytic - numeric) / np.maximum(np.abs(analytic) + np.abs(numeric), floor)


def compare(analytic: dict, numeric: dict) -> dict:
    """Max relative error per parameter {"max": {name: float}, "E_rows": (V,)} of two gradient dicts."""
    errors = {name: rel_error(analytic[name], numeric[name]) for name in numeric}
    return {"max": {name: float(err.max()) for name, err in errors.items()},
            "E_rows": errors["E"].max(axis=1)}


def kinks(params: dict, cfg: model.Config, inputs, net=model) -> dict:
    """Nearest ReLU kink (smallest |a| in any block) and, to first order, the farthest one bump moves an a."""
    caches = [c for name, c in net.forward(params, cfg, np.asarray(inputs)).items() if name.startswith("mlp")]
    # a = x @ W + b: bumping b, W or E moves a by EPS times 1, |x| or |in_scale W|
    weights = [params[name] for name in params if name.startswith("W")]
    reach = EPS * max(1.0, *(np.abs(x).max() for x, _, _ in caches),
                      *(abs(cfg.in_scale) * np.abs(W).max() for W in weights))
    nearest = float(min(np.abs(a).min() for _, a, _ in caches))
    return {"nearest_kink": nearest, "bump_reach": float(reach), "kink_safe": bool(nearest > reach)}


def check(params: dict, cfg: model.Config, inputs, targets, net=model, **path_kw) -> dict:
    """Analytic (net.loss_and_grads, **path_kw) vs numerical: compare(), kinks(), both gradient dicts."""
    _, analytic = net.loss_and_grads(params, cfg, inputs, targets, **path_kw)
    numeric = numerical_grads(params, cfg, inputs, targets, net)
    return finish_check(params, cfg, inputs, analytic, numeric, net)


def finish_check(params: dict, cfg: model.Config, inputs, analytic: dict, numeric: dict, net=model) -> dict:
    """check()'s dict from gradients already computed: compare(), kinks(), both gradient dicts."""
    return {**compare(analytic, numeric), **kinks(params, cfg, inputs, net), "analytic": analytic, "numeric": numeric}


def iter_check(params: dict, cfg: model.Config, inputs, targets, net=model, chunk: int = 1024, **path_kw):
    """check() in steps: yield {"step", "total"} per chunk of entries; the last also carries "result"."""
    _, analytic = net.loss_and_grads(params, cfg, inputs, targets, **path_kw)
    for point in iter_numerical_grads(params, cfg, inputs, targets, net, chunk):
        if "numeric" in point:
            point = {**point, "result": finish_check(params, cfg, inputs, analytic, point.pop("numeric"), net)}
        yield point
