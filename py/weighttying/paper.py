"""The paper's claims, at toy scale: in a tied model the output path dominates E's gradient early,
so the shared E ends up shaped like an untied model's output matrix U more than like its input E;
scaling the input-path gradient should shrink that bias; and the early block should add less.

All runs train on data.default_task (input and output meanings independent), so "like U" and
"like E" are different things. Similarity is linear CKA: invariant to rotations and scale of E.
"""
from __future__ import annotations

import numpy as np

from . import data, deep, model, stack, train


def linear_cka(X: np.ndarray, Y: np.ndarray) -> float:
    """Linear CKA of two representations (n, d1), (n, d2) of the same n tokens: 1 = equal up to rotation."""
    X, Y = X - X.mean(0), Y - Y.mean(0)
    return float(np.linalg.norm(X.T @ Y) ** 2 / (np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)))


def init_cka(seeds=range(3)) -> dict:
    """The similarity table at step 0, mean over seeds: linear CKA of the tied E at init with the untied model's
    U (an independent random matrix: the chance level) and with its E (the same draw: 1). {"with_U", "with_E"}"""
    pairs = [(model.init_params(model.Config(tied=True, seed=s)), model.init_params(model.Config(tied=False, seed=s)))
             for s in seeds]
    return {"with_U": float(np.mean([linear_cka(t["E"], u["U"]) for t, u in pairs])),
            "with_E": float(np.mean([linear_cka(t["E"], u["E"]) for t, u in pairs]))}


def path_norms(params: dict, cfg: model.Config, inputs, targets) -> tuple[float, float]:
    """Frobenius norms of the output-path and the input-path gradient into the tied E on one batch."""
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    cache = model.forward(params, cfg, inputs)  # one pass: backward keeps the two paths apart
    grads = model.backward(params, cfg, inputs, cache, model.cross_entropy(cache["logits"], targets)[1])
    return float(np.linalg.norm(grads["E_out"])), float(np.linalg.norm(grads["E_in"]))


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
    """Per input_grad_scale: mean CKA of tied E with the untied model's U and with its E, same seeds and data
    (every run of the table trained as one stack)."""
    task, seeds = data.default_task(), list(seeds)
    roles = [(False, 1.0)] + [(True, scale) for scale in scales]
    runs = [stack.Run(model.Config(tied=tied, seed=s), task, s, input_grad_scale=g) for tied, g in roles for s in seeds]
    final = stack.train(runs, steps=steps, lr=lr, chunk=steps)
    untied = final[:len(seeds)]
    rows = []
    for k, scale in enumerate(scales, start=1):
        tied = [p["E"] for p in final[k * len(seeds):(k + 1) * len(seeds)]]
        rows.append({"input_grad_scale": scale,
                     "cka_with_U": float(np.mean([linear_cka(E, u["U"]) for E, u in zip(tied, untied)])),
                     "cka_with_E": float(np.mean([linear_cka(E, u["E"]) for E, u in zip(tied, untied)]))})
    return rows


def lens(tied: bool, seeds=range(3), steps: int = 300, lr: float = 0.5) -> dict:
    """Logit lens on the two-block toy: how much of the loss drop the early block achieves, and its size."""
    task = data.default_task()
    drops, shares = zip(*(lens_one(trained(cfg, steps, lr, net=deep), cfg, task)
                          for cfg in (model.Config(tied=tied, seed=s) for s in seeds)))
    return {"tied": tied, "block1_loss_drop": float(np.mean(drops)), "block1_norm_share": float(np.mean(shares))}


def lens_one(params: dict, cfg: model.Config, task: np.ndarray) -> tuple[float, float]:
    """Logit lens of one trained two-block model: (block 1's share of the loss drop, its output norm share)."""
    cache = deep.forward(params, cfg, np.arange(cfg.V))
    U = model.unembedding(params, cfg)
    L0, L1, L2 = (-(task * model.log_softmax(h @ U.T)).sum(1).mean() for h in (cache["x"], *cache["hs"][1:]))
    drop = (L0 - L1) / (L0 - L2)  # share of the whole network's loss drop made by block 1
    share = np.linalg.norm(cache["outs"][0]) / np.linalg.norm(cache["h"])
    return float(drop), float(share)


# --- streaming: the three measurements at one input_grad_scale, in chunks a UI can interleave ---

EARLY = 100  # "early training": the ratio is averaged over steps 0..EARLY, as in grad_norms' default


def study_runs(scale: float, seeds: int) -> list[tuple[str, bool, float, object]]:
    """The training runs of one study, per seed: (role, tied, input_grad_scale, net)."""
    roles = [("tied", True, scale, model), ("untied", False, 1.0, model)]
    if scale != 1.0:  # the unscaled tied model is the reference the bias is compared with
        roles.append(("tied_ref", True, 1.0, model))
    roles += [("lens_tied", True, scale, deep), ("lens_untied", False, 1.0, deep)]
    return roles * seeds


def study_total(scale: float, steps: int, seeds: int) -> int:
    """Training steps a study takes in all (its progress bar's length)."""
    return steps * len(study_runs(scale, seeds))


def _mean_rows(rows: list[dict]) -> dict:
    """Column means of per-seed rows {key: float} (NaN stays NaN)."""
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def study_keys(scale: float, seed: int, seeds: int) -> list[tuple[str, int]]:
    """(role, seed) of every run of a study, one-block runs first: the units a study can be split into."""
    return [(role, s) for net in (model, deep) for s in range(seed, seed + seeds)
            for role, _, _, n in study_runs(scale, 1) if n is net]


def iter_trained(scale: float = 1.0, steps: int = 300, seed: int = 0, seeds: int = 3, lr: float = 0.5, keys=None,
                 probe: int = 256, chunk: int = 1, measure_chunk: int = 1):
    """The training of a study (or of its runs `keys`, a part of study_keys: no run depends on the others it
    trains with): yield {step, total, phase, loss[, norms]} every chunk, then {"final": {(role, seed): params},
    "norms": the raw path norms, or None when the first seed's tied run is not among keys}.

    The one-block runs train as one stack, then the two-block runs as another; "loss" is the stack's worst.
    On the first seed's tied run the output- and input-path gradient norms into E are measured on a fixed
    probe batch every max(1, steps // 300) steps ("norms"), which is also that stack's chunk; the
    two-block stack yields every `chunk` steps.
    """
    task = data.default_task()
    inputs, targets = data.sample_batch(task, probe, np.random.default_rng([seed, 1]))
    every = max(1, steps // 300)
    keys = study_keys(scale, seed, seeds) if keys is None else [tuple(k) for k in keys]
    total, done = steps * len(keys), 0
    norms = {"step": [], "output": [], "input": []}
    measured = ("tied", seed) in keys
    final = {}
    for net in (model, deep):
        roles = {role: (tied, s_in) for role, tied, s_in, n in study_runs(scale, 1) if n is net}
        mine = [k for k in keys if k[0] in roles]
        runs = [stack.Run(model.Config(tied=roles[role][0], seed=s), task, s, input_grad_scale=roles[role][1])
                for role, s in mine]
        if not runs:
            continue
        params = [net.init_params(r.cfg) for r in runs]
        measuring = net is model and measured
        at = mine.index(("tied", seed)) if measuring else 0
        if measuring:
            _measure(norms, 0, params[at], runs[at].cfg, inputs, targets)
        phase = f"{seeds} seed{'s' if seeds > 1 else ''} at once: " + "; ".join(
            PHASES[role].format(scale=f"{s_in:g}") for role, (_, s_in) in roles.items())
        for p in stack.iter_train(runs, params, steps, lr, chunk=every if measuring else chunk, net=net, every=steps):
            out = {"step": done + len(runs) * p["step"], "total": total, "phase": phase, "loss": float(np.max(p["loss"]))}
            if measuring:
                _measure(norms, p["step"], stack.member(p["params"], at, runs[at]), runs[at].cfg, inputs, targets)
                if len(norms["step"]) % measure_chunk and p["step"] != steps:
                    continue
                out["norms"] = _norms(norms, scale)
            yield out
        done += len(runs) * steps
        final.update({key: stack.member(p["params"], i, r) for i, (key, r) in enumerate(zip(mine, runs))})
    yield {"step": total, "total": total, "phase": "trained", "loss": 0.0, "final": final,
           "norms": norms if measured else None}


def iter_study(scale: float = 1.0, steps: int = 300, seed: int = 0, seeds: int = 3, lr: float = 0.5,
               probe: int = 256, chunk: int = 1, measure_chunk: int = 1):
    """Yield {step, total, phase, loss[, norms]} every chunk (iter_trained), then a last dict with "result"
    (see study). Seeds seed..seed+seeds-1."""
    for p in iter_trained(scale, steps, seed, seeds, lr, None, probe, chunk, measure_chunk):
        if "final" not in p:
            yield p
    yield {"step": p["total"], "total": p["total"], "phase": "done", "loss": 0.0,
           "result": study_result(p["final"], p["norms"], scale, seed, seeds)}


def study_result(final: dict, norms: dict, scale: float, seed: int, seeds: int) -> dict:
    """A study's result from its trained runs {(role, seed): params} and the raw path norms."""
    return _study_result(final, _norms(norms, scale), scale, range(seed, seed + seeds), data.default_task())


def _measure(norms: dict, step: int, params: dict, cfg: model.Config, inputs, targets) -> None:
    """Append the output- and input-path gradient norms into E at this step to norms (in place)."""
    for k, v in zip(("output", "input"), path_norms(params, cfg, inputs, targets)):
        norms[k].append(v)
    norms["step"].append(step)


PHASES = {"tied": "tied, input-gradient scale {scale}", "untied": "untied",
          "tied_ref": "tied, scale {scale} (reference)", "lens_tied": "two blocks, tied, scale {scale}",
          "lens_untied": "two blocks, untied"}


def _norms(norms: dict, scale: float) -> dict:
    """Arrays of the path norms so far, the ratio output / (scale * input) and its early mean."""
    step, out, inp = (np.asarray(norms[k], float) for k in ("step", "output", "input"))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = out / (scale * inp)  # what reaches E per step: the input path is multiplied by scale
    early = step <= EARLY
    return {"step": step, "output": out, "input": inp, "ratio": ratio, "mean_ratio": float(np.mean(ratio[early]))}


def _study_result(final: dict, norms: dict, scale: float, seeds, task: np.ndarray) -> dict:
    """Alignment and lens numbers from the trained runs {(role, seed): params}."""
    align, lens_rows = [], []
    for s in seeds:
        U, E = final[("untied", s)]["U"], final[("untied", s)]["E"]
        ref = final[("tied_ref", s)] if ("tied_ref", s) in final else final[("tied", s)]
        Et, Er = final[("tied", s)]["E"], ref["E"]
        align.append({"cka_with_U": linear_cka(Et, U), "cka_with_E": linear_cka(Et, E),
                      "ref_cka_with_U": linear_cka(Er, U),
                      "ref_cka_with_E": linear_cka(Er, E)})
        tied = lens_one(final[("lens_tied", s)], model.Config(tied=True, seed=s), task)
        untied = lens_one(final[("lens_untied", s)], model.Config(tied=False, seed=s), task)
        lens_rows.append({"tied_loss_drop": tied[0], "untied_loss_drop": untied[0],
                          "tied_norm_share": tied[1], "untied_norm_share": untied[1]})
    return {"scale": scale, "norms": norms, "align": _mean_rows(align), "align_seeds": align,
            "lens": _mean_rows(lens_rows), "lens_seeds": lens_rows}


def study(scale: float = 1.0, steps: int = 300, seed: int = 0, seeds: int = 3, lr: float = 0.5) -> dict:
    """iter_study run to the end: {scale, norms, align (means), align_seeds, lens (means), lens_seeds}."""
    for p in iter_study(scale, steps, seed, seeds, lr):
        pass
    return p["result"]
