"""The toy language model, forward and hand-written backward, tied or untied.

    x      = in_scale * E[t]                    (B, d)   input path: E read by row
    a      = x @ W1 + b1                        (B, H)
    z      = tanh(a)                            (B, H)
    h      = res * x + z @ W2 + b2              (B, d)   the residual stream
    logits = h @ E.T  (tied)  or  h @ U.T       (B, V)   output path: E read whole
    loss   = mean cross-entropy(logits, next token)

Every function also accepts parameters with extra leading "stack" axes (..., V, d): the gradient
check and the init sweep evaluate many perturbed or rescaled copies in one batched pass on shared
token ids (B,); training stacks (stack.py) give each of S models its own ids, inputs and targets (S, B).
One model is the same code on 2-D arrays: the stack axis is never a loop.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PATHS = ("input", "output")


@dataclass(frozen=True)
class Config:
    """Shape and init of the toy: V tokens, width d, one tanh MLP of width hidden."""
    V: int = 64
    d: int = 16
    hidden: int = 64
    tied: bool = True
    res: float = 1.0
    in_scale: float = 1.0
    sigma: float = 0.25
    seed: int = 0

    def __post_init__(self):
        """Reject values the model cannot run with, naming the field and the value."""
        for name, lo in (("V", 2), ("d", 1), ("hidden", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
                raise ValueError(f"Config.{name} must be an integer >= {lo}, got {value!r}")
        for name in ("sigma", "in_scale"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"Config.{name} must be finite and >= 0, got {value!r}")
        if not math.isfinite(self.res):
            raise ValueError(f"Config.res must be finite, got {self.res!r}")


def init_mlp(rng: np.random.Generator, d: int, hidden: int) -> dict[str, np.ndarray]:
    """One MLP block, LeCun init: W1 (d, H) ~ N(0, 1/d), b1 (H,) = 0, W2 (H, d) ~ N(0, 1/H), b2 (d,) = 0."""
    # Each layer keeps the variance of its input, so the MLP's output is the size of x where tanh is
    # linear and saturates beyond: the logit scale grows slower than sigma^2 (the page's x3.80).
    return {"W1": rng.standard_normal((d, hidden)) / math.sqrt(d), "b1": np.zeros(hidden),
            "W2": rng.standard_normal((hidden, d)) / math.sqrt(hidden), "b2": np.zeros(d)}


def init_params(cfg: Config) -> dict[str, np.ndarray]:
    """E (V, d) [and U (V, d) untied] ~ N(0, sigma^2), then the MLP of init_mlp."""
    rng = np.random.default_rng(cfg.seed)
    params = {"E": cfg.sigma * rng.standard_normal((cfg.V, cfg.d))}
    if not cfg.tied:
        params["U"] = cfg.sigma * rng.standard_normal((cfg.V, cfg.d))
    return {**params, **init_mlp(rng, cfg.d, cfg.hidden)}


def unembedding(params: dict, cfg: Config) -> np.ndarray:
    """The matrix the logits are read from: E when tied, U when untied. (..., V, d)"""
    return params["E"] if cfg.tied else params["U"]


def mlp(x, W1, b1, W2, b2):
    """tanh(x @ W1 + b1) @ W2 + b2 for x (..., B, d); returns (out (..., B, d), cache)."""
    a = x @ W1 + b1[..., None, :]
    z = np.tanh(a)
    return z @ W2 + b2[..., None, :], (x, a, z)


def T(A: np.ndarray) -> np.ndarray:
    """The transpose of every matrix in a stack (..., m, n) -> (..., n, m); A.T for one matrix."""
    return np.swapaxes(A, -1, -2)


def mlp_backward(dout, cache, W1, W2):
    """Backward of mlp for dout (..., B, d): returns (dx (..., B, d), grads of W1, b1, W2, b2)."""
    x, a, z = cache
    dW2 = T(z) @ dout
    db2 = dout.sum(-2)
    slope = z * z
    np.subtract(1.0, slope, out=slope)         # tanh'(a) = 1 - tanh(a)^2
    da = np.multiply(dout @ T(W2), slope, out=slope)
    dW1 = T(x) @ da
    db1 = da.sum(-2)
    return da @ T(W1), {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}


def stacked_rows(inputs: np.ndarray, V: int) -> np.ndarray:
    """Token ids (S, B) of S stacked models as rows of their stacked (S * V, ...) tables: (S, B)."""
    return inputs + V * np.arange(len(inputs))[:, None]


def embed(E: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """The rows of E the ids read: E (..., V, d) with shared ids (B,), or E (S, V, d) with ids (S, B): (..., B, d)."""
    inputs = np.asarray(inputs)
    if inputs.ndim == 1:
        return E[..., inputs, :]
    return E.reshape(-1, E.shape[-1])[stacked_rows(inputs, E.shape[-2])]


def forward(params: dict, cfg: Config, inputs: np.ndarray) -> dict:
    """Logits (..., B, V) for token ids inputs (B,) or (S, B), with every intermediate the backward needs."""
    x = cfg.in_scale * embed(params["E"], inputs)
    out, mlp_cache = mlp(x, params["W1"], params["b1"], params["W2"], params["b2"])
    h = cfg.res * x + out
    logits = h @ T(unembedding(params, cfg))
    return {"x": x, "h": h, "logits": logits, "mlp": mlp_cache}


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Log-probabilities over the last axis, (..., V); the max is subtracted so exp cannot overflow."""
    shifted = logits - logits.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def at_targets(targets: np.ndarray) -> tuple:
    """Index of every target's entry in logits (..., B, V): shared targets (B,), or one row per stacked model (S, B)."""
    rows = np.arange(targets.shape[-1])
    return (..., rows, targets) if targets.ndim == 1 else (np.arange(len(targets))[:, None], rows, targets)


def cross_entropy(logits: np.ndarray, targets: np.ndarray):
    """Mean cross-entropy of logits (..., B, V) against targets (B,) or (S, B); returns (loss (...), dlogits)."""
    # log_softmax spelled out: the softmax itself is dlogits, so exp runs once (the training hot path)
    # in place where a temporary is not read again: a stack's (S, B, V) arrays are large enough that
    # every fresh one costs more than the arithmetic on it
    targets = np.asarray(targets)
    B, at = targets.shape[-1], at_targets(targets)
    shifted = logits - logits.max(-1, keepdims=True)
    picked = shifted[at]
    e = np.exp(shifted, out=shifted)
    s = e.sum(-1, keepdims=True)
    loss = (np.log(s[..., 0]) - picked).sum(-1) / B
    dlogits = np.divide(e, B * s, out=e)
    dlogits[at] -= 1.0 / B
    return loss, dlogits


def scatter_rows(V: int, inputs: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """dE (V, d) from per-token dx (B, d), or (S, V, d) from (S, B, d): a token read twice gets both contributions."""
    # np.add.at(dE, inputs, dx) as one bincount over flat (row, column) bins: the same additions in
    # the same order, a few times faster (intp: bincount's index type, 32-bit in Pyodide)
    d, stack = dx.shape[-1], inputs.shape[:-1]  # stack: () for one model, (S,) for S
    rows = stacked_rows(inputs, V) if stack else inputs
    bins = (np.asarray(rows, dtype=np.intp)[..., None] * d + np.arange(d)).ravel()
    return np.bincount(bins, dx.ravel(), int(np.prod(stack)) * V * d).reshape(*stack, V, d)


def backward(params: dict, cfg: Config, inputs: np.ndarray, cache: dict, dlogits: np.ndarray,
             scatter=scatter_rows) -> dict:
    """Gradients of the loss with the two paths into E kept apart: "E_out" (V, d) and "E_in" (V, d)."""
    U = unembedding(params, cfg)
    dU = T(dlogits) @ cache["h"]                # logits = h @ U.T: dense, every row of U
    dh = dlogits @ U
    dx_mlp, grads = mlp_backward(dh, cache["mlp"], params["W1"], params["W2"])
    dx = cfg.res * dh + dx_mlp                  # x feeds h directly and through the MLP
    grads["E_in"] = scatter(cfg.V, inputs, cfg.in_scale * dx)  # x = in_scale * E[t]: sparse
    grads["E_out"] = dU
    return grads


def route_E(grads: dict, params: dict, cfg: Config, paths=PATHS, input_grad_scale: float = 1.0) -> dict:
    """Replace "E_in"/"E_out" by the gradient of E (and U untied) with only `paths` kept; a new dict."""
    unknown = set(paths) - set(PATHS)
    if unknown:
        raise ValueError(f"paths must be drawn from {PATHS}, got {sorted(unknown)}")
    grads = dict(grads)
    dE_in, dE_out = grads.pop("E_in"), grads.pop("E_out")
    dE = input_grad_scale * dE_in if "input" in paths else np.zeros_like(params["E"])
    if cfg.tied and "output" in paths:
        dE = dE + dE_out  # E appears twice in the graph: its gradient sums both appearances
    if not cfg.tied:
        grads["U"] = dE_out
    grads["E"] = dE
    return grads


def loss_and_grads(params: dict, cfg: Config, inputs, targets, paths=PATHS, input_grad_scale: float = 1.0):
    """Loss (float) and grads {name: array like params}; paths picks which paths into E are kept."""
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    cache = forward(params, cfg, inputs)
    loss_value, dlogits = cross_entropy(cache["logits"], targets)
    grads = backward(params, cfg, inputs, cache, dlogits)
    return float(loss_value), route_E(grads, params, cfg, paths, input_grad_scale)
