"""Playback grids: the values of a control the build's tables cover, by how a link holds its kind."""
from __future__ import annotations

import math
from typing import Iterable

from ... import state



def control(section: str, key: str) -> state.Control:
    """The spec of one control of a section."""
    return state.BY_KEY[f"{section}.{key}"]


def _numbers(section: str, c: state.Control, values: Iterable) -> tuple:
    presets = [p[c.name] for p in state.PRESETS.get(section, {}).values() if c.name in p]
    return tuple(sorted({c.type(v) for v in (*values, c.default, *presets) if c.lo <= v <= c.hi}))


# A kind's playback grid, by how a link holds it (state.Kind.url): a kind never in a link has none
GRIDS = {"number": _numbers, "onoff": lambda section, c, values: (False, True),
         "words": lambda section, c, values: tuple(c.choices)}


def grid(section: str, key: str, values: Iterable = ()) -> tuple:
    """A playback grid for one control: values (or every choice / both booleans), its default and
    every preset's value, in bounds, sorted and without repeats."""
    c = control(section, key)
    return GRIDS[c.spec.url](section, c, values)


def lin(lo: float, hi: float, step: float) -> list[float]:
    """lo, lo + step, ..., hi (slider positions), rounded to 12 decimals so 0.1 * 3 reads 0.3."""
    n = int(round((hi - lo) / step))
    return [round(lo + i * step, 12) for i in range(n + 1)]


def log(lo: float, hi: float, per_decade: int) -> list[float]:
    """A log grid from lo to hi with per_decade points per decade, to 3 significant figures."""
    a, b = math.log10(lo), math.log10(hi)
    n = int(round((b - a) * per_decade))
    return [float(f"{10 ** (a + i / per_decade):.3g}") for i in range(n + 1)]
