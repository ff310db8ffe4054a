"""A plot's frame: its box in the viewBox, round ticks (linear and log), grid lines, axis titles, the
heading, and the scale from values to viewBox units."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from ..markup import escape
from .svg import H, W

PAD = 52  # the left margin: an axis's tick values, four characters at a phone's larger figure text (style.css)
TOP, BOTTOM, RIGHT = 26, 50, 12  # above the plot the y axis's title (and a colour scale's), under it the x axis's
# tick values and title; on the right the end of the plot
HEAD = 22  # a panel's heading adds a line above all that
COLORBAR = 62  # a heatmap's right margin: its colour scale, 10 units wide, and the scale's values beside it


def box(heat: bool = False, heading: bool = False) -> tuple[float, float, float, float]:
    """The plot area (x0, y0, x1, y1) in viewBox units: a heatmap leaves room for its colour scale on the
    right, a panel with a heading a line more at the top."""
    return (PAD, TOP + (HEAD if heading else 0), W - (COLORBAR if heat else RIGHT), H - BOTTOM)


def _nice(lo: float, hi: float, least: int = 3) -> np.ndarray:
    """At least `least` round values (1, 2 or 5 x 10^k apart) within [lo, hi], the coarsest such step."""
    if not hi > lo:
        return np.array([lo])
    for step in sorted((m * 10.0 ** k for k in range(int(math.floor(math.log10(hi - lo))) - 2,
                                                      int(math.floor(math.log10(hi - lo))) + 1)
                        for m in (1, 2, 5)), reverse=True):
        ticks = np.arange(math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) + 1) * step
        if len(ticks) >= least:
            return np.round(ticks, 12)
    return np.array([lo, hi])


def _nice_log(lo: float, hi: float, least: int = 3) -> np.ndarray:
    """Round values within [lo, hi] (both > 0) for a log axis: decades (every other one past six), then
    1-2-5 and 1..9 in each decade while fewer than `least`."""
    k0, k1 = math.floor(math.log10(lo) - 1e-9), math.ceil(math.log10(hi) + 1e-9)

    def inside(ts: list[float]) -> list[float]:
        return [t for t in ts if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]
    decades = inside([10.0 ** k for k in range(k0, k1 + 1)])
    if len(decades) >= least:
        return np.array(decades[::2] if len(decades) > 6 else decades)
    for ms in ((1, 2, 5), range(1, 10)):
        ticks = inside([m * 10.0 ** k for k in range(k0, k1 + 1) for m in ms])
        if len(ticks) >= least:
            return np.array(ticks)
    return np.array(inside([m * 10.0 ** k for k in range(k0, k1 + 1) for m in range(1, 10)]) or [lo, hi])


SUPER = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def tick(v: float) -> str:
    """A tick's value in at most about four characters: 0.05, 1.5, 300, 20k, 10⁻³, 2e-5."""
    v = float(v)
    if v == 0:
        return "0"
    k = math.floor(math.log10(abs(v)) + 1e-9)
    m = round(v / 10.0 ** k, 6)
    if -2 <= k < 4:
        return f"{round(v, 12):g}"
    if 4 <= k < 6 and float(v / 1000).is_integer():
        return f"{v / 1000:g}k"
    return f"10{str(k).translate(SUPER)}" if m == 1 else f"{m:g}e{k}"


def _logish(xs: np.ndarray) -> bool:
    """Whether grid xs (ascending) is evenly spaced in log rather than in value: a log axis."""
    if len(xs) < 3 or xs[0] <= 0 or xs[-1] / xs[0] < 5:
        return False
    lg = np.log(xs)  # within a quarter step of even in log (a grid of whole numbers, 10, 13, 16, ..., is rounded)
    return bool(np.max(np.abs(lg - np.linspace(lg[0], lg[-1], len(lg)))) < 0.25 * (lg[-1] - lg[0]) / (len(lg) - 1))


def _grid_ticks(xs: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(tick values, their fractional index among the grid xs): the round values within a grid's span,
    placed where the grid (even in value or in log) puts them."""
    g = np.asarray(xs, float)
    if len(g) < 2 or not np.all(np.diff(g) > 0):
        return np.zeros(0), np.zeros(0)
    log = _logish(g)
    ticks = _nice_log(g[0], g[-1]) if log else _nice(g[0], g[-1])
    f = np.log10 if log else (lambda a: a)
    return ticks, np.interp(f(ticks), f(g), np.arange(len(g)))


def _grid_line(x1: float, y1: float, x2: float, y2: float) -> str:
    return f'<line class="wt-grid" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>'


def _yticks(values: Iterable[float], ys: Iterable[float], b: tuple) -> str:
    """Grid lines across the plot at ys and the values at the left margin."""
    return "".join(_grid_line(b[0], y, b[2], y) + f'<text class="wt-tick" x="{b[0] - 5}" y="{y:.1f}" '
                   f'text-anchor="end" dominant-baseline="middle">{tick(v)}</text>' for v, y in zip(values, ys))


def _xticks(values: Iterable[float], xs: Iterable[float], b: tuple, grid: bool = True) -> str:
    """Grid lines up the plot at xs and the values under it (clamped to the figure's width)."""
    out, last = [], -math.inf
    for v, x in zip(values, xs):
        if x - last < TICK_GAP:  # a value per TICK_GAP units at most: a phone's text needs the room
            continue
        last = x
        # at the plot's ends a value runs inward, clear of the bottom y value and the figure's edge
        anchor = "start" if x < b[0] + 8 else "end" if x > b[2] - 8 else "middle"
        out.append((_grid_line(x, b[1], x, b[3]) if grid else "")
                   + f'<text class="wt-tick" x="{x:.1f}" y="{b[3] + 5}" text-anchor="{anchor}" '
                   f'dominant-baseline="hanging">{escape(str(v) if isinstance(v, str) else tick(v))}</text>')
    return "".join(out)


TICK_GAP = 56  # the least distance between two x tick values: five characters at a phone's figure text
XLABEL_CHARS = 56  # a longer x-axis title is cut at a space and carried on in the figure's description


def _xaxis(xlabel: str) -> str:
    """The x axis's title under its tick values (one line: a long one keeps its first words)."""
    if len(xlabel) > XLABEL_CHARS and " " in xlabel[:XLABEL_CHARS]:
        xlabel = xlabel[:xlabel.rindex(" ", 0, XLABEL_CHARS)] + "…"
    return f'<text class="wt-axis" x="{(PAD + W - RIGHT) / 2}" y="{H - 4}" text-anchor="middle">{escape(xlabel)}</text>'


def _yaxis(ylabel: str, b: tuple) -> str:
    """The y axis's title above the plot's top-left corner, where it reads level (a rotated one needed a
    margin of its own beside the tick values), starting at the plot's edge: clear of the top tick value."""
    return f'<text class="wt-axis" x="{b[0]}" y="{b[1] - 9}">{escape(ylabel)}</text>'


def _heading(heading: str) -> str:
    """A panel's heading, the figure's first line (a panel beside another says which it is)."""
    return f'<text class="wt-head" x="4" y="16">{escape(heading)}</text>' if heading else ""

def _frame(ys: dict[str, np.ndarray]) -> tuple[int, float, float]:
    """(points, low, high end of the y axis) of a line chart's series: the finite values' span widened to
    the nearest half tick step at both ends."""
    finite = np.concatenate([y[np.isfinite(y)] for y in ys.values()] + [np.zeros(0)])
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi == lo:
        lo, hi = lo - (abs(lo) or 1) * 0.5, hi + (abs(hi) or 1) * 0.5
    step = np.diff(_nice(lo, hi))
    half = float(step[0]) / 2 if step.size else hi - lo  # half a tick step: 0 to 64 ends at 70, not 80
    lo, hi = round(math.floor(lo / half + 1e-9) * half, 12), round(math.ceil(hi / half - 1e-9) * half, 12)
    return max(len(y) for y in ys.values()), lo, hi


def _scale(v: np.ndarray, lo: float, hi: float, a: float, b: float) -> np.ndarray:
    """Map v (a number or an array) from [lo, hi] to [a, b] (a flat range maps to the middle: a curve of one point)."""
    return a + (b - a) * ((v - lo) / (hi - lo) if hi > lo else np.full(np.shape(v), 0.5))
