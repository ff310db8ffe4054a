"""The toy with two MLP blocks, for a lens on what the early block adds to the residual stream.

    x  = in_scale * E[t]
    h1 = res * x + mlp(x;  W1, b1, W2, b2)      block 1
    h  = h1 + mlp(h1; W3, b3, W4, b4)           block 2
    logits = h @ E.T (tied) or h @ U.T

Same Config, init and gradient routing as model; only the depth differs.
"""
from __future__ import annotations

import numpy as np

from . import model

BLOCK2 = {"W1": "W3", "b1": "b3", "W2": "W4", "b2": "b4"}  # block 2's names for init_mlp's keys


def init_params(cfg: model.Config) -> dict[str, np.ndarray]:
    """model.init_params plus block 2 (W3 (d, H), b3 (H,), W4 (H, d), b4 (d,)) from its own stream."""
    block2 = model.init_mlp(np.random.default_rng([cfg.seed, 2]), cfg.d, cfg.hidden)
    return {**model.init_params(cfg), **{BLOCK2[k]: v for k, v in block2.items()}}


def forward(params: dict, cfg: model.Config, inputs: np.ndarray) -> dict:
    """Logits (..., B, V) and the intermediates: x, h1 (after block 1), h (after block 2)."""
    x = cfg.in_scale * params["E"][..., inputs, :]
    out1, mlp1 = model.mlp(x, params["W1"], params["b1"], params["W2"], params["b2"])
    h1 = cfg.res * x + out1
    out2, mlp2 = model.mlp(h1, params["W3"], params["b3"], params["W4"], params["b4"])
    h = h1 + out2
    logits = h @ np.swapaxes(model.unembedding(params, cfg), -1, -2)
    return {"x": x, "h1": h1, "h": h, "logits": logits, "mlp": mlp1, "mlp2": mlp2}


def backward(params: dict, cfg: model.Config, inputs: np.ndarray, cache: dict, dlogits: np.ndarray) -> dict:
    """Gradients, with the two paths into E apart as "E_in" and "E_out" (see model.backward)."""
    U = model.unembedding(params, cfg)
    dU = dlogits.T @ cache["h"]
    dh = dlogits @ U
    dh1_mlp, grads2 = model.mlp_backward(dh, cache["mlp2"], params["W3"], params["W4"])
    dh1 = dh + dh1_mlp                          # h = h1 + mlp(h1)
    dx_mlp, grads = model.mlp_backward(dh1, cache["mlp"], params["W1"], params["W2"])
    dx = cfg.res * dh1 + dx_mlp                 # h1 = res * x + mlp(x)
    grads.update({BLOCK2[k]: v for k, v in grads2.items()})
    grads["E_in"] = model.scatter_rows(cfg.V, inputs, cfg.in_scale * dx)
    grads["E_out"] = dU
    return grads


def loss_and_grads(params: dict, cfg: model.Config, inputs, targets, paths=model.PATHS,
                   input_grad_scale: float = 1.0):
    """Loss (float) and grads {name: like params}, same contract as model.loss_and_grads."""
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    cache = forward(params, cfg, inputs)
    loss_value, dlogits = model.cross_entropy(cache["logits"], targets)
    grads = backward(params, cfg, inputs, cache, dlogits)
    return float(loss_value), model.route_E(grads, params, cfg, paths, input_grad_scale)
