"""Dropping a gradient path into the tied E, and the `+=` that drops repeated tokens.

Neither bug produces garbage: each is exactly right on some rows and wrong on others, which is
why a gradient check that samples a few entries, or a loss curve, can miss it.
"""
from __future__ import annotations

import math

import numpy as np

from . import data, gradcheck, model, stack, train

TOL = 1e-4  # a row is wrong when its max relative error against central differences exceeds this

SETTINGS = {"both paths": ("input", "output"), "output path only": ("output",), "input path only": ("input",)}
SLUG = {"both paths": "both", "output path only": "output_only", "input path only": "input_only"}  # in report ids
NEITHER = "neither path"  # both toggles off: dE is zero, not a setting the page tabulates


def paths_of(input: bool, output: bool) -> tuple[str, ...]:
    """The kept paths into E for two toggles, e.g. (True, False) -> ("input",)."""
    return tuple(p for p, on in (("input", input), ("output", output)) if on)


def setting_of(paths) -> str:
    """The page's name for a set of kept paths ("both paths", ..., or NEITHER)."""
    return next((name for name, p in SETTINGS.items() if set(p) == set(paths)), NEITHER)


def batch(V: int = 64, distinct: int = 8, B: int = 32, seed: int = 0):
    """B inputs drawn from `distinct` tokens (every one of them at least once), targets uniform: (B,), (B,)."""
    rng = np.random.default_rng(seed)
    tokens = rng.choice(V, distinct, replace=False)
    inputs = rng.permutation(np.concatenate([tokens, rng.choice(tokens, B - distinct)]))
    return inputs, rng.integers(0, V, B)


def wrong_rows(params: dict, cfg: model.Config, inputs, targets, paths, numeric: dict) -> dict:
    """Rows of dE (and entries of every parameter) under `paths` that disagree with the numeric gradient."""
    _, analytic = model.loss_and_grads(params, cfg, inputs, targets, paths=paths)
    errors = {name: gradcheck.rel_error(analytic[name], numeric[name]) for name in params}
    wrong = int((errors["E"].max(axis=1) > TOL).sum())
    return {"paths": list(paths), "wrong_rows": wrong, "right_rows": cfg.V - wrong, "right_share": 1 - wrong / cfg.V,
            "wrong_entries": sum(int((e > TOL).sum()) for e in errors.values()),
            "entries": sum(P.size for P in params.values())}


def wrong_rows_table(cfg: model.Config = model.Config(), distinct: int = 8, B: int = 32, seed: int = 0) -> list[dict]:
    """The page's table: per setting, rows of the tied dE wrong / right against central differences."""
    inputs, targets = batch(cfg.V, distinct, B, seed)
    params = model.init_params(cfg)
    numeric = gradcheck.numerical_grads(params, cfg, inputs, targets)
    return [{"setting": name, **wrong_rows(params, cfg, inputs, targets, paths, numeric)}
            for name, paths in SETTINGS.items()]


def miss_probability(k: int, wrong: int, entries: int) -> float:
    """Chance that k entries sampled without replacement from `entries` include none of the `wrong` ones."""
    if k > entries - wrong:
        return 0.0
    return math.comb(entries - wrong, k) / math.comb(entries, k)


def miss_simulated(k: int, wrong: int, entries: int, trials: int = 100_000, seed: int = 0) -> float:
    """The same chance, by drawing `trials` random checks (hypergeometric counts of wrong entries hit)."""
    hits = np.random.default_rng(seed).hypergeometric(wrong, entries - wrong, k, size=trials)
    return float((hits == 0).mean())


CURVES = {"both paths": model.PATHS, "output path only": ("output",)}  # the two runs of the loss curves


def training_curves(cfg: model.Config = model.Config(), task=None, steps: int = 600, lr: float = train.LR,
                    seed: int = 0, chunk: int = 50, batch: int = train.BATCH) -> dict:
    """Exact expected loss over training (data.default_task if None), correct vs output-path only: {setting: history}."""
    points = [p["points"] for p in iter_training_curves(cfg, task, steps, lr, seed, chunk, batch)]
    return {name: [p[name] for p in points] for name in CURVES}


def iter_training_curves(cfg: model.Config = model.Config(), task=None, steps: int = 600, lr: float = train.LR,
                         seed: int = 0, chunk: int = 25, batch: int = train.BATCH, names=tuple(CURVES)):
    """training_curves() as it trains: yield {"step", "loss" (worst eval), "points": {setting: {step, loss, eval}}}
    for the settings `names` (one alone gives its numbers in the pair, so the two can train in different workers).

    The correct and the output-path-only run train as one stack from the same init and batches, so a UI
    can draw both curves live and stop them between chunks; the points are training_curves()'s histories.
    """
    task = data.default_task(cfg.V) if task is None else task
    params = model.init_params(cfg)
    runs = [stack.Run(cfg, task, seed, CURVES[name]) for name in names]
    first = data.expected_loss(params, cfg, task)
    yield {"step": 0, "loss": first, "points": {name: {"step": 0, "loss": float("nan"), "eval": first} for name in names}}
    for p in stack.iter_train(runs, [params] * len(runs), steps=steps, lr=lr, batch=batch, chunk=chunk):
        pts = {name: {"step": p["step"], "loss": float(p["loss"][i]), "eval": float(p["eval"][i])}
               for i, name in enumerate(names)}
        worst = float(np.max(p["eval"])) if np.isfinite(p["eval"]).all() else float("nan")
        yield {"step": p["step"], "loss": worst, "points": pts}


def scatter_buffered(V: int, inputs: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """The bug: dE[inputs] += dx is one buffered write per index, so a repeated token keeps one dx."""
    dE = np.zeros((V, dx.shape[-1]))
    dE[inputs] += dx
    return dE


def fancy_index_trap(cfg: model.Config = model.Config(), distinct: int = 8, B: int = 32, seed: int = 0) -> dict:
    """Rows of dE that `dE[t] += dx` gets wrong vs np.add.at, and how many tokens the batch repeats."""
    inputs, targets = batch(cfg.V, distinct, B, seed)
    params = model.init_params(cfg)
    cache = model.forward(params, cfg, inputs)
    _, dlogits = model.cross_entropy(cache["logits"], targets)
    right = model.backward(params, cfg, inputs, cache, dlogits)["E_in"]
    wrong = model.backward(params, cfg, inputs, cache, dlogits, scatter=scatter_buffered)["E_in"]
    differs = np.abs(right - wrong).max(axis=1) > TOL * np.abs(right).max()
    tokens, counts = np.unique(inputs, return_counts=True)
    return {"wrong_rows": int(differs.sum()), "repeated_tokens": int((counts > 1).sum()),
            "distinct_tokens": len(tokens), "wrong_tokens": np.flatnonzero(differs).tolist(),
            "repeated": tokens[counts > 1].tolist()}
