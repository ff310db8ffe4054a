"""The one rule for written numbers (weighttying.precision) and the noise the page does not write (shown_errors)."""
from __future__ import annotations

import json
import math
import re

import numpy as np

from weighttying import render
from weighttying.precision import DIGITS, carried, carry
from weighttying.views import kit


def test_two_kernels_last_bits_write_the_same_number():
    # the paper section's numbers under two OpenBLAS kernels, as a fresh machine once wrote them
    assert carried(0.18455257700142175) == carried(0.18455257700178887) == 0.184553
    assert carried(1.6818235435516244) == carried(1.6818235435516247) == 1.68182


def test_carried_keeps_digits_and_kinds():
    assert carried(np.float64(2.0 / 3)) == 0.666667 and type(carried(np.float64(1.5))) is float
    assert carried(np.array(0.125)) == 0.125 and carried(np.int64(7)) == 7 and type(carried(np.int64(7))) is int
    assert carried(True) is True and carried("text") == "text" and carried(3) == 3
    assert math.isnan(carried(float("nan"))) and carried(float("inf")) == float("inf")
    assert carried(1.23456789e-300) == 1.23457e-300  # digits are significant, not decimal places
    x = 0.1 + 0.2
    assert carried(carried(x)) == carried(x)  # carrying twice changes nothing
    assert len(repr(carried(math.pi)).replace(".", "")) == DIGITS


def test_carry_walks_plain_data_and_arrays():
    data = {"a": [np.float64(1 / 3), (2, np.array([0.5, 1 / 7]))], "b": None, "c": {"d": np.bool_(True)}}
    assert carry(data) == {"a": [0.333333, [2, [0.5, 0.142857]]], "b": None, "c": {"d": True}}
    assert json.loads(json.dumps(carry(data))) == carry(data)


def test_a_hook_writes_the_carried_number():
    assert 'data-value="0.333333">0.3333<' in kit.hook("x", 1 / 3)


def test_agreeing_errors_are_not_written_and_wrong_ones_are():
    err = np.array([[1e-12, 3.3e-6, 1e-4], [1.5e-4, 0.5, 0.0]])
    assert kit.shown_errors(err).tolist() == [[0.0, 0.0, 0.0], [1.5e-4, 0.5, 0.0]]


def test_the_error_heatmap_reads_an_agreeing_entry_as_at_most_tol_on_a_fixed_scale():
    rng = np.random.default_rng(0)
    quiet = rng.uniform(1e-13, 1e-9, (64, 16))  # rounding noise: a different draw on another machine
    other = rng.uniform(1e-13, 1e-9, (64, 16))
    inputs = np.arange(8)
    assert kit.error_heatmap(quiet, inputs, "t") == kit.error_heatmap(other, inputs, "t")
    wrong = quiet.copy()
    wrong[3] = 0.25
    svg = kit.error_heatmap(wrong, inputs, "t")
    fig = json.loads(re.search(r"data-fig='([^']*)'", svg)[1].replace("&#39;", "'").replace("&amp;", "&"))
    cells = {v for row in fig["zs"] for v in row}
    assert cells == {"≤ 0.0001", 0.25} and "Rows of E over 0.0001: 1 of 64 (3)" in svg


def test_a_heatmap_without_a_range_still_spans_its_values():
    svg = render.heatmap(np.array([[1.0, 10.0], [100.0, 1000.0]]), [0, 1], [0, 1], "t", "x", "y")
    assert "log10 of the value spans 0 to 3" in svg
