"""The sweep section's output: the current setting's two scales, the grid's hit count and both scales
as heatmaps over the grid. No Panel; cheap (one forward pass per setting, one broadcast pass per grid,
memoised), so every slot follows the controls directly."""
from __future__ import annotations

import functools

import numpy as np

from .. import quoted, render, state, sweep
from ..markup import escape
from .kit import claim, grid, hook, judged, log, note

SLOTS = ("claim", "readout", "hits", "resid", "resid_at", "logit", "logit_at", "key")
_SIGMA, _IN = state.BY_KEY["sweep.sigma"], state.BY_KEY["sweep.in_scale"]
# Log sliders: 2 points a decade over their whole range; the band slider at a few of its positions.
PLAYBACK = {"sigma": grid("sweep", "sigma", log(_SIGMA.lo, _SIGMA.hi, 2)),
            "in_scale": grid("sweep", "in_scale", log(_IN.lo, _IN.hi, 2)),
            "grid": grid("sweep", "grid"),
            "band": grid("sweep", "band", (0.05, 0.1, 0.2, 0.5))}
DEPENDS = {"claim": (), "readout": ("sigma", "in_scale", "band"), "hits": ("grid", "band"), "resid": ("grid", "band"),
           "resid_at": ("grid", "sigma", "in_scale"), "logit": ("grid", "band"), "logit_at": ("grid", "sigma", "in_scale"),
           "key": ()}
# The ring marking the current setting is its own small slot drawn over each heatmap, so a heatmap's
# table does not multiply by every sigma and inScale.
OVERLAYS = {"resid_at": "resid", "logit_at": "logit"}
CLAIM = "claim"
PAIRS = (("resid", "logit"),)
SCALES = (("resid", "Residual-stream"), ("logit", "Logit"))
KEY = ("Darker is larger (the scale beside each map reads the shade); outlined cells put both scales within the "
       "band of 1, and the black ring is the current setting. The sliders reach further than the grid does: off the grid the ring is dashed, "
       "at the nearest edge, and the readout above gives the current setting's scales.")


@functools.lru_cache(maxsize=1)
def claim_html() -> str:
    """The page's claim: doubling σ doubles the residual-stream scale and multiplies the logit scale by 3.8
    (not 4: the tanh saturates), at the page's σ, over the report's five seeds."""
    doubled = [sweep.doubling(seed=s) for s in range(5)]
    return claim([(f"{what} scale × when σ doubles (5 seeds)", render.num(float(np.mean([d[k] for d in doubled])), 3),
                   quoted.PAGE["doubling"][k], judged(f"sweep.doubling.{k}", [d[k] for d in doubled]))
                  for k, what in (("resid", "Residual-stream"), ("logit", "Logit"))], "sweep-claim")


def readout(sigma: float, in_scale: float, band: float) -> str:
    """The current setting's two scales, with data-testid/data-value hooks for the browser tests."""
    s = sweep.init_scales(sigma, in_scale)
    resid, logit = float(s["resid"]), float(s["logit"])
    both = bool(sweep.in_band(np.array([resid, logit]), band).all())
    return (f'<p class="wt-readout" data-testid="sweep-readout">At σ = {escape(render.num(sigma))} and '
            f'inScale = {escape(render.num(in_scale))}: residual-stream scale {hook("sweep-resid", resid)}, '
            f'logit scale {hook("sweep-logit", logit)}. Both within {band:.0%} of 1: '
            f'<strong data-testid="sweep-both">{"yes" if both else "no"}</strong>.</p>')


@functools.lru_cache(maxsize=4)
def scales(kind: str) -> dict:
    """Both scales over one grid; independent of the band, so a band change does not recompute them."""
    return sweep.sweep_grid(kind)


def hit_mask(kind: str, band: float) -> np.ndarray:
    """Grid cells (rows sigma, columns in_scale) that put both scales within band of 1."""
    g = scales(kind)
    return sweep.in_band(g["resid"], band) & sweep.in_band(g["logit"], band)


def hits(kind: str, band: float) -> str:
    """One sentence: how many grid settings put both scales in the band."""
    mask = hit_mask(kind, band)
    return (f'<p data-testid="sweep-hits" data-value="{int(mask.sum())}">On the {escape(kind)} grid, '
            f'{int(mask.sum())} of {mask.size} settings put both scales within {band:.0%} of 1.</p>')


@functools.lru_cache(maxsize=16)
def heatmap(kind: str, band: float, key: str) -> str:
    """One scale over the grid as an inline SVG heatmap, cells in the band outlined."""
    g, label = scales(kind), dict(SCALES)[key]
    return render.heatmap(g[key].T, g["sigmas"], g["in_scales"], f"{label} scale over the {kind} grid", "σ",
                     "inScale", mark=hit_mask(kind, band).T, zname=f"{label} scale",
                     heading=f"{label.lower()} scale", zlabel="scale (log shade)")


def ring(kind: str, sigma: float, in_scale: float) -> str:
    """The ring over either heatmap at the current (sigma, inScale)."""
    g = scales(kind)
    return render.heatmap_at(g["sigmas"], g["in_scales"], sigma, in_scale, heading=True)


def rows(st: state.Sweep) -> tuple[tuple[str, ...], list[tuple]]:
    """(columns, rows) of the export: the current setting, then every grid cell, both scales, in band or not."""
    cur, g, mask = sweep.init_scales(st.sigma, st.in_scale), scales(st.grid), hit_mask(st.grid, st.band)
    out = [("current", st.sigma, st.in_scale, float(cur["resid"]), float(cur["logit"]),
            int(sweep.in_band(np.array([cur["resid"], cur["logit"]]), st.band).all()))]
    out += [(f"{st.grid} grid", float(s), float(k), float(g["resid"][i, j]), float(g["logit"][i, j]), int(mask[i, j]))
            for i, s in enumerate(g["sigmas"]) for j, k in enumerate(g["in_scales"])]
    return ("setting", "sigma", "in_scale", "resid", "logit", "both_in_band"), out


def slots(st: state.Sweep, results: None = None) -> dict[str, str]:
    """The sweep section's output for st: readout, hit count, both heatmaps and how to read them."""
    at = ring(st.grid, st.sigma, st.in_scale)
    return {"claim": claim_html(), "readout": readout(st.sigma, st.in_scale, st.band), "hits": hits(st.grid, st.band),
            "resid": heatmap(st.grid, st.band, "resid"), "resid_at": at,
            "logit": heatmap(st.grid, st.band, "logit"), "logit_at": at, "key": note(KEY)}
