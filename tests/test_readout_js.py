"""site/readout.js's pure functions (tests/node/readout.test.mjs under `node --test`) against what CPython
draws, read by render.readout_rules as the page's config carries them: render.num's and render.shown's text for
awkward numbers (either side of every branch: exponent or not, whole below the limit or not, text), and figures of
every kind (the sections' own: sweep's heatmap, savings' curve, repeat's histogram; and small ones for the other
branches: a one-point curve with a non-finite series, bars of two series with empty bins, a heatmap with a floor and
a non-finite cell, a strip chart with an empty group), each drawn cell, point, bar and dot mapped back to the value
CPython plotted and held by the readout's highlight. Also: a figure's readout data stays out of a saved SVG file."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from weighttying import render
from weighttying import state
from weighttying.views import repeat, savings, sweep

from harness import ROOT

AWKWARD = [0.0, 1.0, -0.5, 0.125, 0.0001, 0.00012345, 1e-05, 9.99949, 9999.4, 9999.5, 12345.6, 1e20, -3.2e-12,
           2.5e-7, 123.456, 0.1 + 0.2, 64.0, 1 / 3, -7.0, 999.95, 0.00099995, 1e-300, 1.5e200,
           render.WHOLE_BELOW - 1, render.WHOLE_BELOW, -render.WHOLE_BELOW]
BOX = render.box()  # a bar or strip chart's plot area (x0, y0, x1, y1), no heading


def fig_of(svg: str) -> dict:
    """The readout data a figure carries."""
    return json.loads(html.unescape(re.search(r"data-fig='([^']*)'", svg)[1]))


def attrs(tag: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r'(x|y|width|height)="([-\d.]+)"', tag)}


def box_of(tags: list[str]) -> list[float]:
    """[x, y, w, h] around the drawn rects and circles TAGS, in viewBox units."""
    boxes = []
    for t in tags:
        a = attrs(t) | {k: float(v) for k, v in re.findall(r'(cx|cy|r)="([-\d.]+)"', t)}
        boxes.append([a["cx"] - a["r"], a["cy"] - a["r"], 2 * a["r"], 2 * a["r"]] if "r" in a
                     else [a["x"], a["y"], a["width"], a["height"]])
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    return [x0, y0, max(b[0] + b[2] for b in boxes) - x0, max(b[1] + b[3] for b in boxes) - y0]


def at_centre(item: list[float]) -> list[float]:
    return [item[0] + item[2] / 2, item[1] + item[3] / 2]


def heatmap_case() -> dict:
    kind, key = state.Sweep().grid, "resid"
    svg, z = sweep.heatmap(kind, state.Sweep().band, key), sweep.scales(kind)[key].T
    g = sweep.scales(kind)
    cells = re.findall(r"<rect [^>]*/>", svg)
    ny, nx = z.shape
    points = [{"at": at_centre(box_of([c])), "item": box_of([c]), "cell": True, "cur": {"i": k // nx, "j": k % nx},
               "texts": [render.shown(g["sigmas"][k % nx]), render.shown(g["in_scales"][k // nx]), render.shown(z[k // nx, k % nx])]}
              for k, c in enumerate(cells)]
    assert len(points) == z.size
    return {"fig": fig_of(svg), "points": points}


def floor_case() -> dict:
    """A heatmap with a floor (zrange): a cell under it reads "≤ floor"; a non-finite cell reads as render.num names it."""
    z = np.array([[1e-9, 0.5], [np.inf, 2e-3]])
    svg = render.heatmap(z, [1, 10], [0.1, 1], "t", "σ", "inScale", zname="error", zrange=(1e-6, 1.0))
    cells = re.findall(r"<rect [^>]*/>", svg)
    texts = [["≤ 1e-06"], ["0.5"], ["overflow (inf)"], ["0.002"]]
    points = [{"at": at_centre(box_of([c])), "item": box_of([c]), "cell": True, "cur": {"i": k // 2, "j": k % 2},
               "texts": ["error " + texts[k][0]]} for k, c in enumerate(cells)]
    return {"fig": fig_of(svg), "points": points}


def line_points(svg: str) -> list[list[list[float]]]:
    """Each drawn curve's points [x, y], in series order."""
    return [[[float(v) for v in p.split(",")] for p in pts.split()]
            for pts in re.findall(r'<polyline [^>]*points="([^"]*)"', svg)]


def curve_case() -> dict:
    values = savings.settled(state.Savings())
    svg, ys = savings.figure(values), savings.series(values)
    first = line_points(svg)[0]
    points = [{"at": p, "item": [*p, 0, 0], "dot": p, "cur": {"i": k, "j": 0},
               "texts": [f"V {render.shown(savings.CURVE_V[k])}:"] + [f"{name} {render.shown(y[k])}" for name, y in ys.items()]}
              for k, p in enumerate(first)]
    return {"fig": fig_of(svg), "points": points}


def one_point_case() -> dict:
    """A curve of one point (drawn at the plot's middle) beside a series with nothing finite to draw."""
    svg = render.lines({"a": [2.5], "b": [float("nan")]}, "t", "x", "y", xs=[7], xname="step")
    [p] = line_points(svg)[0]
    return {"fig": fig_of(svg), "points": [{"at": p, "item": [*p, 0, 0], "dot": p, "cur": {"i": 0, "j": 0},
                                            "texts": ["step 7: a 2.5, b NaN"]}]}


def bars_case() -> dict:
    st = state.Repeat()
    ranks = repeat.init_ranks_now(st)
    h = repeat.histogram(ranks)
    svg = repeat.hist_html(st, ranks, [])
    bars = re.findall(r'<rect class="wt-s0"[^>]*/>', svg)
    names = repeat.bin_names(h["edges"])
    points = [{"at": [at_centre(box_of([b]))[0], BOX[3] - 5], "item": box_of([b]), "cur": {"i": k, "j": 0},
               "texts": [f"ranks {names[k]}:", f"{render.shown(h['counts'][k])} tokens"]} for k, b in enumerate(bars)]
    return {"fig": fig_of(svg), "points": points}


def two_series_case() -> dict:
    """Bars of two series side by side, with empty bins: a bin's highlight holds both of its bars."""
    counts = {"tied": [3, 0, 5], "untied": [1, 0, 0]}
    svg = render.bars(counts, "t", "rank", "tokens", bins=["low", "mid", "high"], xname="ranks")
    series = [re.findall(rf'<rect class="wt-s{s}"[^>]*/>', svg) for s in range(2)]
    points = [{"at": [at_centre(box_of(pair))[0], BOX[3] - 1], "item": box_of(pair), "cur": {"i": k, "j": 0},
               "texts": [f"ranks {name}: tied: {counts['tied'][k]} tokens, untied: {counts['untied'][k]} tokens"]}
              for k, (name, pair) in enumerate(zip(["low", "mid", "high"], zip(*series)))]
    return {"fig": fig_of(svg), "points": points}


def strips_case() -> dict:
    groups = {"aligned": [0.91, 1.02, float("nan"), 0.95], "misaligned": [1.4, 1.25], "none yet": []}
    svg = render.strips(groups, {"aligned": (0.8, 1.2)}, "ratios", "ratio", rule=1.0)
    dots = re.findall(r'<circle class="wt-s0" [^>]*/>', svg)
    finite = [(k, name, v) for k, (name, ys) in enumerate(groups.items()) for v in ys if np.isfinite(v)]
    assert len(dots) == len(finite)
    band = {"aligned": ["(shaded: 0.8 to 1.2)", "0.91, 1.02, NaN, 0.95"]}
    points = [{"at": at_centre(box_of([d])), "item": box_of([d]), "cur": {"i": k, "j": 0},
               "texts": [f"{name}: ratio", render.shown(v), *band.get(name, [])]}
              for d, (k, name, v) in zip(dots, finite)]
    points.append({"at": [BOX[0] + (BOX[2] - BOX[0]) * 2.5 / 3, 100.0], "item": [BOX[0] + (BOX[2] - BOX[0]) * 2.5 / 3, BOX[1], 0, BOX[3] - BOX[1]],
                   "cur": {"i": 2, "j": 0}, "texts": ["none yet: ratio none yet"]})
    return {"fig": fig_of(svg), "points": points}


def cases() -> dict:
    """What readout.test.mjs checks readout.js against (tests/node/readout.json holds it: tests/node_fixtures.py),
    with the rules it reads them by (the page config's "readout")."""
    rules = render.readout_rules()
    return {"rules": rules,
            "g": [[x, digits, f"{x:.{digits}g}"] for digits in (3, rules["digits"]) for x in AWKWARD],
            "shown": [[json.loads(render._jnum(x)), render.shown(x)]
                      for x in AWKWARD + [float("inf"), -float("inf"), float("nan"), 50257]],
            "figures": [heatmap_case(), floor_case(), curve_case(), one_point_case(), bars_case(), two_series_case(),
                        strips_case()]}


def test_readout_functions_under_node(tmp_path):
    node = shutil.which("node")
    assert node, "node is not on PATH (./dev installs nodejs as root)"
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases()))
    proc = subprocess.run([node, "--test", str(ROOT / "tests" / "node" / "readout.test.mjs")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={"WT_READOUT_CASES": str(path), "PATH": ""})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 10" in proc.stdout, proc.stdout[-1000:]


def test_figures_carry_their_data_but_a_saved_file_does_not():
    z = np.array([[1.0, np.inf], [1e-5, 12345.6]])
    svg = render.heatmap(z, [0.1, 0.2], [1, 2], "t", "σ", "inScale", zname="scale's <value>")
    fig = fig_of(svg)
    assert fig["kind"] == "heatmap" and fig["z"] == "scale's <value>" and fig["box"] == list(render.box(heat=True))
    assert fig["zs"] == [[1, "overflow (inf)"], [1e-5, 12350]] and 'tabindex="0"' in svg
    saved = render.standalone([svg], "http://x/?a=1#s")
    assert "data-fig" not in saved and "tabindex" not in saved and "<rect" in saved


@pytest.mark.parametrize("x, text", [(12345.6, "12350"), (1e-5, "1e-05"), (0.125, "0.125"), (64, "64"),
                                     (float("inf"), "overflow (inf)"), (1e20, "1e+20")])
def test_shown_is_num_with_whole_numbers_in_full(x, text):
    assert render.shown(x) == text
