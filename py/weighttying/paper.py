"""The paper's claims, at toy scale: in a tied model the output path dominates E's gradient early,
so the shared E ends up shaped like an untied model's output matrix U more than like its input E;
scaling the input-path gradient should shrink that bias; and the early block should add less.

All runs train on data.default_task (input and output meanings independent), so "like U" and
"like E" are different things. Similarity is linear CKA: invariant to rotations and scale of E.
"""
from __future__ import annotations

import numpy as np

from . import data, model, train, twoblock


def linear_cka(X: np.ndarray, Y: np.ndarray) -> float:
    """Linear CKA of two representations (n, d1), (n, d2) of the same n tokens: 1 = equal up to rotation."""
    X, Y = X - X.mean(0), Y - Y.mean(0)
    return float(np.linalg.norm(X.T @ Y) ** 2 / (np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)))


def path_norms(params: dict, cfg: model.Config, inputs, targets) -> tuple[float, float]:
    """Frobenius norms of the output-path and the input-path gradient into the tied E on one batch."""
    _, out = model.loss_and_grads(params, cfg, inputs, targets, paths=("output",))
    _, inp = model.loss_and_grads(params, cfg, inputs, targets, paths=("input",))
    return float(np.linalg.norm(out["E"])), float(np.linalg.norm(inp["E"]))


def grad_norms(cfg: model.Config = model.Config(), steps: int = 100, lr: float = 0.5, seed: int = 0,
               probe: int = 256) -> dict:
    """Output- and input-path gradient norms into tied E at every early step, on a fixed probe batch."""
    task = data.default_task(cfg.V)
    inputs, targets = data.sample_batch(task, probe, np.random.default_rng([seed, 1]))
    params = model.init_params(cfg)
    trajectory = [params] + [p["params"] for p in train.iter_train(params, cfg, task, steps, lr, seed=seed, chunk=1)]
    out, inp = np.array([path_norms(p, cfg, inputs, targets) for p in trajectory]).T
    return {"step": np.arange(steps + 1), "output": out, "input": inp, "ratio": out / inp,
            "mean_ratio": float(np.mean(out / inp))}


def trained(cfg: model.Config, steps: int, lr: float, input_grad_scale: float = 1.0, net=model) -> dict:
    """Parameters after training cfg's model on data.default_task with batches seeded by cfg.seed."""
    task = data.default_task(cfg.V)
    return train.train(net.init_params(cfg), cfg, task, net=net, steps=steps, lr=lr, seed=cfg.seed, chunk=steps,
                       input_grad_scale=input_grad_scale)["params"]


def alignment(scales=(1.0, 4.0, 16.0), seeds=range(3), steps: int = 300, lr: float = 0.5) -> list[dict]:
    """Per input_grad_scale: mean CKA of tied E with the untied model's U and with its E, same seeds and data."""
    untied = [trained(model.Config(tied=False, seed=s), steps, lr) for s in seeds]
    rows = []
    for scale in scales:
        tied = [trained(model.Config(seed=s), steps, lr, scale)["E"] for s in seeds]
        rows.append({"input_grad_scale": scale,
                     "cka_with_U": float(np.mean([linear_cka(E, u["U"]) for E, u in zip(tied, untied)])),
                     "cka_with_E": float(np.mean([linear_cka(E, u["E"]) for E, u in zip(tied, untied)]))})
    return rows


def lens(tied: bool, seeds=range(3), steps: int = 300, lr: float = 0.5) -> dict:
    """Logit lens on the two-block toy: how much of the loss drop the early block achieves, and its size."""
    task = data.default_task()
    drops, shares = [], []
    for s in seeds:
        cfg = model.Config(tied=tied, seed=s)
        params = trained(cfg, steps, lr, net=twoblock)
        cache = twoblock.forward(params, cfg, np.arange(cfg.V))
        U = model.unembedding(params, cfg)
        L0, L1, L2 = (-(task * model.log_softmax(cache[k] @ U.T)).sum(1).mean() for k in ("x", "h1", "h"))
        drops.append((L0 - L1) / (L0 - L2))  # share of the whole network's loss drop made by block 1
        shares.append(np.linalg.norm(cache["h1"] - cfg.res * cache["x"]) / np.linalg.norm(cache["h"]))
    return {"tied": tied, "block1_loss_drop": float(np.mean(drops)), "block1_norm_share": float(np.mean(shares))}
