"""Numbers with test hooks: every shown number carries data-testid and data-value = repr(x) of x as the page
carries it (precision.carried), so played-back and live values compare exactly on any machine."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...markup import escape
from ... import render
from ...precision import carried



def plain_number(x: object) -> object:
    """numpy scalars as plain int / float (so repr and JSON see ordinary numbers)."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    return int(x) if isinstance(x, (int, np.integer)) else float(x) if isinstance(x, (float, np.floating)) else x


def hook(testid: str, x: object, text: str | None = None, tag: str = "strong") -> str:
    """A shown number: <tag data-testid data-value=repr(x carried)>text</tag> (text defaults to render.num)."""
    x = carried(plain_number(x))
    shown = render.num(x) if text is None else text
    return (f'<{tag} data-testid="{escape(testid)}" data-value="{escape(repr(x))}">'
            f"{escape(shown)}</{tag}>")


@dataclass(frozen=True)
class Num:
    """A number in a table cell with its test hook: data-testid and the exact repr."""
    testid: str
    x: float
