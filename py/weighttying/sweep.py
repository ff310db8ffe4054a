"""Initialisation sweep: the residual-stream scale and the logit scale of a tied model at init.

One draw of the init at sigma = 1 is reused for every grid cell and rescaled, so cells differ only
in (sigma, in_scale), and the whole grid goes through one broadcast forward pass (in chunks).
The residual-stream scale is the RMS of what the embedding writes into the stream, x = in_scale * E[t]
(exactly linear in sigma: the page's x2.00); the logit scale is the RMS of logits = h @ E.T. Tied,
sigma enters twice, so the logits grow like sigma squared while tanh is linear, and slower once it
saturates (the page's x3.80). "stream" is the RMS of h itself, reported beside them.
"""
from __future__ import annotations

import numpy as np

from . import model

# Coarse: one point per decade. Fine: 40 per decade over the decade box that the coarse grid's two
# nearest misses, (0.1, 10) and (1, 1), straddle.
GRIDS = {
    "coarse": {"sigma": np.logspace(-2, 2, 5), "in_scale": np.logspace(-2, 2, 5)},
    "fine": {"sigma": np.logspace(-1, 0, 41), "in_scale": np.logspace(0, 1, 41)},
}


def init_scales(sigma, in_scale, V: int = 64, d: int = 16, hidden: int = 64, res: float = 1.0, seed: int = 0,
                chunk: int = 256) -> dict:
    """RMS of x and of h (V tokens x d) and of the V x V logits at init, broadcast over sigma and in_scale arrays."""
    sigma, in_scale = np.broadcast_arrays(np.asarray(sigma, float), np.asarray(in_scale, float))
    unit = model.init_params(model.Config(V=V, d=d, hidden=hidden, res=res, sigma=1.0, seed=seed))
    # The untied forward with E = in_scale * sigma * E0 and U = sigma * E0 is the tied model at this
    # init, with in_scale free to differ per cell.
    cfg = model.Config(V=V, d=d, hidden=hidden, tied=False, res=res)
    s, k = sigma.ravel()[:, None, None], in_scale.ravel()[:, None, None]
    resid, stream, logit = np.empty(sigma.size), np.empty(sigma.size), np.empty(sigma.size)
    with np.errstate(all="ignore"):  # sigma = 1e8 overflows to inf on purpose: reported, not raised
        for start in range(0, sigma.size, chunk):
            cells = slice(start, start + chunk)
            params = {**unit, "E": k[cells] * s[cells] * unit["E"], "U": s[cells] * unit["E"]}
            out = model.forward(params, cfg, np.arange(V))
            for rms, key in ((resid, "x"), (stream, "h"), (logit, "logits")):
                rms[cells] = np.sqrt((out[key] ** 2).mean((-2, -1)))
    resid, stream, logit = (a.reshape(sigma.shape) for a in (resid, stream, logit))
    return {"resid": resid, "stream": stream, "logit": logit,
            "nonfinite": int((~np.isfinite(resid) | ~np.isfinite(logit)).sum())}


def in_band(scale: np.ndarray, band: float) -> np.ndarray:
    """Whether each scale lies within [1 - band, 1 + band] (NaN and inf never do)."""
    with np.errstate(invalid="ignore"):
        return np.abs(scale - 1.0) <= band


def sweep_grid(kind: str = "coarse", band: float = 0.1, **cfg) -> dict:
    """Scales over GRIDS[kind] (rows sigma, columns in_scale) and how many cells put both within band."""
    if kind not in GRIDS:
        raise ValueError(f"kind must be one of {sorted(GRIDS)}, got {kind!r}")
    sigmas, in_scales = GRIDS[kind]["sigma"], GRIDS[kind]["in_scale"]
    scales = init_scales(sigmas[:, None], in_scales[None, :], **cfg)
    hits = in_band(scales["resid"], band) & in_band(scales["logit"], band)
    return {"kind": kind, "band": band, "sigmas": sigmas, "in_scales": in_scales, **scales,
            "hits": int(hits.sum()), "hit_mask": hits}


def doubling(sigma: float = 0.25, in_scale: float = 1.0, **cfg) -> dict:
    """Factors by which the residual, stream (h) and logit scales grow when sigma doubles: {"resid", "stream", "logit"}."""
    scales = init_scales(np.array([sigma, 2 * sigma]), in_scale, **cfg)
    with np.errstate(all="ignore"):
        return {k: float(scales[k][1] / scales[k][0]) for k in ("resid", "stream", "logit")}
