"""Plain SGD on a Markov task, as a generator so a UI can stream progress and stop early."""
from __future__ import annotations

import numpy as np

from . import data, model, recipes

# The training recipe's free choices by default: the package's recipe (recipes.BASE; each experiment's own in recipes).
LR, BATCH = recipes.BASE.lr, recipes.BASE.batch


def sgd(params: dict, grads: dict, lr: float) -> dict:
    """params - lr * grads, as new arrays (the caller's params are left as they were)."""
    return {name: P - lr * grads[name] for name, P in params.items()}


def iter_train(params: dict, cfg: model.Config, task: np.ndarray, steps: int = 600, lr: float = LR,
               batch: int = BATCH, seed: int = 0, chunk: int = 50, paths=model.PATHS, input_grad_scale: float = 1.0,
               net=model):
    """Yield {step, loss (mean batch loss of the chunk), eval (exact expected loss), params} every chunk.

    net is any module with forward and loss_and_grads shaped like model's (e.g. deep).
    """
    rng = np.random.default_rng(seed)
    losses = []
    for step in range(1, steps + 1):
        inputs, targets = data.sample_batch(task, batch, rng)
        loss, grads = net.loss_and_grads(params, cfg, inputs, targets, paths, input_grad_scale)
        params = sgd(params, grads, lr)
        losses.append(loss)
        if step % chunk == 0 or step == steps:
            yield {"step": step, "loss": float(np.mean(losses)), "eval": data.expected_loss(params, cfg, task, net),
                   "params": params}
            losses = []


def train(params: dict, cfg: model.Config, task: np.ndarray, net=model, **kw) -> dict:
    """Run iter_train to the end: {"history": [{step, loss, eval}], "params": final params}."""
    history = [{"step": 0, "loss": float("nan"), "eval": data.expected_loss(params, cfg, task, net)}]
    for point in iter_train(params, cfg, task, net=net, **kw):
        params = point["params"]
        history.append({k: point[k] for k in ("step", "loss", "eval")})
    return {"history": history, "params": params}
