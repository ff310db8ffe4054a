"""Prerendered tables and figures: escaped, non-finite values named, data carried as text."""
import numpy as np

from weighttying import render as R


def test_table_escapes_and_names_non_finite():
    t = R.table(["a<b"], [["<script>x</script>"], [float("inf")], [float("nan")]], "c&d", "t1")
    assert "<script>" not in t and "&lt;script&gt;" in t and "a&lt;b" in t and "c&amp;d" in t
    assert "overflow (inf)" in t and "NaN" in t and 'data-testid="t1"' in t


def test_figures_carry_a_text_alternative():
    z = np.array([[1.0, 10.0], [np.inf, 0.1]])
    h = R.heatmap(z, [1, 2], [3, 4], "scales", "sigma", "inScale", mark=z < 2)
    assert "<title>scales</title>" in h and "1 cells not finite" in h and "2 cells marked" in h
    line = R.lines({"tied": [3.0, 2.0, 1.5]}, "loss", "step", "loss")
    assert "tied: 3 points, first 3, last 1.5" in line
    assert "peak 5 at 1" in R.bars([1, 5, 2], "ranks", "rank", "count")
