"""How many digits of a computed number the page carries: the one rule every writer of numbers uses.

A float from a training run or a matrix product is exact only to its last few bits, and those bits depend on the
machine: OpenBLAS picks a kernel for the CPU (its sums in another order), NumPy picks SIMD loops for exp and tanh,
and Pyodide's NumPy has no BLAS at all. Measured on one commit, the same build under three OpenBLAS kernels
(Haswell, SandyBridge, Prescott) wrote numbers that differ by at most 4.9e-11 of their size, most by under 1e-14.
Written at full `repr`, such a number makes the build's bytes a function of the CPU, not of the commit.

So every number the build writes for a reader or a test (a hook's data-value, results.json, the playback
tables' fragments, exports, the report's JSON) is `carried`: rounded to DIGITS significant digits. Half a unit
of the sixth digit is 5e-7 of the number, 10^4 times the largest difference measured, so two machines write
the same digits unless a number lies within that difference of a rounding edge (about one number in 10^4 at
the worst measured, one in 10^7 typically). The reader sees 4 digits (render.num); the two more let a test tell
apart numbers that display alike. Every verdict's tolerance (seed noise, about 1e-2 of a number) is far coarser.

A quantity that is itself rounding noise cannot be carried this way: its leading digits differ between
machines. The gradient check's relative error of an entry that agrees is one (views.kit.heatmap.shown_errors).
"""
from __future__ import annotations

import math

import numpy as np

DIGITS = 6


def carried(x: object) -> object:
    """A finite float to DIGITS significant digits; a NumPy scalar (or 0-d array) as its plain Python number;
    anything else unchanged."""
    if isinstance(x, np.generic) or (isinstance(x, np.ndarray) and x.ndim == 0):
        x = x.item()
    if isinstance(x, float) and math.isfinite(x):
        return float(f"{x:.{DIGITS}g}")
    return x


def carry(data: object) -> object:
    """`carried` over plain data: dicts, lists and tuples (as lists) and NumPy arrays (as lists) of numbers."""
    if isinstance(data, dict):
        return {k: carry(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [carry(v) for v in data]
    if isinstance(data, np.ndarray):
        return carry(data.tolist())
    return carried(data)
