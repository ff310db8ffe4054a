"""The toy with L MLP blocks in a row, for lenses on what each block adds to the residual stream.

    x   = in_scale * E[t]
    h_0 = res * x                                   the stream before any block
    h_1 = h_0 + mlp(x;       W1, b1, W2, b2)         block 1 reads x
    h_l = h_{l-1} + mlp(h_{l-1}; W(2l-1), b(2l-1), W(2l), b(2l))
    logits = h_L @ E.T (tied) or h_L @ U.T

Same Config, init and gradient routing as model; block 1 is model's own MLP, so with L = 1 this is model.
The number of blocks is read from the parameters (W1 .. W(2L)).
"""
from __future__ import annotations

import numpy as np

from . import model

MLP_KEYS = ("W1", "b1", "W2", "b2")  # init_mlp's names for one block


def names(l: int) -> tuple[str, str, str, str]:
    """Block l's parameter names (l from 1): W(2l-1), b(2l-1), W(2l), b(2l)."""
    return (f"W{2 * l - 1}", f"b{2 * l - 1}", f"W{2 * l}", f"b{2 * l}")


def depth(params: dict) -> int:
    """Number of blocks L in params."""
    return sum(name.startswith("W") for name in params) // 2


def init_params(cfg: model.Config, blocks: int = 2) -> dict[str, np.ndarray]:
    """model.init_params plus blocks 2..L, block l drawn from its own stream [seed, l]."""
    params = model.init_params(cfg)
    for l in range(2, blocks + 1):
        block = model.init_mlp(np.random.default_rng([cfg.seed, l]), cfg.d, cfg.hidden)
        params.update(zip(names(l), (block[k] for k in MLP_KEYS)))
    return params


def forward(params: dict, cfg: model.Config, inputs: np.ndarray) -> dict:
    """Logits (..., B, V) and the intermediates: x, hs = [h_0 .. h_L], h (= h_L), outs (block outputs), mlps."""
    x = cfg.in_scale * model.embed(params["E"], inputs)
    hs, outs, mlps, read = [cfg.res * x], [], [], x
    for l in range(1, depth(params) + 1):
        out, cache = model.mlp(read, *(params[n] for n in names(l)))
        hs.append(hs[-1] + out)
        outs.append(out)
        mlps.append(cache)
        read = hs[-1]
    logits = hs[-1] @ model.T(model.unembedding(params, cfg))
    return {"x": x, "hs": hs, "h": hs[-1], "outs": outs, "mlps": mlps, "logits": logits}


def backward(params: dict, cfg: model.Config, inputs: np.ndarray, cache: dict, dlogits: np.ndarray) -> dict:
    """Gradients, with the two paths into E apart as "E_in" and "E_out" (see model.backward)."""
    U = model.unembedding(params, cfg)
    grads = {"E_out": model.T(dlogits) @ cache["h"]}
    dh = dlogits @ U                                # dloss/dh_L
    for l in range(depth(params), 0, -1):
        W_in, _, W_out, _ = names(l)
        dread, block = model.mlp_backward(dh, cache["mlps"][l - 1], params[W_in], params[W_out])
        grads.update(zip(names(l), (block[k] for k in MLP_KEYS)))
        if l > 1:
            dh = dh + dread                         # h_l = h_{l-1} + mlp(h_{l-1})
    dx = cfg.res * dh + dread                       # h_1 = res * x + mlp(x)
    grads["E_in"] = model.scatter_rows(cfg.V, inputs, cfg.in_scale * dx)
    return grads


def loss_and_grads(params: dict, cfg: model.Config, inputs, targets, paths=model.PATHS,
                   input_grad_scale: float = 1.0):
    """Loss (float) and grads {name: like params}, same contract as model.loss_and_grads."""
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    cache = forward(params, cfg, inputs)
    loss_value, dlogits = model.cross_entropy(cache["logits"], targets)
    grads = backward(params, cfg, inputs, cache, dlogits)
    return float(loss_value), model.route_E(grads, params, cfg, paths, input_grad_scale)
