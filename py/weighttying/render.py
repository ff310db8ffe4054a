"""Plain HTML tables and inline SVG figures: what the page shows before Python loads.

No Panel, no Bokeh: build.py calls these in CPython to prerender each section's default state, and
the live sections reuse `table` for their HTML panes, so a table reads the same before and after
the upgrade. Every figure carries its data as a text alternative (<title>/<desc> and a caption), and
as compact JSON on its <svg data-fig> that site/readout.js reads to show the value under the pointer
(or the keyboard's cursor): a heatmap's cells, a line chart's points, a bar chart's bins, a strip's dots.
"""
from __future__ import annotations

import html
import json
import math
import re
from typing import Iterable, Sequence

import numpy as np

from . import colours

W, H = 480, 240  # SVG viewBox; the page scales it to the column width (every unit of height is 1.25 px of page
# at 600 px)
PAD = 52  # the left margin: an axis's tick values, four characters at a phone's larger figure text (style.css)
TOP, BOTTOM, RIGHT = 26, 50, 12  # above the plot the y axis's title (and a colour scale's), under it the x axis's
# tick values and title; on the right the end of the plot
HEAD = 22  # a panel's heading adds a line above all that
DIGITS = 4  # significant figures of a number in a table or a figure's readout
WHOLE_BELOW = 1e15  # whole numbers under this show in full (a vocabulary of 50257); from here on as `num`,
# where digits in full would be float noise (2**53 is 9.0e15)
STRIP_SPREAD, DOT_R = 0.15, 4  # a strip chart's dots: spread over this share of a column either side of its middle


def num(x: object, digits: int = DIGITS) -> str:
    """A cell's text: finite floats to `digits` significant figures, inf/NaN named as such."""
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (float, np.floating)):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "overflow (inf)" if x > 0 else "overflow (-inf)"
        return f"{x:.{digits}g}"
    return str(x)


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], caption: str = "",
          testid: str = "") -> str:
    """An accessible HTML table (escaped) with a caption and a data-testid for tests; each cell names its
    column (data-label), which a phone shows beside it when the rows become cards (style.css)."""
    head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f'<td data-label="{html.escape(c)}">{html.escape(num(v))}</td>'
                                    for v, c in zip(r, columns)) + "</tr>" for r in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    tid = f' data-testid="{html.escape(testid)}"' if testid else ""
    return f'<table class="wt-table"{tid}>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _svg(body: str, title: str, desc: str, data: str = "") -> str:
    """Wrap SVG content with its accessible name and description; given readout data (`_data`), the figure
    is focusable and carries it on the root element, which `standalone` leaves out of a saved file."""
    fig = f" tabindex=\"0\" data-fig='{_attr(data)}'" if data else ""
    return diagram(body, title, desc, W, H, fig)


def diagram(body: str, title: str, desc: str, width: float, height: float, attrs: str = "") -> str:
    """SVG content in the figures' look (class wt-fig) with its accessible name and description, in a viewBox
    WIDTH x HEIGHT; ATTRS, already escaped, go on its root (a drawing that plots no data: weighttying.front)."""
    return (f'<svg class="wt-fig" viewBox="0 0 {width} {height}" role="img"{attrs} xmlns="http://www.w3.org/2000/svg">'
            f"<title>{html.escape(title)}</title><desc>{html.escape(desc)}</desc>{body}</svg>")


# ---- the readout's data: what a figure shows, as site/readout.js reads it ------------------------------

def shown(x: object, digits: int = DIGITS) -> str:
    """A number as the readout shows it: whole numbers in full digits (a vocabulary of 50257), others as
    `num` (`digits` significant figures) but whole once rounded (12345.6 as 12350); non-finite as `num`."""
    if isinstance(x, (float, np.floating, int, np.integer)) and not isinstance(x, (bool, np.bool_)) \
            and math.isfinite(x):
        r = float(x) if float(x).is_integer() else float(num(float(x), digits))
        return str(int(r)) if r.is_integer() and abs(r) < WHOLE_BELOW else num(r)
    return num(x)


def readout_rules() -> dict:
    """What site/readout.js reads a figure's data by (the page config's "readout"): `shown`'s significant figures
    and whole-number limit, and how `strips` spreads its dots; the rest of a figure's geometry is in its data."""
    return {"digits": DIGITS, "whole_below": WHOLE_BELOW, "strip_spread": STRIP_SPREAD, "dot_r": DOT_R}


def _jnum(x: object, digits: int = DIGITS) -> str:
    """x as a JSON token of the readout data: the shown number, its exponent short; other text quoted."""
    s = shown(x, digits)
    if not re.fullmatch(r"-?\d+(\.\d+)?(e[+-]\d+)?", s):
        return json.dumps(s, ensure_ascii=False)
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m[1] == "-" else "") + m[2], s)


def _jlist(xs: Iterable[object], digits: int = DIGITS) -> str:
    """A JSON list of readout numbers."""
    return "[" + ",".join(_jnum(x, digits) for x in xs) + "]"


def _data(kind: str, b: tuple, **parts: str) -> str:
    """The readout JSON of a figure: its kind, its plot box b, then parts already written as JSON."""
    return (f'{{"kind":"{kind}","box":{json.dumps([round(v, 1) for v in b], separators=(",", ":"))}'
            + "".join(f',"{k}":{v}' for k, v in parts.items()) + "}")


def _attr(text: str) -> str:
    """Text for a single-quoted attribute that no `<svg[^>]*>` match can end early (standalone's)."""
    return text.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;")


def _name(text: str) -> str:
    """A JSON string."""
    return json.dumps(text, ensure_ascii=False)


# ---- axes: nice ticks, grid lines, titles ---------------------------------------------------------------

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
    inside = lambda ts: [t for t in ts if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]  # noqa: E731
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
                   f'dominant-baseline="hanging">{html.escape(str(v) if isinstance(v, str) else tick(v))}</text>')
    return "".join(out)


TICK_GAP = 56  # the least distance between two x tick values: five characters at a phone's figure text
XLABEL_CHARS = 56  # a longer x-axis title is cut at a space and carried on in the figure's description


def _xaxis(xlabel: str) -> str:
    """The x axis's title under its tick values (one line: a long one keeps its first words)."""
    if len(xlabel) > XLABEL_CHARS and " " in xlabel[:XLABEL_CHARS]:
        xlabel = xlabel[:xlabel.rindex(" ", 0, XLABEL_CHARS)] + "…"
    return f'<text class="wt-axis" x="{(PAD + W - RIGHT) / 2}" y="{H - 4}" text-anchor="middle">{html.escape(xlabel)}</text>'


def _yaxis(ylabel: str, b: tuple) -> str:
    """The y axis's title above the plot's top-left corner, where it reads level (a rotated one needed a
    margin of its own beside the tick values), starting at the plot's edge: clear of the top tick value."""
    return f'<text class="wt-axis" x="{b[0]}" y="{b[1] - 9}">{html.escape(ylabel)}</text>'


def _heading(heading: str) -> str:
    """A panel's heading, the figure's first line (a panel beside another says which it is)."""
    return f'<text class="wt-head" x="4" y="16">{html.escape(heading)}</text>' if heading else ""


def _desc(parts: Sequence[str], alt: str) -> str:
    """A figure's accessible description: what it plots, then the caller's full account of it (`alt`: the
    values a caption under the figure would only list)."""
    return "; ".join(parts) + (f". {alt}" if alt else "")


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


def _key(i: int, name: str) -> str:
    """Series i's name in the top-right corner, in its colour (a bar chart's series, which have no end)."""
    return (f'<text class="wt-s{i} wt-key" x="{W - RIGHT}" y="{TOP + 8 + 20 * i}" text-anchor="end" '
            f'dominant-baseline="hanging">{html.escape(name)}</text>')


LABEL_EM, LABEL_H = 0.6 * 15, 20  # an end label's character width and line height as placed, for a figure's text
# at its larger phone size (at 360 px its line box is 19.5 units high: labels closer than that overlap)


def _spread(ideal: list[float], gap: float, lo: float, hi: float, rank: Sequence[float] | None = None) -> list[float]:
    """Positions nearest `ideal` (least squares), in the order of `rank` (default: their own), at least `gap` apart,
    within [lo, hi] while they fit: each run of values that would be closer than `gap` moves as one block to its
    members' mean wish (pool adjacent violators), so a crowd of labels spreads around where its members belong."""
    rank = ideal if rank is None else rank
    order = sorted(range(len(ideal)), key=lambda i: (rank[i], ideal[i]))
    blocks: list[list] = []  # [first position in order, count, start]
    for k in range(len(order)):
        blocks.append([k, 1, 0.0])
        while True:
            first, count, _ = blocks[-1]
            wish = sum(ideal[order[j]] - (j - first) * gap for j in range(first, first + count)) / count
            blocks[-1][2] = max(min(wish, hi - (count - 1) * gap), lo)  # too many to fit: off the bottom, not the top
            if len(blocks) < 2 or blocks[-2][2] + blocks[-2][1] * gap <= blocks[-1][2]:
                break
            before = blocks.pop(-2)
            blocks[-1][:2] = [before[0], before[1] + count]
    out = [0.0] * len(ideal)
    for first, count, start in blocks:
        for j in range(first, first + count):
            out[order[j]] = start + (j - first) * gap
    return out


def _end_labels(curves: list[tuple[str, np.ndarray, np.ndarray]], b: tuple) -> str:
    """Each curve's name (and final value) at its right end, in its colour, above or below the end: each wants the
    height nearest its end with the fewest points of any curve under it (a point costs what 40 units of distance
    do); labels that would overlap then spread around those heights (_spread), and a spread crowd that still lies
    on the curves moves up or down as one to free space nearby, if there is any (_clear), inside the plot. The
    labels stack in the order of their ends, so the top label names the top curve."""
    pts = np.concatenate([np.column_stack([px, py]) for _, px, py in curves if len(px)] + [np.zeros((0, 2))])
    if len(pts) > 1:  # the segments between points count too: densify each curve
        pts = np.concatenate([np.column_stack([np.interp(np.linspace(0, len(px) - 1, 8 * len(px)), np.arange(len(px)), px),
                                               np.interp(np.linspace(0, len(px) - 1, 8 * len(px)), np.arange(len(px)), py)])
                              for _, px, py in curves if len(px)])
    shown = [(i, text, px, py) for i, (text, px, py) in enumerate(curves) if len(px)]
    lo, hi = b[1] + LABEL_H - 4, b[3] - 2  # a baseline's bounds: the label's top in the plot

    def under(k: int, y: float) -> int:  # label k at baseline y: the points of any curve under it
        _, text, px, _ = shown[k]
        x1, w = float(px[-1]), LABEL_EM * len(text)
        return int(np.sum((pts[:, 0] > x1 - w - 2) & (pts[:, 0] < x1 + 2) & (pts[:, 1] > y - LABEL_H + 2) & (pts[:, 1] < y + 4)))

    ideal = []
    for k, (_, _, _, py) in enumerate(shown):
        end = float(py[-1])
        options = [end - 6 - j * LABEL_H / 2 for j in range(4)] + [end + LABEL_H + j * LABEL_H / 2 for j in range(4)]
        ideal.append(min(options, key=lambda y: under(k, y) + 500 * (not lo <= y <= hi) + abs(y - end) / 40))
    ys = _clear(_spread(ideal, LABEL_H, lo, hi, rank=[float(py[-1]) for _, _, _, py in shown]), under, lo, hi)
    return "".join(f'<text class="wt-s{i} wt-key" x="{float(px[-1]):.1f}" y="{y:.1f}" text-anchor="end">'
                   f"{html.escape(text)}</text>" for (i, text, px, _), y in zip(shown, ys))


MOVE = 6  # half lines a crowd of end labels may move together to leave its curves: further, it no longer reads as theirs


def _clear(ys: list[float], under, lo: float, hi: float) -> list[float]:
    """ys as they are if no label lies on a curve (under(k, y): the points under label k at y); else moved together
    by the fewest whole half lines (at most MOVE) that put every label on free space, if any do: a crowd keeps its
    order and gaps. Where a curve crosses every height in reach, the labels stay by their ends."""
    if not any(under(k, y) for k, y in enumerate(ys)):
        return ys
    moves = sorted((m * LABEL_H / 2 for m in range(-MOVE, MOVE + 1)), key=abs)
    free = [m for m in moves if lo <= min(ys) + m and max(ys) + m <= hi and not any(under(k, y + m) for k, y in enumerate(ys))]
    return [y + free[0] for y in ys] if free else ys


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
            f'{html.escape(label)}</text>')


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
    cells = []
    for i in range(ny):
        for j in range(nx):
            x, y = b[0] + j * cw, b[3] - (i + 1) * ch
            fill = _shade(lz[i, j], lo, hi) if ok[i, j] else "#c00"
            edge = ' stroke="#e69f00" stroke-width="2"' if mark is not None and mark[i, j] else ""
            cells.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" height="{ch:.1f}" fill="{fill}"{edge}/>')
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
    return _svg("".join(cells) + axes, title, _desc([desc], alt), data)


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
        body.append(f'<line x1="{b[0]}" x2="{b[2]}" y1="{r:.1f}" y2="{r:.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    yt = _nice(lo, hi)
    axes = (_yticks(yt, _scale(yt, lo, hi, b[3], b[1]), b) + _yaxis(ylabel, b) + _heading(heading)
            + _xticks(list(ys), [b[0] + (i + 0.5) * cw for i in range(len(ys))], b, grid=False))
    data = _data("strips", b, y=_name(ylabel), lo=_jnum(lo), hi=_jnum(hi), groups="[" + ",".join(
        f"[{_name(k)},{_jlist(y)},{_jlist(bands[k]) if k in bands else 'null'}]" for k, y in ys.items()) + "]")
    return _svg(axes + "".join(body), title, _desc(desc, alt), data)


# ---- marks over a figure, and a figure as a file -----------------------------------------------------

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


# The page's figure colours (its light scheme: weighttying.colours) for a figure saved as a file.
FILE_CSS = colours.file_css()


def standalone(fragments: Sequence[str], url: str) -> str:
    """A figure as an .svg file: the <svg> of each fragment (a slot, then its overlay) drawn on top of
    each other, the page's colours inline, and the link that reproduces it stamped under the plot."""
    bodies = [m.group(1) for f in fragments if (m := re.search(r"<svg[^>]*>(.*)</svg>", f, re.S))]
    if not bodies:
        bodies = [f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">No figure for these settings yet.</text>']
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H + 24}" width="{W * 2}" height="{(H + 24) * 2}" '
            f'font-family="sans-serif" font-size="11"><style>{FILE_CSS}</style><rect width="100%" height="100%" fill="#fff"/>'
            + "".join(bodies) + f'<text x="4" y="{H + 16}" font-size="9">{html.escape(url)}</text></svg>')
