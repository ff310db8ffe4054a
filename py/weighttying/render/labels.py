"""Where a figure's names go: a series' key, and each curve's end label placed off the curves and spread
apart (_spread, _clear)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..markup import escape
from .axes import RIGHT, TOP
from .svg import W


def _key(i: int, name: str) -> str:
    """Series i's name in the top-right corner, in its colour (a bar chart's series, which have no end)."""
    return (f'<text class="wt-s{i} wt-key" x="{W - RIGHT}" y="{TOP + 8 + 20 * i}" text-anchor="end" '
            f'dominant-baseline="hanging">{escape(name)}</text>')


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
                   f"{escape(text)}</text>" for (i, text, px, _), y in zip(shown, ys))


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
