"""Check the hand-written backward pass against central differences on every entry.

Two evaluators of the same central differences (loss(P + eps e_i) - loss(P - eps e_i)) / 2 eps:
- brute force, the definition: all entries of a parameter are perturbed at once, a stack of n
  copies (copy i bumped at entry i) through one batched forward pass; works for any net.
- fast (model only): each bumped loss is evaluated from only what its bump changes, by exact
  algebra on the unbumped forward pass (see bumped_losses); no backward pass, no derivative.
"""
from __future__ import annotations

import numpy as np

from . import model

EPS = 1e-4  # truncation error ~EPS^2 stays below float64 rounding of the loss (~1e-15) / EPS
# Central differences cannot resolve entries far below a parameter's largest gradient entry, so the
# relative error's denominator never drops below this fraction of it.
FLOOR = 1e-4
ROWS = 4  # distinct batch tokens per step of the fast check: ~7 MB of temporaries, ~30 ms in CPython


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


def iter_brute_numerical_grads(params: dict, cfg: model.Config, inputs, targets, net=model, chunk: int = 1024):
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


def brute_numerical_grads(params: dict, cfg: model.Config, inputs, targets, net=model) -> dict[str, np.ndarray]:
    """The reference: central differences of every entry of every parameter by stacked forward passes."""
    loss_fn = true_loss(cfg, inputs, targets, net)
    return {name: numerical_grad(loss_fn, params, name) for name in params}


# The fast evaluator. A batch's loss is a sum over its distinct input tokens ("rows": repeats of a
# token share x, h and the softmax p), and a bump that moves row u's logits by D changes that row's
# loss by w_u log(sum_v p_uv exp(D_v)) - Y_u . D, with w_u the batch share reading the token and
# Y_u the shares of each target after it. Evaluated as log1p(p . expm1(D)), the change never
# cancels two nearly equal losses, so these are the brute-force differences without their rounding
# noise (~1e-12 of the gradient). What each bump moves, with U = E when tied and G = W2 @ U.T:
#   b2[j]    every row by eps U[:, j]            W2[k, j]  row u by eps z[u, k] U[:, j]
#   b1[k]    row u by dz[u, k] G[k]              W1[i, k]  row u by dz[u, i, k] G[k]
#            dz = tanh(a + bump of a) - z: the exact tanh, not its slope
#   U[v, j]  column v of row u by eps h[u, j]
#   E[v, j]  x of the row whose token is v, so that row is recomputed through the MLP; tied, also
#            column v of every other row by eps h[u, j]


def distinct_rows(params: dict, cfg: model.Config, inputs, targets) -> dict:
    """The batch as its distinct tokens tok (n,): shares w (n,), Y (n, V), and x, a, z, h (n, .), p (n, V)."""
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    tok, inv, count = np.unique(inputs, return_inverse=True, return_counts=True)
    Y = np.zeros((len(tok), cfg.V))
    np.add.at(Y, (inv.ravel(), targets), 1.0 / len(inputs))
    cache = model.forward(params, cfg, tok)
    x, a, z = cache["mlp"]
    return {"tok": tok, "w": count / len(inputs), "Y": Y, "x": x, "a": a, "z": z, "h": cache["h"],
            "p": np.exp(model.log_softmax(cache["logits"]))}


def row_dloss(r: dict, rows: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Loss change of row rows[i] (m,) when its logits move by D[i] (m, ..., V): (m, ...)."""
    lift = (len(D),) + (1,) * (D.ndim - 2)  # w, p and Y of row rows[i] against every D[i, ...]
    p, Y = (r[k][rows].reshape(*lift, -1) for k in ("p", "Y"))
    return r["w"][rows].reshape(lift) * np.log1p((np.expm1(D) * p).sum(-1)) - (D * Y).sum(-1)


def summed(index: np.ndarray, values: np.ndarray, shape: tuple) -> np.ndarray:
    """values (m, ...) added up by index (m,) into the rows of a zero array of `shape`."""
    out = np.zeros(shape)
    np.add.at(out, index, values)
    return out


def column_dloss(r: dict, c: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Loss change, summed over kept rows (keep (n, V)), when column v of row u moves by c[u, j]: (V, d)."""
    lse = np.log1p(r["p"][:, :, None] * np.expm1(c)[:, None, :])
    return np.einsum("uv,uvj->vj", r["w"][:, None] * keep, lse) - (r["Y"] * keep).T @ c


def own_row_dloss(r: dict, params: dict, cfg: model.Config, e: float) -> np.ndarray:
    """Loss change of row u from bumping E[tok_u, j] by e, recomputed through the MLP: (n, d)."""
    s = cfg.in_scale * e  # x = in_scale * E[t] moves by s e_j
    dz = np.tanh(r["a"][:, None, :] + s * params["W1"]) - r["z"][:, None, :]          # (n, d, H)
    dh = dz @ params["W2"] + cfg.res * s * np.eye(cfg.d)                               # (n, d, d)
    D = dh @ model.unembedding(params, cfg).T                                          # (n, d, V)
    own = np.arange(len(D))
    if cfg.tied:  # E[v] is also the output row v: its logit h . E[v] gains e h'_j
        D[own, :, r["tok"]] += e * (r["h"] + np.diagonal(dh, axis1=1, axis2=2))
    return row_dloss(r, own, D)


def bumped_E(r: dict, params: dict, cfg: model.Config, e: float) -> np.ndarray:
    """Loss change from bumping each entry of E by e: (V, d)."""
    out = np.zeros((cfg.V, cfg.d))
    if cfg.tied:
        others = r["tok"][:, None] != np.arange(cfg.V)
        out += column_dloss(r, e * r["h"], others)
    out[r["tok"]] += own_row_dloss(r, params, cfg, e)
    return out


def bumped_losses(r: dict, params: dict, cfg: model.Config, name: str, e: float) -> np.ndarray:
    """loss(params with params[name][i] += e) - loss(params), summed over rows r, for every entry i: like params[name].

    A bump that leaves a row's logits exactly unchanged (a unit with z = 0 under a W2 bump) changes
    its loss by exactly 0, so only the rows and units it moves are evaluated.
    """
    U = model.unembedding(params, cfg)
    if name == "E":
        return bumped_E(r, params, cfg, e)
    if name == "U":
        return column_dloss(r, e * r["h"], np.ones((len(r["tok"]), cfg.V)))
    if name == "b2":
        n = len(r["tok"])
        return row_dloss(r, np.arange(n), np.broadcast_to(e * U.T, (n, cfg.d, cfg.V))).sum(0)
    if name == "W2":
        u, k = np.nonzero(r["z"])
        return summed(k, row_dloss(r, u, e * r["z"][u, k, None, None] * U.T), params["W2"].shape)
    G = params["W2"] @ U.T  # (H, V): the logits' change per unit of z[:, k]
    if name == "b1":
        dz = np.tanh(r["a"] + e) - r["z"]
        u, k = np.nonzero(dz)
        return summed(k, row_dloss(r, u, dz[u, k, None] * G[k]), params["b1"].shape)
    if name == "W1":
        dz = np.tanh(r["a"][:, None, :] + e * r["x"][:, :, None]) - r["z"][:, None, :]  # (n, d, H)
        u, i, k = np.nonzero(dz)
        H = cfg.hidden
        return summed(i * H + k, row_dloss(r, u, dz[u, i, k, None] * G[k]), (cfg.d * H,)).reshape(cfg.d, H)
    raise ValueError(f"no fast bumped loss for parameter {name!r}")


def iter_fast_numerical_grads(params: dict, cfg: model.Config, inputs, targets, eps: float = EPS, rows: int = ROWS):
    """brute_numerical_grads for model by bumped_losses, `rows` distinct tokens per step: progress dicts as iter_numerical_grads."""
    total = sum(P.size for P in params.values())
    r_all = distinct_rows(params, cfg, inputs, targets)
    n = len(r_all["tok"])
    change = {name: np.zeros((2, *P.shape)) for name, P in params.items()}  # loss(+eps) - loss, loss(-eps) - loss
    for lo in range(0, n, rows):
        r = {k: v[lo:lo + rows] for k, v in r_all.items()}
        for name in params:
            change[name] += [bumped_losses(r, params, cfg, name, e) for e in (eps, -eps)]
        if lo + rows < n:
            yield {"step": total * (lo + rows) // n, "total": total}
    yield {"step": total, "total": total, "numeric": {name: (c[0] - c[1]) / (2 * eps) for name, c in change.items()}}


def iter_numerical_grads(params: dict, cfg: model.Config, inputs, targets, net=model):
    """Yield {"step", "total"} (work done, in entries) per step; the last also carries "numeric" {name: grad}.

    The fast evaluator for model; brute force for any other net (deep).
    """
    if net is model:
        return iter_fast_numerical_grads(params, cfg, inputs, targets)
    return iter_brute_numerical_grads(params, cfg, inputs, targets, net)


def numerical_grads(params: dict, cfg: model.Config, inputs, targets, net=model) -> dict[str, np.ndarray]:
    """Central-difference gradient of net's true loss for every parameter {name: like param}."""
    for point in iter_numerical_grads(params, cfg, inputs, targets, net):
        pass
    return point["numeric"]


def rel_error(analytic: np.ndarray, numeric: np.ndarray) -> np.ndarray:
    """Entrywise |a - n| / max(|a| + |n|, FLOOR * max|n|), same shape as the inputs."""
    floor = max(FLOOR * np.abs(numeric).max(), 1e-300)
    return np.abs(analytic - numeric) / np.maximum(np.abs(analytic) + np.abs(numeric), floor)


def compare(analytic: dict, numeric: dict) -> dict:
    """Max relative error per parameter {"max": {name: float}, "E_rows": (V,)} of two gradient dicts."""
    errors = {name: rel_error(analytic[name], numeric[name]) for name in numeric}
    return {"max": {name: float(err.max()) for name, err in errors.items()},
            "E_rows": errors["E"].max(axis=1)}


def check(params: dict, cfg: model.Config, inputs, targets, net=model, **path_kw) -> dict:
    """Analytic (net.loss_and_grads, **path_kw) vs numerical: compare() and both gradient dicts."""
    _, analytic = net.loss_and_grads(params, cfg, inputs, targets, **path_kw)
    numeric = numerical_grads(params, cfg, inputs, targets, net)
    return finish_check(analytic, numeric)


def finish_check(analytic: dict, numeric: dict) -> dict:
    """check()'s dict from gradients already computed: compare() and both gradient dicts."""
    return {**compare(analytic, numeric), "analytic": analytic, "numeric": numeric}


def iter_check(params: dict, cfg: model.Config, inputs, targets, net=model, numeric=None, **path_kw):
    """check() in steps: yield {"step", "total"}, the last also with "result".

    numeric: the progress dicts of iter_numerical_grads for these arguments (a caller's memo); None computes them.
    """
    _, analytic = net.loss_and_grads(params, cfg, inputs, targets, **path_kw)
    numeric = iter_numerical_grads(params, cfg, inputs, targets, net) if numeric is None else numeric
    for point in numeric:
        if "numeric" in point:
            point = {**point, "result": finish_check(analytic, point.pop("numeric"))}
        yield point
