"""Prerendered tables and figures: escaped, non-finite values named, data carried as text."""
import re

import numpy as np

from weighttying import render
def test_table_escapes_and_names_non_finite():
    t = render.table(["a<b"], [["<script>x</script>"], [float("inf")], [float("nan")]], "c&d", "t1")
    assert "<script>" not in t and "&lt;script&gt;" in t and "a&lt;b" in t and "c&amp;d" in t
    assert "overflow (inf)" in t and "NaN" in t and 'data-testid="t1"' in t


def test_figures_carry_a_text_alternative():
    z = np.array([[1.0, 10.0], [np.inf, 0.1]])
    h = render.heatmap(z, [1, 2], [3, 4], "scales", "sigma", "inScale", mark=z < 2)
    assert "<title>scales</title>" in h and "1 cells not finite" in h and "2 cells marked" in h
    line = render.lines({"tied": [3.0, 2.0, 1.5]}, "loss", "step", "loss")
    assert "tied: 3 points, first 3, last 1.5" in line
    assert "peak 5 at 1" in render.bars([1, 5, 2], "ranks", "rank", "count")


def test_ticks_are_round_and_at_least_three():
    assert list(render._nice(1.48, 4.22)) == [2, 3, 4] and list(render._nice(0.0954, 0.611)) == [0.2, 0.4, 0.6]
    assert list(render._nice_log(0.1, 1)) == [0.1, 0.2, 0.5, 1] and list(render._nice_log(1000, 256000)) == [1e3, 1e4, 1e5]
    assert [render.tick(v) for v in (0.05, 20000, 1e-4, 2e-5, 300)] == ["0.05", "20k", "10⁻⁴", "2e-5", "300"]
    for lo, hi in ((0, 1e-3), (3.3, 3.4), (-2, 7), (1, 640)):
        assert len(render._nice(lo, hi)) >= 3, (lo, hi)


def axis_ticks(svg: str, b) -> dict[str, int]:
    """How many tick values sit at each axis of a figure with plot box b."""
    xy = [(float(x), float(y)) for x, y in re.findall(r'<text class="wt-tick" x="([-\d.]+)" y="([-\d.]+)"', svg)]
    return {"y": sum(abs(x - (b[0] - 5)) < 0.5 for x, _ in xy), "x": sum(abs(y - (b[3] + 5)) < 0.5 for _, y in xy),
            "colour": sum(x > b[2] for x, _ in xy)}


def test_every_numeric_axis_has_three_values_and_a_pair_panel_its_heading():
    line = render.lines({"a": [4.22, 2.0, 1.48]}, "t", "step", "loss", xs=[0, 300, 600], heading="loss")
    n = axis_ticks(line, render.box(heading=True))
    assert n["x"] >= 3 and n["y"] >= 3 and '<text class="wt-head"' in line and ">a 1.48</text>" in line
    z = np.outer(np.logspace(-2, 2, 5), np.ones(5))
    h = render.heatmap(z, np.logspace(-2, 2, 5), np.logspace(-2, 2, 5), "t", "σ", "inScale", zlabel="scale")
    n = axis_ticks(h, render.box(heat=True))
    assert n["x"] >= 3 and n["y"] >= 3 and n["colour"] >= 3 and ">scale</text>" in h
    assert axis_ticks(render.bars([1, 5, 2, 7, 3], "t", "rank", "count"), render.box())["y"] >= 3
    assert "values 1, 2" in render.strips({"a": [0.9, 1.1]}, {}, "t", "ratio", alt="values 1, 2")


def test_end_labels_keep_off_each_other():
    svg = render.lines({"tied": np.linspace(1, 20, 30), "untied": np.linspace(32, 20.5, 30)}, "t", "step", "rank")
    ys = [float(y) for y in re.findall(r'wt-key" x="[-\d.]+" y="([-\d.]+)"', svg)]
    assert len(ys) == 2 and abs(ys[0] - ys[1]) >= render.LABEL_H - 1e-9  # the baselines as printed (one decimal)


def labels_and_ends(svg: str) -> list[tuple[float, float]]:
    """(end label's baseline, its curve's last point's y) of each curve of a line chart, in series order."""
    labels = [float(y) for y in re.findall(r'wt-key" x="[-\d.]+" y="([-\d.]+)"', svg)]
    ends = [float(p.split()[-1].split(",")[1]) for p in re.findall(r'<polyline class="wt-s\d+" fill="none" points="([^"]*)"', svg)]
    assert len(labels) == len(ends)
    return list(zip(labels, ends))


def test_spread_keeps_order_and_gap_nearest_the_wishes_inside_the_bounds():
    assert render._spread([30.0, 70.0], 10, 0, 100) == [30.0, 70.0]  # apart: each where it wants
    assert render._spread([11.0, 10.0, 12.0], 10, 0, 100) == [11.0, 1.0, 21.0]  # a crowd spreads around its mean wish
    assert render._spread([95.0, 96.0], 10, 0, 100) == [90.0, 100.0]  # as near as the bound allows
    assert render._spread([2.0, 1.0], 10, 0, 100) == [10.0, 0.0]


def test_end_labels_sit_beside_their_curve_ends():
    # apart, flat at the end: each label right above its end
    got = labels_and_ends(render.lines({"low": [0.0] + [2.0] * 29, "high": [8.0] + [6.0] * 29}, "t", "step", "loss"))
    assert all(abs(y - (end - 6)) < 0.1 for y, end in got), got
    # apart, ending on a slope or at the plot's edge: moved off its own curve, but not further than that needs
    got = labels_and_ends(render.lines({"falls": np.linspace(5, 1, 30), "rises": np.linspace(1, 9, 30)}, "t", "step", "loss"))
    assert all(abs(y - end) <= 2.5 * render.LABEL_H for y, end in got), got
    # a crowd (the own-text chart: training and held-out loss of two models end within a few units near the
    # bottom): the labels touch, never overlap, stack in the order of their ends, leave the curves for the free
    # space above them, and stay within the crowd's own height of their ends
    steps = np.arange(31)
    crowd = {f"s{k}": 3.6 + 0.05 * k + 2.5 * np.exp(-steps / 3) for k in range(4)}
    svg = render.lines(crowd, "t", "step", "bits per character")
    got = labels_and_ends(svg)
    ys = sorted(y for y, _ in got)
    assert all(b - a >= render.LABEL_H - 1e-9 for a, b in zip(ys, ys[1:])), ys
    assert [y for y, _ in sorted(got, key=lambda g: g[1])] == ys, got  # the top label names the top end
    assert all(abs(y - end) <= len(crowd) * render.LABEL_H for y, end in got), got
    assert labels_on_curves(svg) == 0


def labels_on_curves(svg: str) -> int:
    """The points of the chart's curves (every polyline vertex) inside an end label's box, as render places them."""
    pts = np.array([[float(v) for v in p.split(",")] for line in re.findall(r'<polyline class="wt-s\d+" fill="none" points="([^"]*)"', svg)
                    for p in line.split()])
    hits = 0
    for x, y, text in re.findall(r'wt-key" x="([-\d.]+)" y="([-\d.]+)" text-anchor="end">([^<]*)<', svg):
        x1, y, w = float(x), float(y), render.LABEL_EM * len(text)
        hits += int(np.sum((pts[:, 0] > x1 - w) & (pts[:, 0] < x1) & (pts[:, 1] > y - render.LABEL_H + 4) & (pts[:, 1] < y)))
    return hits


def test_a_crowd_on_its_curves_moves_as_one_to_free_space_or_stays():
    def under_band(k, y):  # curves between heights 100 and 135
        return int(100 <= y <= 135)
    # on the curves: the nearest move that frees both (three half lines down, not four up), order and gaps kept
    assert render._clear([110.0, 130.0], under_band, 0, 200) == [140.0, 160.0]
    # already free: unchanged
    assert render._clear([40.0, 60.0], under_band, 0, 200) == [40.0, 60.0]
    # a curve under every height in reach (a steep curve across the labels' width): they stay by their ends
    assert render._clear([110.0, 130.0], lambda k, y: 1, 0, 200) == [110.0, 130.0]
    # free space only beyond MOVE half lines, or outside the plot: they stay
    far = render.LABEL_H / 2 * (render.MOVE + 1)
    assert render._clear([110.0], lambda k, y: int(y > 110 - far), 0, 200) == [110.0]
    assert render._clear([110.0, 130.0], lambda k, y: int(y > 20), 95, 200) == [110.0, 130.0]


def test_a_heatmap_draws_a_block_of_equal_unmarked_cells_as_one_and_each_marked_cell_alone():
    z = np.ones((4, 10))
    z[3, 7] = 100.0  # the top row's run breaks at column 7
    mark = np.zeros(z.shape, bool)
    mark[:, 4] = True  # a marked column: each of its cells keeps its own outline
    b = render.box(heat=True)
    rects = re.findall(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([-\d.]+)" height="([-\d.]+)" fill="[^"]+"( stroke)?',
                       render.heatmap(z, range(10), range(4), "t", "x", "y", mark=mark))
    cells = [(*map(float, r[:4]), bool(r[4])) for r in rects if float(r[0]) < b[2]]
    cw, ch = (b[2] - b[0]) / 10, (b[3] - b[1]) / 4
    spans = sorted((round((x - b[0]) / cw), round((b[3] - y - h) / ch), round(w / cw), round(h / ch), own)
                   for x, y, w, h, own in cells)  # (first column, first row from the bottom, columns, rows, marked)
    assert spans == [(0, 0, 4, 4, False), *[(4, i, 1, 1, True) for i in range(4)], (5, 0, 5, 3, False),
                     (5, 3, 2, 1, False), (7, 3, 1, 1, False), (8, 3, 2, 1, False)]
    assert all(own for *_, own in cells[-4:]), "the outlined cells are drawn over their neighbours"
    assert abs(sum(w * h for _, _, w, h, _ in cells) - (b[2] - b[0]) * (b[3] - b[1])) < 0.01 * (b[2] - b[0]) * (b[3] - b[1])
