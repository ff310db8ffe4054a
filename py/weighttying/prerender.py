"""Each section's default state as static HTML (tables, inline SVG), made by build.py in CPython so
the page reads before Python loads in the browser. No Panel here.

The live sections reuse the readout functions below, so a number reads the same before and after
the page upgrades to live widgets.
"""
from __future__ import annotations

import html

import numpy as np

from . import render as R
from . import state as S
from . import sweep


def sweep_readout(sigma: float, in_scale: float, band: float) -> str:
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


def sweep_hits(grid: dict, hits: np.ndarray) -> str:
    """One sentence: how many grid settings put both scales in the band."""
    return (f'<p data-testid="sweep-hits" data-value="{int(hits.sum())}">On the {html.escape(grid["kind"])} grid, '
            f'{int(hits.sum())} of {hits.size} settings put both scales within {grid["band"]:.0%} of 1.</p>')


def sweep_section(st: S.Sweep) -> str:
    """The sweep section's default state: readout, hit count and both scales as grid heatmaps."""
    grid = sweep.sweep_grid(st.grid, st.band)
    figs = "".join(
        R.heatmap(grid[key].T, grid["sigmas"], grid["in_scales"], f"{label} scale over the {st.grid} grid",
                  "σ", "inScale", mark=grid["hit_mask"].T)
        for key, label in (("resid", "Residual-stream"), ("logit", "Logit")))
    return sweep_readout(st.sigma, st.in_scale, st.band) + sweep_hits(grid, grid["hit_mask"]) + figs


def sections() -> dict[str, str]:
    """{section id: static HTML of its default state} for every section that has a prerender."""
    defaults = S.State()
    return {"sweep": sweep_section(defaults.sweep)}
