"""The four chart kinds, each an <svg> with its readout data: lines, heatmap (shaded beside its colour
scale), bars and strips."""
from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np

from ..markup import escape
from .axes import _frame, _grid_ticks, _heading, _nice, _nice_log, _scale, _xaxis, _xticks, _yaxis, _yticks, box, tick
from .labels import _end_labels, _key
from .numbers import DIGITS, num
from .svg import DOT_R, STRIP_SPREAD, W, _data, _desc, _jlist, _jnum, _name, _svg



def lines(series: dict[str, Sequence[float]], title: str, xlabel: str, ylabel: str,
          xs: Sequence[float] | None = None, xname: str = "point", heading: str = "", ends: bool = True,
          alt: str = "") -> str:
    """A line chart of named series over their index (non-finite points are dropped), each named at its end
    with (`ends`) its last value; the readout names point i as `xname` xs[i] (default: its index). The x
    axis's ticks are round values of xs (a log axis when xs are evenly spaced in log)."""
    ys = {k: np.asarray(v, float) for k, v in series.items()}
    n, lo, hi = _frame(ys)
    b = box(heading=bool(heading))
    body, curves, desc = [], [], []
    for i, (name, y) in enumerate(ys.items()):
        ok = np.isfinite(y)
        px = _scale(np.arange(len(y))[ok], 0, n - 1, b[0], b[2])
        py = _scale(y[ok], lo, hi, b[3], b[1])
        pts = " ".join(f"{a:.1f},{c:.1f}" for a, c in zip(px, py))
        body.append(f'<polyline class="wt-s{i}" fill="none" points="{pts}"/>')
        last = num(y[ok][-1]) if ok.any() else "none"
        curves.append((f"{name} {num(y[ok][-1], 3)}" if ends and ok.any() else name, px, py))
        desc.append(f"{name}: {len(y)} points, first {num(y[0])}, last {last}")
    grid = np.arange(n) if xs is None else np.asarray(xs, float)
    xt, xi = _grid_ticks(grid)
    yt = _nice(lo, hi)
    axes = (_yticks(yt, _scale(yt, lo, hi, b[3], b[1]), b) + _xticks(xt, _scale(xi, 0, n - 1, b[0], b[2]), b)
            + _xaxis(xlabel) + _yaxis(ylabel, b) + _heading(heading))
    data = _data("lines", b, x=_name(xname), xs=_jlist(range(n) if xs is None else xs), lo=_jnum(lo), hi=_jnum(hi),
                 series="[" + ",".join(f"[{_name(k)},{_jlist(y)}]" for k, y in ys.items()) + "]")
    # grid and tick values under the curves, the end labels over them
    return _svg(axes + "".join(body) + _end_labels(curves, b), title, _desc(desc, alt), data)


def _shade(lz: float, lo: float, hi: float) -> str:
    """A heatmap cell's fill for log10|z| = lz in [lo, hi]: light (small) to dark blue (large)."""
    s = int(_scale(lz, lo, hi, 230, 30))
    return f"rgb({s},{s},{255 - s // 3})"


def _runs(fills: list[str], marked: np.ndarray) -> list[tuple[int, int, str, bool]]:
    """A heatmap row's cells as runs (first column, length, fill, marked): unmarked neighbours of one fill share a
    run, and each marked cell is a run of its own."""
    out, j = [], 0
    for (fill, own), run in itertools.groupby(range(len(fills)), key=lambda k: (fills[k], k if marked[k] else -1)):
        n = len(list(run))
        out.append((j, n, fill, own >= 0))
        j += n
    return out


def _cells(fills: list[list[str]], marked: np.ndarray, b: tuple, cw: float, ch: float) -> str:
    """A heatmap's cells, row 0 at the bottom of box b: one <rect> per block of unmarked cells of one fill (a run in a
    row, stacked with the same run in the rows above it), so a field of cells that all read "≤ 0.0001" is one
    element with no seams; then each marked cell, outlined, over its neighbours. The readout reads the cells'
    places from the figure's box, never from these elements."""
    blocks: dict[tuple, int] = {}  # (first column, length, fill, marked, first row) -> rows
    growing: dict[tuple, tuple] = {}  # (first column, length, fill) -> its block, still open to the row above
    for i, row in enumerate(fills):
        grown = {}
        for j, n, fill, own in _runs(row, marked[i]):
            key = None if own else growing.get((j, n, fill))
            key = key or (j, n, fill, own, i)
            blocks[key] = blocks.get(key, 0) + 1
            if not own:
                grown[(j, n, fill)] = key
        growing = grown
    edge = ' stroke="#e69f00" stroke-width="2"'
    return "".join(f'<rect x="{b[0] + j * cw:.1f}" y="{b[3] - (i + rows) * ch:.1f}" width="{n * cw:.1f}" '
                   f'height="{rows * ch:.1f}" fill="{fill}"{edge if own else ""}/>'
                   for (j, n, fill, own, i), rows in sorted(blocks.items(), key=lambda kv: kv[0][3]))


TITLE_GAP = 8  # viewBox units a colour scale's value keeps below the top, clear of the scale's title


def _colorbar(lo: float, hi: float, b: tuple, label: str) -> str:
    """The colour scale beside a heatmap: its shades from lo to hi (log10 of the value) bottom to top, round
    values of the value beside it, and what the colour means above it."""
    x = b[2] + 8
    steps = 24
    edges = np.linspace(b[3], b[1], steps + 1)
    strip = "".join(f'<path d="M{x},{edges[k]:.1f}V{edges[k + 1]:.1f}" stroke="{_shade(lo + (hi - lo) * (k + 0.5) / steps, lo, hi)}" '
                    f'stroke-width="10"/>' for k in range(steps))
    ticks = _nice_log(10.0 ** lo, 10.0 ** hi) if hi > lo else np.array([10.0 ** lo])
    at = {t: _scale(math.log10(t), lo, hi, b[3], b[1]) for t in ticks}
    # a value at the very top would sit on the scale's title, just above it: the shade there still says it
    marks = "".join(f'<text class="wt-tick" x="{x + 8}" y="{y:.1f}" dominant-baseline="middle">{tick(t)}</text>'
                    for t, y in at.items() if y >= b[1] + TITLE_GAP)
    return (strip + marks + f'<text class="wt-axis" x="{W - 2}" y="{b[1] - 9}" text-anchor="end">'
            f'{escape(label)}</text>')


def heatmap(z: np.ndarray, xs: Sequence[float], ys: Sequence[float], title: str, xlabel: str,
            ylabel: str, mark: np.ndarray | None = None, zname: str = "value", zdigits: int = DIGITS,
            heading: str = "", zlabel: str = "", alt: str = "", zrange: tuple[float, float] | None = None) -> str:
    """z[i, j] at (xs[j], ys[i]) coloured by log10|z| beside a colour scale titled `zlabel` (default: |zname|);
    cells where `mark` is true are outlined; the readout names a cell's value `zname` and gives it to
    `zdigits` significant figures. The colour scale spans the cells' values, or `zrange` (lo, hi) when given:
    a cell at or under lo is only known to be that small, shaded as lo and read out as "≤ lo"."""
    z = np.asarray(z, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        lz = np.log10(np.abs(z))
    under = np.abs(z) <= zrange[0] if zrange else np.zeros(z.shape, bool)
    if zrange:
        lo, hi = math.log10(zrange[0]), math.log10(zrange[1])
        lz = np.where(under, lo, np.minimum(lz, hi))
    ok = np.isfinite(lz)
    if not zrange:
        lo, hi = (lz[ok].min(), lz[ok].max()) if ok.any() else (0.0, 1.0)
    ny, nx = z.shape
    b = box(heat=True, heading=bool(heading))
    cw, ch = (b[2] - b[0]) / nx, (b[3] - b[1]) / ny
    marked_at = np.zeros(z.shape, bool) if mark is None else np.asarray(mark, bool)
    cells = _cells([[_shade(v, lo, hi) if fine else "#c00" for v, fine in zip(lz[i], ok[i])] for i in range(ny)],
                   marked_at, b, cw, ch)
    (xt, xi), (yt, yi) = _grid_ticks(xs), _grid_ticks(ys)
    axes = (_xticks(xt, b[0] + (xi + 0.5) * cw, b, grid=False)
            + "".join(f'<text class="wt-tick" x="{b[0] - 5}" y="{b[3] - (i + 0.5) * ch:.1f}" text-anchor="end" '
                      f'dominant-baseline="middle">{tick(v)}</text>' for v, i in zip(yt, yi))
            + _xaxis(xlabel) + _yaxis(ylabel, b) + _heading(heading)
            + _colorbar(lo, hi, b, zlabel or f"|{zname}|, log colour"))
    marked = int(np.sum(mark)) if mark is not None else 0
    desc = (f"{ny} by {nx} grid; {xlabel} {num(xs[0], 3)} to {num(xs[-1], 3)}, {ylabel} {num(ys[0], 3)} to "
            f"{num(ys[-1], 3)}; log10 of the value spans {num(lo, 3)} to {num(hi, 3)}; "
            f"{int((~ok).sum())} cells not finite; {marked} cells marked")
    data = _data("heatmap", b, x=_name(xlabel), xs=_jlist(xs), y=_name(ylabel), ys=_jlist(ys), z=_name(zname),
                 zs="[" + ",".join(_jlist([f"≤ {num(zrange[0])}" if u else v for v, u in zip(row, low)], zdigits)
                                   for row, low in zip(z.tolist(), under.tolist())) + "]")
    return _svg(cells + axes, title, _desc([desc], alt), data)


def bars(counts: Sequence[float] | dict[str, Sequence[float]], title: str, xlabel: str, ylabel: str,
         bins: Sequence[str] | None = None, xname: str = "bin", heading: str = "",
         alt: str = "") -> str:
    """A bar chart of counts over their index (a histogram); several named series side by side per index;
    the readout names bar i as `xname` bins[i] (default: its index), and a few bins name their place
    under the axis."""
    series = {k: np.asarray(v, float) for k, v in counts.items()} if isinstance(counts, dict) else \
        {"": np.asarray(counts, float)}
    n, k = max(len(c) for c in series.values()), len(series)
    _, _, top = _frame({"": np.array([0.0, max((c.max() for c in series.values() if c.size), default=0.0) or 1.0])})
    b = box(heading=bool(heading))
    bw = (b[2] - b[0]) / max(n, 1)
    rects, desc = [], []
    for s, (name, c) in enumerate(series.items()):
        x0 = b[0] + s * bw / k
        rects += [f'<rect class="wt-s{s}" x="{x0 + i * bw:.1f}" y="{_scale(v, 0, top, b[3], b[1]):.1f}" '
                  f'width="{max(bw / k - 1, 0.5):.1f}" height="{_scale(v, 0, top, 0, b[3] - b[1]):.1f}"/>'
                  for i, v in enumerate(c)]
        if name:
            rects.append(_key(s, name))
        peak = c.max() if c.size else 0.0
        desc.append(f"{name + ': ' if name else ''}{len(c)} bars, total {num(c.sum())}, peak {num(peak)} at "
                    f"{int(c.argmax()) if c.size else 0}")
    names = [str(x) for x in (bins or range(n))]
    every = max(1, math.ceil(n / 4))  # four or five bins named, wide enough apart for a phone's larger text
    shown_bins = list(range(0, n, every))
    yt = _nice(0, top)
    axes = (_yticks(yt, _scale(yt, 0, top, b[3], b[1]), b)
            + _xticks([names[i] for i in shown_bins], [b[0] + (i + 0.5) * bw for i in shown_bins], b, grid=False)
            + _xaxis(xlabel) + _yaxis(ylabel, b) + _heading(heading))
    data = _data("bars", b, x=_name(xname), bins="[" + ",".join(_name(str(x)) for x in (bins or range(n))) + "]",
                 top=_jnum(top), y=_name(ylabel),
                 series="[" + ",".join(f"[{_name(k)},{_jlist(c)}]" for k, c in series.items()) + "]")
    return _svg(axes + "".join(rects), title, _desc(desc, alt), data)


def strips(groups: dict[str, Sequence[float]], bands: dict[str, tuple[float, float]], title: str, ylabel: str,
           rule: float | None = None, heading: str = "", alt: str = "") -> str:
    """One column of dots per named group (non-finite dropped), a shaded band per group, a dashed rule; the
    readout gives a column's values and its band."""
    ys = {k: np.asarray(v, float) for k, v in groups.items()}
    every = np.concatenate([y[np.isfinite(y)] for y in ys.values()] + [np.ravel(list(bands.values())),
                                                                      [rule] if rule is not None else []])
    _, lo, hi = _frame({"": every})
    b = box(heading=bool(heading))
    cw = (b[2] - b[0]) / max(len(ys), 1)
    body, desc = [], []
    for i, (name, y) in enumerate(ys.items()):
        x0 = b[0] + i * cw
        if name in bands:
            b0, b1 = (_scale(v, lo, hi, b[3], b[1]) for v in bands[name])
            body.append(f'<rect class="wt-band" x="{x0 + 0.2 * cw:.1f}" y="{b1:.1f}" width="{0.6 * cw:.1f}" '
                        f'height="{b0 - b1:.1f}"/>')
        ok = y[np.isfinite(y)]
        spread = np.linspace(-STRIP_SPREAD, STRIP_SPREAD, len(ok)) if len(ok) > 1 else np.zeros(len(ok))
        body += [f'<circle class="wt-s0" cx="{x0 + (0.5 + s) * cw:.1f}" cy="{_scale(v, lo, hi, b[3], b[1]):.1f}" '
                 f'r="{DOT_R}"/>'
                 for s, v in zip(spread, ok)]
        desc.append(f"{name}: {', '.join(num(v, 3) for v in y) or 'none'}")
    if rule is not None:
        r = _scale(rule, lo, hi, b[3], b[1])
        body.append(f'<line x1="{b[0]}" x2="{b[2]}" y1="{r:.1f}" y2="{r:.1f}" class="wt-ref"/>')
    yt = _nice(lo, hi)
    axes = (_yticks(yt, _scale(yt, lo, hi, b[3], b[1]), b) + _yaxis(ylabel, b) + _heading(heading)
            + _xticks(list(ys), [b[0] + (i + 0.5) * cw for i in range(len(ys))], b, grid=False))
    data = _data("strips", b, y=_name(ylabel), lo=_jnum(lo), hi=_jnum(hi), groups="[" + ",".join(
        f"[{_name(k)},{_jlist(y)},{_jlist(bands[k]) if k in bands else 'null'}]" for k, y in ys.items()) + "]")
    return _svg(axes + "".join(body), title, _desc(desc, alt), data)
