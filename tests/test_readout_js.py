"""site/readout.js's pure functions (tests/node/readout.test.mjs under `node --test`) against what CPython
draws: render.num's and render.shown's text for awkward numbers, and the sections' own figures (sweep's
heatmap, savings' curve, repeat's histogram, a strip chart), each drawn cell, point and bar mapped back to the value the
view computed. Also: a figure's readout data stays out of a saved SVG file."""
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
           2.5e-7, 123.456, 0.1 + 0.2, 64.0, 1 / 3]
BOX = render.box()  # a bar or strip chart's plot area (x0, y0, x1, y1), no heading


def fig_of(svg: str) -> dict:
    """The readout data a figure carries."""
    return json.loads(html.unescape(re.search(r"data-fig='([^']*)'", svg)[1]))


def attrs(tag: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r'(x|y|width|height)="([-\d.]+)"', tag)}


def heatmap_case() -> dict:
    kind, key = state.Sweep().grid, "resid"
    svg, z = sweep.heatmap(kind, state.Sweep().band, key), sweep.scales(kind)[key].T
    g = sweep.scales(kind)
    cells = [attrs(t) for t in re.findall(r"<rect [^>]*/>", svg)]
    ny, nx = z.shape
    points = [{"at": [c["x"] + c["width"] / 2, c["y"] + c["height"] / 2], "cur": {"i": k // nx, "j": k % nx},
               "texts": [render.shown(g["sigmas"][k % nx]), render.shown(g["in_scales"][k // nx]), render.shown(z[k // nx, k % nx])]}
              for k, c in enumerate(cells)]
    assert len(points) == z.size
    return {"fig": fig_of(svg), "points": points}


def curve_case() -> dict:
    values = savings.settled(state.Savings())
    svg, ys = savings.figure(values), savings.series(values)
    first = re.search(r'<polyline [^>]*points="([^"]+)"', svg)[1].split()
    points = [{"at": [float(p.split(",")[0]), float(p.split(",")[1])], "cur": {"i": k, "j": 0},
               "texts": [f"V {render.shown(savings.CURVE_V[k])}:"] + [f"{name} {render.shown(y[k])}" for name, y in ys.items()]}
              for k, p in enumerate(first)]
    return {"fig": fig_of(svg), "points": points}


def bars_case() -> dict:
    st = state.Repeat()
    ranks = repeat.init_ranks_now(st)
    h = repeat.histogram(ranks)
    svg = repeat.hist_html(st, ranks, [])
    bars = [attrs(t) for t in re.findall(r'<rect class="wt-s0"[^>]*/>', svg)]
    names = repeat.bin_names(h["edges"])
    points = [{"at": [b["x"] + b["width"] / 2, BOX[3] - 5], "cur": {"i": k, "j": 0},
               "texts": [f"ranks {names[k]}:", f"{render.shown(h['counts'][k])} tokens"]} for k, b in enumerate(bars)]
    return {"fig": fig_of(svg), "points": points}


def strips_case() -> dict:
    groups = {"aligned": [0.91, 1.02, float("nan"), 0.95], "misaligned": [1.4, 1.25], "none yet": []}
    svg = render.strips(groups, {"aligned": (0.8, 1.2)}, "ratios", "ratio", rule=1.0)
    dots = [tuple(map(float, d)) for d in re.findall(r'<circle class="wt-s0" cx="([-\d.]+)" cy="([-\d.]+)"', svg)]
    finite = [(k, name, v) for k, (name, ys) in enumerate(groups.items()) for v in ys if np.isfinite(v)]
    assert len(dots) == len(finite)
    band = {"aligned": ["(shaded: 0.8 to 1.2)", "0.91, 1.02, NaN, 0.95"]}
    points = [{"at": list(d), "cur": {"i": k, "j": 0}, "texts": [f"{name}: ratio", render.shown(v), *band.get(name, [])]}
              for d, (k, name, v) in zip(dots, finite)]
    points.append({"at": [BOX[0] + (BOX[2] - BOX[0]) * 2.5 / 3, 100.0], "cur": {"i": 2, "j": 0},
                   "texts": ["none yet: ratio none yet"]})
    return {"fig": fig_of(svg), "points": points}


def cases() -> dict:
    """What readout.test.mjs checks readout.js against (tests/node/readout.json holds it: tests/node_fixtures.py)."""
    return {"g4": [[x, f"{x:.4g}"] for x in AWKWARD if x != 0] + [[0.0, "0"]],
            "shown": [[json.loads(render._jnum(x)), render.shown(x)] for x in AWKWARD + [float("inf"), float("nan"), 50257]],
            "figures": [heatmap_case(), curve_case(), bars_case(), strips_case()]}


def test_readout_functions_under_node(tmp_path):
    node = shutil.which("node")
    assert node, "node is not on PATH (./dev installs nodejs as root)"
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases()))
    proc = subprocess.run([node, "--test", str(ROOT / "tests" / "node" / "readout.test.mjs")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={"WT_READOUT_CASES": str(path), "PATH": ""})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 9" in proc.stdout, proc.stdout[-1000:]


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
