"""The mark of a current setting: a ring drawn over a heatmap or a line chart, in an overlay of its own."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .axes import _frame, _scale, box
from .svg import H, W


def _mark(x: float, y: float, inside: bool) -> str:
    """An overlay the size of a figure (drawn over it, same viewBox) holding one ring at (x, y): solid
    when the point is on the figure, dashed at the nearest edge when it is off it. Its meaning is told
    in text by the slot's readout, so the overlay itself is hidden from screen readers."""
    dash = "" if inside else ' stroke-dasharray="3 2"'
    return (f'<svg class="wt-fig wt-over" viewBox="0 0 {W} {H}" aria-hidden="true" xmlns="http://www.w3.org/2000/svg">'
            f'<circle class="wt-at" cx="{x:.1f}" cy="{y:.1f}" r="7"{dash}/></svg>')


def _position(v: float, grid: Sequence[float], log: bool) -> tuple[float, bool]:
    """(v's fractional index among grid's points, clamped to the ends; whether it lies within them)."""
    f = np.log10 if log else (lambda a: np.asarray(a, float))
    g, x = f(np.asarray(grid, float)), float(f(v))
    return float(np.interp(x, g, np.arange(len(g)))), bool(g[0] <= x <= g[-1])


def heatmap_at(xs: Sequence[float], ys: Sequence[float], x: float, y: float, log: bool = True,
               heading: bool = False) -> str:
    """The ring over `heatmap(z, xs, ys, ...)` at the point (x, y) of its axes (log-spaced grids by default;
    `heading`: the heatmap has one)."""
    (j, in_x), (i, in_y) = _position(x, xs, log), _position(y, ys, log)
    b = box(heat=True, heading=heading)
    cw, ch = (b[2] - b[0]) / len(xs), (b[3] - b[1]) / len(ys)
    return _mark(b[0] + (j + 0.5) * cw, b[3] - (i + 0.5) * ch, in_x and in_y)


def lines_at(series: dict[str, Sequence[float]], grid: Sequence[float], x: float, y: float, log: bool = True,
             heading: bool = False) -> str:
    """The ring over `lines(series, ...)` at value y where the x axis (series' index, one point per value
    of grid) reads x."""
    n, lo, hi = _frame({k: np.asarray(v, float) for k, v in series.items()})
    i, inside = _position(x, grid, log)
    b = box(heading=heading)
    return _mark(float(_scale(i, 0, n - 1, b[0], b[2])), float(_scale(y, lo, hi, b[3], b[1])), inside)
