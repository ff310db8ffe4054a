"""Plain HTML tables and inline SVG figures: what the page shows before Python loads.

No Panel, no Bokeh: build.py calls these in CPython to prerender each section's default state, and
the live sections reuse `table` for their HTML panes, so a table reads the same before and after
the upgrade. Every figure carries its data as a text alternative (<title>/<desc> and a caption).
"""
from __future__ import annotations

import html
import math
from typing import Iterable, Sequence

import numpy as np

W, H, PAD = 480, 260, 40  # SVG viewBox and inner margin; the page scales it to the column width


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


def _svg(body: str, title: str, desc: str) -> str:
    """Wrap SVG content with its accessible name and description."""
    return (f'<svg class="wt-fig" viewBox="0 0 {W} {H}" role="img" xmlns="http://www.w3.org/2000/svg">'
            f"<title>{html.escape(title)}</title><desc>{html.escape(desc)}</desc>{body}</svg>")


def _scale(v: np.ndarray, lo: float, hi: float, a: float, b: float) -> np.ndarray:
    """Map v from [lo, hi] to [a, b] (a flat range maps to the middle)."""
    return a + (b - a) * ((v - lo) / (hi - lo) if hi > lo else 0.5)


def lines(series: dict[str, Sequence[float]], title: str, xlabel: str, ylabel: str) -> str:
    """A line chart of named series over their index (non-finite points are dropped)."""
    ys = {k: np.asarray(v, float) for k, v in series.items()}
    finite = np.concatenate([y[np.isfinite(y)] for y in ys.values()] + [np.zeros(0)])
    lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    n = max(len(y) for y in ys.values())
    body, desc = [], []
    for i, (name, y) in enumerate(ys.items()):
        ok = np.isfinite(y)
        px = _scale(np.arange(len(y))[ok], 0, n - 1, PAD, W - 10)
        py = _scale(y[ok], lo, hi, H - PAD, 10)
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px, py))
        body.append(f'<polyline class="wt-s{i}" fill="none" points="{pts}"/>')
        body.append(f'<text class="wt-s{i}" x="{W - 12}" y="{20 + 16 * i}" text-anchor="end">{html.escape(name)}</text>')
        last = num(y[ok][-1]) if ok.any() else "none"
        desc.append(f"{name}: {len(y)} points, first {num(y[0])}, last {last}")
    axes = (f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">{html.escape(xlabel)}</text>'
            f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" text-anchor="middle">{html.escape(ylabel)}</text>'
            f'<text x="{PAD - 4}" y="14" text-anchor="end">{num(hi, 3)}</text>'
            f'<text x="{PAD - 4}" y="{H - PAD}" text-anchor="end">{num(lo, 3)}</text>')
    return _svg(axes + "".join(body), title, "; ".join(desc))


def heatmap(z: np.ndarray, xs: Sequence[float], ys: Sequence[float], title: str, xlabel: str,
            ylabel: str, mark: np.ndarray | None = None) -> str:
    """z[i, j] at (xs[j], ys[i]) coloured by log10|z|; cells where `mark` is true are outlined."""
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
    axes = (f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">{html.escape(xlabel)}: {num(xs[0], 3)} to {num(xs[-1], 3)}</text>'
            f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" text-anchor="middle">{html.escape(ylabel)}: {num(ys[0], 3)} to {num(ys[-1], 3)}</text>')
    marked = int(np.sum(mark)) if mark is not None else 0
    desc = (f"{ny} by {nx} grid; log10 of the value spans {num(lo, 3)} to {num(hi, 3)}; "
            f"{int((~ok).sum())} cells not finite; {marked} cells marked")
    return _svg("".join(cells) + axes, title, desc)


def bars(counts: Sequence[float], title: str, xlabel: str, ylabel: str) -> str:
    """A bar chart of counts over their index (a histogram)."""
    c = np.asarray(counts, float)
    top = c.max() if c.size and c.max() > 0 else 1.0
    bw = (W - PAD - 10) / max(len(c), 1)
    rects = "".join(
        f'<rect class="wt-s0" x="{PAD + i * bw:.1f}" y="{_scale(v, 0, top, H - PAD, 10):.1f}" '
        f'width="{max(bw - 1, 0.5):.1f}" height="{_scale(v, 0, top, 0, H - PAD - 10):.1f}"/>'
        for i, v in enumerate(c))
    axes = (f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">{html.escape(xlabel)}</text>'
            f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" text-anchor="middle">{html.escape(ylabel)}</text>')
    desc = f"{len(c)} bars, total {num(c.sum())}, peak {num(top)} at {int(c.argmax()) if c.size else 0}"
    return _svg(rects + axes, title, desc)
