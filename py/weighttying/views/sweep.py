"""The sweep section's HTML: readout, hit count and static heatmaps. No Panel here.

build.py prerenders `prerender(State().sweep)`; the live section reuses `readout` and `hits`, so a
number reads the same before and after the page upgrades to live widgets.
"""
from __future__ import annotations

import html

import numpy as np

from .. import render as R
from .. import state as S
from .. import sweep


def readout(sigma: float, in_scale: float, band: float) -> str:
    """The current setting's two scales, with data-testid/data-value hooks for the browser tests."""
    s = sweep.init_scales(sigma, in_scale)
    resid, logit = float(s["resid"]), float(s["logit"])
    both = bool(sweep.in_band(np.array([resid, logit]), band).all())

    def value(name: str, x: float) -> str:
        return f'<strong data-testid="sweep-{name}" data-value="{x!r}">{html.escape(R.num(x))}</strong>'

    return (f'<p class="wt-readout" data-testid="sweep-readout">At σ = {html.escape(R.num(sigma))} and '
            f'inScale = {html.escape(R.num(in_scale))}: residual-stream scale {value("resid", resid)}, '
            f'logit scale {value("logit", logit)}. Both within {band:.0%} of 1: '
            f'<strong data-testid="sweep-both">{"yes" if both else "no"}</strong>.</p>')


def hits(grid: dict, hits: np.ndarray) -> str:
    """One sentence: how many grid settings put both scales in the band."""
    return (f'<p data-testid="sweep-hits" data-value="{int(hits.sum())}">On the {html.escape(grid["kind"])} grid, '
            f'{int(hits.sum())} of {hits.size} settings put both scales within {grid["band"]:.0%} of 1.</p>')


def prerender(st: S.Sweep) -> str:
    """The sweep section's default state: readout, hit count and both scales as grid heatmaps."""
    grid = sweep.sweep_grid(st.grid, st.band)
    figs = "".join(
        R.heatmap(grid[key].T, grid["sigmas"], grid["in_scales"], f"{label} scale over the {st.grid} grid",
                  "σ", "inScale", mark=grid["hit_mask"].T)
        for key, label in (("resid", "Residual-stream"), ("logit", "Logit")))
    return readout(st.sigma, st.in_scale, st.band) + hits(grid, grid["hit_mask"]) + figs

