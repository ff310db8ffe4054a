"""Comparing a number the page wrote with the same number computed here in full precision.

The page carries DIGITS significant digits of every number (weighttying.precision), and a number it derives from
carried numbers (a mean of ratios, a difference) may differ from the same number derived from exact ones in its
last carried digit: `near` allows ten units of it. A number written as computed is compared with `carried`,
exactly."""
from __future__ import annotations

from weighttying.precision import DIGITS, carried

REL = 10.0 ** (1 - DIGITS)  # ten units of the last carried digit, relative


def near(written: float, exact: float) -> bool:
    """Whether a number the page derived from carried numbers is the exact one, to the digits it carries."""
    return abs(float(written) - float(exact)) <= REL * abs(float(exact))


__all__ = ["carried", "near"]
