"""Next-token tasks: a V x V transition matrix P, batches drawn from it, and its exact entropy.

A task is made from a teacher with no fixed points (P[t, t] = 0: a token never follows itself),
so any probability a model puts on repeating the token it just read comes from the architecture.
"""
from __future__ import annotations

import numpy as np

from . import model, recipes

# The task's free choices by default: the package's recipe (recipes.BASE; each experiment's own in recipes).
RANK, BETA = recipes.BASE.rank, recipes.BASE.beta


def unit_rows(rng: np.random.Generator, V: int, rank: int) -> np.ndarray:
    """V random unit vectors in R^rank, (V, rank)."""
    X = rng.standard_normal((V, rank))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def markov_task(V: int = 64, aligned: bool = True, rank: int = RANK, beta: float = BETA, seed: int = 0) -> np.ndarray:
    """P (V, V), rows summing to 1: P[i] = softmax(beta * e_i . u_j) over j != i.

    Aligned: u = e, a token's meaning as input and as output coincide (what tying assumes).
    Misaligned: u drawn independently of e, so they do not.
    rank sets how many directions the meanings vary in, beta how sharp a token's successors are (the entropy).
    """
    rng = np.random.default_rng(seed)
    e = unit_rows(rng, V, rank)
    u = e if aligned else unit_rows(rng, V, rank)
    logits = beta * e @ u.T
    np.fill_diagonal(logits, -np.inf)
    P = np.exp(logits - logits.max(1, keepdims=True))
    return P / P.sum(1, keepdims=True)


def default_task(V: int = 64, **task_kw) -> np.ndarray:
    """The misaligned task (V, V): the data give the just-read token no special place as an output."""
    return markov_task(V, aligned=False, **task_kw)


def entropy(P: np.ndarray) -> float:
    """Exact entropy (nats) of the next token given the current one, current uniform over V: a float."""
    return float(-(P * np.log(np.where(P > 0, P, 1.0))).sum(1).mean())  # 0 log 0 = 0


def sample_batch(P: np.ndarray, B: int, rng: np.random.Generator):
    """B current tokens uniform over V and their successors drawn from P: (inputs (B,), targets (B,))."""
    inputs = rng.integers(0, len(P), B)
    cdf = np.cumsum(P[inputs], axis=1)
    targets = (rng.random(B)[:, None] > cdf).sum(1)
    return inputs, np.minimum(targets, len(P) - 1)


def sample_batches(cdf: np.ndarray, B: int, rngs: list, stream: np.ndarray):
    """Batches of S stacked runs whose tasks' row-wise cumsums are cdf (S, V, V), run i drawing from
    rngs[stream[i]] exactly as sample_batch draws from it (runs sharing a stream share inputs and
    uniforms; a row's cumsum is the same in a batch or alone, so the targets are sample_batch's): (S, B), (S, B)."""
    V = cdf.shape[-1]
    draws = [(rng.integers(0, V, B), rng.random(B)) for rng in rngs]  # one draw per stream per step
    inputs, u = (np.stack([d[k] for d in draws])[stream] for k in (0, 1))
    rows = cdf.reshape(-1, V)[model.stacked_rows(inputs, V)]
    return inputs, np.minimum((u[..., None] > rows).sum(-1), V - 1)


def expected_losses(params: dict, cfg: model.Config, P: np.ndarray, net=model) -> np.ndarray:
    """expected_loss of S stacked models (params (S, ...)) on their tasks P (S, V, V): (S,)."""
    logq = model.log_softmax(net.forward(params, cfg, np.arange(P.shape[-1]))["logits"])
    return -(P * logq).sum(-1).mean(-1)


def expected_loss(params: dict, cfg: model.Config, P: np.ndarray, net=model) -> float:
    """Exact expected cross-entropy of net on task P, every current token weighted 1/V: a float."""
    logq = model.log_softmax(net.forward(params, cfg, np.arange(len(P)))["logits"])
    return float(-(P * logq).sum(1).mean())
