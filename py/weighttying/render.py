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

W, H, PAD = 480, 220, 40  # SVG viewBox and inner margin; the page scales it to the column width (220: a
# curve or a 16-row heatmap needs no more, and every unit of height is 1.25 px of page at 600 px)


def num(x: object, digits: int = 4) -> str:
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
    """An accessible HTML table (escaped) with a caption and a data-testid for tests."""
    head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(num(v))}</td>" for v in r) + "</tr>" for r in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    tid = f' data-testid="{html.escape(testid)}"' if testid else ""
    return f'<table class="wt-table"{tid}>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _svg(body: str, title: str, desc: str, data: str = "") -> str:
    """Wrap SVG content with its accessible name and description; given readout data (`_data`), the figure
    is focusable and carries it on the root element, which `standalone` leaves out of a saved file."""
    fig = f" tabindex=\"0\" data-fig='{_attr(data)}'" if data else ""
    return (f'<svg class="wt-fig" viewBox="0 0 {W} {H}" role="img"{fig} xmlns="http://www.w3.org/2000/svg">'
            f"<title>{html.escape(title)}</title><desc>{html.escape(desc)}</desc>{body}</svg>")


# ---- the readout's data: what a figure shows, as site/readout.js reads it ------------------------------

BOX = (PAD, 10, W - 10, H - PAD)  # the plot area (x0, y0, x1, y1) in viewBox units, as every figure draws it


def shown(x: object, digits: int = 4) -> str:
    """A number as the readout shows it: whole numbers in full digits (a vocabulary of 50257), others as
    `num` (`digits` significant figures) but whole once rounded (12345.6 as 12350); non-finite as `num`."""
    if isinstance(x, (float, np.floating, int, np.integer)) and not isinstance(x, (bool, np.bool_)) \
            and math.isfinite(x):
        r = float(x) if float(x).is_integer() else float(num(float(x), digits))
        return str(int(r)) if r.is_integer() and abs(r) < 1e15 else num(r)
    return num(x)


def _jnum(x: object, digits: int = 4) -> str:
    """x as a JSON token of the readout data: the shown number, its exponent short; other text quoted."""
    s = shown(x, digits)
    if not re.fullmatch(r"-?\d+(\.\d+)?(e[+-]\d+)?", s):
        return json.dumps(s, ensure_ascii=False)
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m[1] == "-" else "") + m[2], s)


def _jlist(xs: Iterable[object], digits: int = 4) -> str:
    """A JSON list of readout numbers."""
    return "[" + ",".join(_jnum(x, digits) for x in xs) + "]"


def _data(kind: str, **parts: str) -> str:
    """The readout JSON of a figure: its kind, the plot box, then parts already written as JSON."""
    return (f'{{"kind":"{kind}","box":{json.dumps(BOX, separators=(",", ":"))}'
            + "".join(f',"{k}":{v}' for k, v in parts.items()) + "}")


def _attr(text: str) -> str:
    """Text for a single-quoted attribute that no `<svg[^>]*>` match can end early (standalone's)."""
    return text.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;")


def _name(text: str) -> str:
    """A JSON string."""
    return json.dumps(text, ensure_ascii=False)


TICK_CHARS = 4  # an axis value that fits the 40-unit left margin at the projector's 16-unit text
XLABEL_CHARS = 40  # a longer x-axis label takes two lines: at a phone's larger text one would pass the figure's edges


def _xaxis(xlabel: str) -> str:
    """The x-axis label under the plot; a long one broken at the space nearest its middle into two lines."""
    spaces = [i for i, ch in enumerate(xlabel) if ch == " "]
    if len(xlabel) <= XLABEL_CHARS or not spaces:
        return f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">{html.escape(xlabel)}</text>'
    cut = min(spaces, key=lambda i: abs(i - len(xlabel) / 2))
    line = lambda dy, text: f'<tspan x="{W / 2}" dy="{dy}">{html.escape(text)}</tspan>'
    return (f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">'
            f'{line("-1.1em", xlabel[:cut])}{line("1.1em", xlabel[cut + 1:])}</text>')


def _yaxis(ylabel: str, lo: float | None = None, hi: float | None = None) -> str:
    """The rotated y-axis label, clear of the left edge even in the larger text of a narrow screen
    (style.css), and, given lo and hi, the axis's end values (class wt-tick, which style.css moves inside
    the plot there)."""
    out = f'<text x="18" y="{H / 2}" transform="rotate(-90 18 {H / 2})" text-anchor="middle">{html.escape(ylabel)}</text>'
    if lo is None:
        return out
    top, bottom = num(hi, 3), num(lo, 3)
    # The margin holds TICK_CHARS characters ending at the axis; longer values (8.95e-05) would pass the
    # figure's left edge, so both start there instead and run into the plot, on their halo (style.css),
    # which also hides a curve's first point (it would read as a minus sign just before the value).
    cls, anchor = ("wt-tick wt-in", "start") if max(len(top), len(bottom)) > TICK_CHARS else ("wt-tick", "end")
    return (out + f'<text class="{cls} wt-top" x="{PAD - 4}" y="14" text-anchor="{anchor}">{top}</text>'
            f'<text class="{cls}" x="{PAD - 4}" y="{H - PAD}" text-anchor="{anchor}">{bottom}</text>')


def _key(i: int, name: str) -> str:
    """Series i's name in the top-right corner, in its colour; rows far enough apart for a narrow
    screen's larger text (style.css)."""
    return f'<text class="wt-s{i} wt-key" x="{W - 12}" y="{22 + 22 * i}" text-anchor="end">{html.escape(name)}</text>'


def _scale(v: np.ndarray, lo: float, hi: float, a: float, b: float) -> np.ndarray:
    """Map v from [lo, hi] to [a, b] (a flat range maps to the middle)."""
    return a + (b - a) * ((v - lo) / (hi - lo) if hi > lo else 0.5)


def _frame(ys: dict[str, np.ndarray]) -> tuple[int, float, float]:
    """(points, lowest, highest finite value) of a line chart's series: what its axes span."""
    finite = np.concatenate([y[np.isfinite(y)] for y in ys.values()] + [np.zeros(0)])
    lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    return max(len(y) for y in ys.values()), lo, hi


def lines(series: dict[str, Sequence[float]], title: str, xlabel: str, ylabel: str,
          xs: Sequence[float] | None = None, xname: str = "point") -> str:
    """A line chart of named series over their index (non-finite points are dropped); the readout names
    point i as `xname` xs[i] (default: its index)."""
    ys = {k: np.asarray(v, float) for k, v in series.items()}
    n, lo, hi = _frame(ys)
    body, keys, desc = [], [], []
    for i, (name, y) in enumerate(ys.items()):
        ok = np.isfinite(y)
        px = _scale(np.arange(len(y))[ok], 0, n - 1, PAD, W - 10)
        py = _scale(y[ok], lo, hi, H - PAD, 10)
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px, py))
        body.append(f'<polyline class="wt-s{i}" fill="none" points="{pts}"/>')
        keys.append(_key(i, name))
        last = num(y[ok][-1]) if ok.any() else "none"
        desc.append(f"{name}: {len(y)} points, first {num(y[0])}, last {last}")
    axes = _xaxis(xlabel) + _yaxis(ylabel, lo, hi)
    data = _data("lines", x=_name(xname), xs=_jlist(range(n) if xs is None else xs), lo=_jnum(lo), hi=_jnum(hi),
                 series="[" + ",".join(f"[{_name(k)},{_jlist(y)}]" for k, y in ys.items()) + "]")
    return _svg("".join(body) + axes + "".join(keys), title, "; ".join(desc), data)  # text over the curves


def heatmap(z: np.ndarray, xs: Sequence[float], ys: Sequence[float], title: str, xlabel: str,
            ylabel: str, mark: np.ndarray | None = None, zname: str = "value", zdigits: int = 4) -> str:
    """z[i, j] at (xs[j], ys[i]) coloured by log10|z|; cells where `mark` is true are outlined; the readout
    names a cell's value `zname` and gives it to `zdigits` significant figures."""
    z = np.asarray(z, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        lz = np.log10(np.abs(z))
    ok = np.isfinite(lz)
    lo, hi = (lz[ok].min(), lz[ok].max()) if ok.any() else (0.0, 1.0)
    ny, nx = z.shape
    cw, ch = (W - PAD - 10) / nx, (H - PAD - 10) / ny
    cells = []
    for i in range(ny):
        for j in range(nx):
            x, y = PAD + j * cw, H - PAD - (i + 1) * ch
            shade = int(_scale(lz[i, j], lo, hi, 230, 30)) if ok[i, j] else None
            fill = f"rgb({shade},{shade},{255 - shade // 3})" if shade is not None else "#c00"
            edge = ' stroke="#e69f00" stroke-width="2"' if mark is not None and mark[i, j] else ""
            cells.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw:.1f}" height="{ch:.1f}" fill="{fill}"{edge}/>')
    axes = (_xaxis(f"{xlabel}: {num(xs[0], 3)} to {num(xs[-1], 3)}")
            + _yaxis(f"{ylabel}: {num(ys[0], 3)} to {num(ys[-1], 3)}"))
    marked = int(np.sum(mark)) if mark is not None else 0
    desc = (f"{ny} by {nx} grid; log10 of the value spans {num(lo, 3)} to {num(hi, 3)}; "
            f"{int((~ok).sum())} cells not finite; {marked} cells marked")
    data = _data("heatmap", x=_name(xlabel), xs=_jlist(xs), y=_name(ylabel), ys=_jlist(ys), z=_name(zname),
                 zs="[" + ",".join(_jlist(row, zdigits) for row in z) + "]")
    return _svg("".join(cells) + axes, title, desc, data)


def bars(counts: Sequence[float] | dict[str, Sequence[float]], title: str, xlabel: str, ylabel: str,
         bins: Sequence[str] | None = None, xname: str = "bin") -> str:
    """A bar chart of counts over their index (a histogram); several named series side by side per index;
    the readout names bar i as `xname` bins[i] (default: its index)."""
    series = {k: np.asarray(v, float) for k, v in counts.items()} if isinstance(counts, dict) else \
        {"": np.asarray(counts, float)}
    n, k = max(len(c) for c in series.values()), len(series)
    top = max((c.max() for c in series.values() if c.size), default=0.0) or 1.0
    bw = (W - PAD - 10) / max(n, 1)
    rects, desc = [], []
    for s, (name, c) in enumerate(series.items()):
        x0 = PAD + s * bw / k
        rects += [f'<rect class="wt-s{s}" x="{x0 + i * bw:.1f}" y="{_scale(v, 0, top, H - PAD, 10):.1f}" '
                  f'width="{max(bw / k - 1, 0.5):.1f}" height="{_scale(v, 0, top, 0, H - PAD - 10):.1f}"/>'
                  for i, v in enumerate(c)]
        if name:
            rects.append(_key(s, name))
        peak = c.max() if c.size else 0.0
        desc.append(f"{name + ': ' if name else ''}{len(c)} bars, total {num(c.sum())}, peak {num(peak)} at "
                    f"{int(c.argmax()) if c.size else 0}")
    axes = _xaxis(xlabel) + _yaxis(ylabel)
    data = _data("bars", x=_name(xname), bins="[" + ",".join(_name(str(b)) for b in (bins or range(n))) + "]",
                 top=_jnum(top), y=_name(ylabel),
                 series="[" + ",".join(f"[{_name(k)},{_jlist(c)}]" for k, c in series.items()) + "]")
    return _svg("".join(rects) + axes, title, "; ".join(desc), data)


def strips(groups: dict[str, Sequence[float]], bands: dict[str, tuple[float, float]], title: str, ylabel: str,
           rule: float | None = None) -> str:
    """One column of dots per named group (non-finite dropped), a shaded band per group, a dashed rule; the
    readout gives a column's values and its band."""
    ys = {k: np.asarray(v, float) for k, v in groups.items()}
    every = np.concatenate([y[np.isfinite(y)] for y in ys.values()] + [np.ravel(list(bands.values())),
                                                                      [rule] if rule is not None else []])
    lo, hi = (every.min(), every.max()) if every.size else (0.0, 1.0)
    lo, hi = lo - 0.05 * (hi - lo or 1), hi + 0.05 * (hi - lo or 1)
    cw = (W - PAD - 10) / max(len(ys), 1)
    body, desc = [], []
    for i, (name, y) in enumerate(ys.items()):
        x0 = PAD + i * cw
        if name in bands:
            b0, b1 = (_scale(v, lo, hi, H - PAD, 10) for v in bands[name])
            body.append(f'<rect class="wt-band" x="{x0 + 0.2 * cw:.1f}" y="{b1:.1f}" width="{0.6 * cw:.1f}" '
                        f'height="{b0 - b1:.1f}"/>')
        ok = y[np.isfinite(y)]
        spread = np.linspace(-0.15, 0.15, len(ok)) if len(ok) > 1 else np.zeros(len(ok))
        body += [f'<circle class="wt-s0" cx="{x0 + (0.5 + s) * cw:.1f}" cy="{_scale(v, lo, hi, H - PAD, 10):.1f}" r="4"/>'
                 for s, v in zip(spread, ok)]
        body.append(f'<text x="{x0 + cw / 2:.1f}" y="{H - PAD + 16}" text-anchor="middle">{html.escape(name)}</text>')
        desc.append(f"{name}: {', '.join(num(v, 3) for v in y) or 'none'}")
    if rule is not None:
        r = _scale(rule, lo, hi, H - PAD, 10)
        body.append(f'<line x1="{PAD}" x2="{W - 10}" y1="{r:.1f}" y2="{r:.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    axes = _yaxis(ylabel, lo, hi)
    data = _data("strips", y=_name(ylabel), lo=_jnum(lo), hi=_jnum(hi), groups="[" + ",".join(
        f"[{_name(k)},{_jlist(y)},{_jlist(bands[k]) if k in bands else 'null'}]" for k, y in ys.items()) + "]")
    return _svg("".join(body) + axes, title, "; ".join(desc), data)  # text over the dots


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


def heatmap_at(xs: Sequence[float], ys: Sequence[float], x: float, y: float, log: bool = True) -> str:
    """The ring over `heatmap(z, xs, ys, ...)` at the point (x, y) of its axes (log-spaced grids by default)."""
    (j, in_x), (i, in_y) = _position(x, xs, log), _position(y, ys, log)
    cw, ch = (W - PAD - 10) / len(xs), (H - PAD - 10) / len(ys)
    return _mark(PAD + (j + 0.5) * cw, H - PAD - (i + 0.5) * ch, in_x and in_y)


def lines_at(series: dict[str, Sequence[float]], grid: Sequence[float], x: float, y: float, log: bool = True) -> str:
    """The ring over `lines(series, ...)` at value y where the x axis (series' index, one point per value
    of grid) reads x."""
    n, lo, hi = _frame({k: np.asarray(v, float) for k, v in series.items()})
    i, inside = _position(x, grid, log)
    return _mark(float(_scale(i, 0, n - 1, PAD, W - 10)), float(_scale(y, lo, hi, H - PAD, 10)), inside)


# The page's figure colours (style.css, light scheme) for a figure saved as a file.
FILE_CSS = (".wt-s0{stroke:#0b63b6}.wt-s1{stroke:#b36b00}rect.wt-s0,circle.wt-s0{fill:#0b63b6}"
            "rect.wt-s1,text.wt-s1{fill:#b36b00}.wt-s2{stroke:#0b63b6;stroke-dasharray:5 4}"
            ".wt-s3{stroke:#b36b00;stroke-dasharray:5 4}text.wt-s2{fill:#0b63b6}text.wt-s3{fill:#b36b00}.wt-band{fill:#b36b00;fill-opacity:.25}"
            ".wt-at{fill:none;stroke:#1d1d1f;stroke-width:3}text{fill:#1d1d1f}")


def standalone(fragments: Sequence[str], url: str) -> str:
    """A figure as an .svg file: the <svg> of each fragment (a slot, then its overlay) drawn on top of
    each other, the page's colours inline, and the link that reproduces it stamped under the plot."""
    bodies = [m.group(1) for f in fragments if (m := re.search(r"<svg[^>]*>(.*)</svg>", f, re.S))]
    if not bodies:
        bodies = [f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">No figure for these settings yet.</text>']
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H + 24}" width="{W * 2}" height="{(H + 24) * 2}" '
            f'font-family="sans-serif" font-size="11"><style>{FILE_CSS}</style><rect width="100%" height="100%" fill="#fff"/>'
            + "".join(bodies) + f'<text x="4" y="{H + 16}" font-size="9">{html.escape(url)}</text></svg>')
