"""A tuned lens (Belrose et al. 2023) on the deep toy: what each block contributes, tied vs untied.

The lens at layer l reads the residual stream h_l through an affine translator and the model's own
unembedding: logits_l = (h_l @ A_l + c_l) @ U.T. The translator is trained to minimise the KL divergence
from the model's final next-token distribution, KL(p_L || q_l); A = I, c = 0 is the logit lens.
The model sees one token at a time, so its inputs are the V tokens: translators are fitted on half of
them and every KL is reported on the other half (held out).

The paper's claim: tied, the early blocks contribute less. Two measures per block l: its output's
size relative to the final stream, |h_l - h_{l-1}| / |h_L|, and its share of the tuned lens's KL drop,
(KL_{l-1} - KL_l) / (KL_0 - KL_L), with KL_L = 0 (at the last layer the lens is the model).
"""
from __future__ import annotations

import numpy as np

from . import data, deep, model, stack

BLOCKS = 4
EARLY = 2          # blocks 1..EARLY are the "early" ones
STEPS = 600        # training steps of each deep toy
LR = 0.5           # four blocks in a row diverge at the recipe's train.LR (1.0): half the step
FIT_STEPS = 300    # Adam steps fitting the translators
FIT_LR = 0.05
SEEDS = range(5)
MEASURES = {"norm_share": "early blocks' output norm / final residual norm",
            "tuned_kl_share": "early blocks' share of the tuned lens's KL drop",
            "logit_kl_share": "early blocks' share of the logit lens's KL drop (baseline)"}


def kl(logp: np.ndarray, logq: np.ndarray) -> np.ndarray:
    """Mean over tokens of KL(p || q) from log-probabilities (..., n, V): (...)."""
    return (np.exp(logp) * (logp - logq)).sum(-1).mean(-1)


def lens_logq(hs: np.ndarray, A: np.ndarray, c: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Log-probabilities of the lens at every layer: hs (L, n, d), A (L, d, d), c (L, d), U (V, d) -> (L, n, V)."""
    return model.log_softmax((hs @ A + c[:, None, :]) @ U.T)


def translator_grads(hs: np.ndarray, logp: np.ndarray, U: np.ndarray, A: np.ndarray, c: np.ndarray):
    """kl(logp, lens_logq) per layer (L,) and its gradients dA (L, d, d), dc (L, d): the lens is affine in (A, c)."""
    logq = lens_logq(hs, A, c, U)
    dlogits = (np.exp(logq) - np.exp(logp)) / hs.shape[1]   # d KL / d lens logits, (L, n, V)
    dg = dlogits @ U                                       # lens logits = g @ U.T, g = h @ A + c
    return kl(logp, logq), np.swapaxes(hs, -1, -2) @ dg, dg.sum(1)


def fit(hs: np.ndarray, logp: np.ndarray, U: np.ndarray, steps: int = FIT_STEPS, lr: float = FIT_LR):
    """Translators A (L, d, d), c (L, d) minimising kl(logp, lens_logq) on hs (L, n, d), by Adam from the identity."""
    L, n, d = hs.shape
    theta = [np.broadcast_to(np.eye(d), (L, d, d)).copy(), np.zeros((L, d))]
    m, v = [np.zeros_like(t) for t in theta], [np.zeros_like(t) for t in theta]
    for step in range(1, steps + 1):
        _, *grads = translator_grads(hs, logp, U, *theta)
        for t, g, m_, v_ in zip(theta, grads, m, v):  # Adam, beta1 0.9, beta2 0.999: every layer's scale alike
            m_ += 0.1 * (g - m_)
            v_ += 0.001 * (g * g - v_)
            t -= lr * (m_ / (1 - 0.9 ** step)) / (np.sqrt(v_ / (1 - 0.999 ** step)) + 1e-8)
    return theta


def split(V: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Tokens to fit the translators on and tokens held out: a seeded half each, (V // 2,), (V - V // 2,)."""
    order = np.random.default_rng([seed, 7]).permutation(V)
    return np.sort(order[: V // 2]), np.sort(order[V // 2:])


def trained(tied: bool, seed: int, blocks: int = BLOCKS, steps: int = STEPS) -> tuple[model.Config, dict]:
    """(cfg, params) of the deep toy after training on data.default_task (the package's task and batch, lr LR)."""
    return trained_stack([(tied, seed)], blocks, steps)[0]


def trained_stack(models: list[tuple[bool, int]], blocks: int = BLOCKS, steps: int = STEPS) -> list[tuple]:
    """trained() of every (tied, seed), all trained as one stack: [(cfg, params)]."""
    runs = [stack.Run(model.Config(tied=tied, seed=seed), data.default_task(), seed) for tied, seed in models]
    final = stack.train(runs, [deep.init_params(r.cfg, blocks) for r in runs], steps=steps, lr=LR, chunk=steps, net=deep)
    return [(r.cfg, p) for r, p in zip(runs, final)]


def measure(cfg: model.Config, params: dict, seed: int) -> dict:
    """One trained model's lens: per block norm share, tuned and logit (identity) lens KL per layer (held out)."""
    cache = deep.forward(params, cfg, np.arange(cfg.V))
    U = model.unembedding(params, cfg)
    hs = np.stack(cache["hs"][:-1])                                # layers 0..L-1: the last is the model
    logp = model.log_softmax(cache["logits"])
    fit_on, held = split(cfg.V, seed)
    A, c = fit(hs[:, fit_on], logp[fit_on], U)
    eye = (np.broadcast_to(np.eye(cfg.d), A.shape), np.zeros_like(c))
    tuned, logit = (np.append(kl(logp[held], lens_logq(hs[:, held], *t, U)), 0.0) for t in ((A, c), eye))
    norms = np.linalg.norm(np.stack(cache["outs"]), axis=(1, 2)) / np.linalg.norm(cache["h"])
    return {"norm": norms, "tuned_kl": tuned, "logit_kl": logit}


def early(m: dict) -> dict:
    """The three early-block measures of one model (see MEASURES) from measure()'s per-layer arrays."""
    def share(k):
        return float((m[k][0] - m[k][EARLY]) / (m[k][0] - m[k][-1]))
    return {"norm_share": float(m["norm"][:EARLY].sum()), "tuned_kl_share": share("tuned_kl"),
            "logit_kl_share": share("logit_kl")}


def verdict(diffs: list[float]) -> tuple[float, float, str]:
    """(mean, SE, verdict) of paired tied - untied differences: the claim holds when the mean is below -2 SE."""
    d = np.asarray(diffs)
    mean, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    if len(d) < 2:
        return mean, se, "n/a (one seed: no spread to judge it by)"
    if mean < -2 * se:
        return mean, se, "agrees (tied lower by more than 2 SE)"
    if mean > 2 * se:
        return mean, se, "differs (tied higher by more than 2 SE)"
    return mean, se, "not resolved (|tied - untied| <= 2 SE)"


def study(seeds=SEEDS, blocks: int = BLOCKS, steps: int = STEPS) -> dict:
    """Tied vs untied over seeds: per-seed measure() and early(), per-layer means ("layers": {name: {norm,
    tuned_kl, logit_kl}: lists}), means, paired SE and verdict per measure. Plain data (lists and floats)."""
    seeds = list(seeds)
    measured = [measure(cfg, p, cfg.seed) for cfg, p in trained_stack([(t, s) for t in (True, False) for s in seeds],
                                                                         blocks, steps)]
    runs = {"tied": measured[:len(seeds)], "untied": measured[len(seeds):]}
    per = {name: [early(m) for m in ms] for name, ms in runs.items()}
    layers = {name: {k: np.mean([m[k] for m in ms], axis=0).tolist() for k in ms[0]} for name, ms in runs.items()}
    out = {"seeds": len(per["tied"]), "blocks": blocks, "layers": layers, "per_seed": per, "se": {}, "verdict": {}}
    for name in per:
        out[name] = {k: float(np.mean([p[k] for p in per[name]])) for k in MEASURES}
    for k in MEASURES:
        _, out["se"][k], out["verdict"][k] = verdict([t[k] - u[k] for t, u in zip(per["tied"], per["untied"])])
    return out
