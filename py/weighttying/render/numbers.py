"""Numbers as the page writes them (a cell's text, a readout's value) and the HTML tables that hold them."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from ..markup import escape

DIGITS = 4  # significant figures of a number in a table or a figure's readout
WHOLE_BELOW = 1e15  # whole numbers under this show in full (a vocabulary of 50257); from here on as `num`,
# where digits in full would be float noise (2**53 is 9.0e15)


def num(x: object, digits: int = DIGITS) -> str:
    """A cell's text: finite floats to `digits` significant figures, inf/NaN named as such."""
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (float, np.floating)):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "overflow (inf)" if x > 0 else "overflow (-inf)"
        return f"{x:.{digits}g}"
    return str(x)


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], caption: str = "",
          testid: str = "") -> str:
    """An accessible HTML table (escaped) with a caption and a data-testid for tests; each cell names its
    column (data-label), which a phone shows beside it when the rows become cards (style.css)."""
    head = "".join(f'<th scope="col">{escape(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f'<td data-label="{escape(c)}">{escape(num(v))}</td>'
                                    for v, c in zip(r, columns)) + "</tr>" for r in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    tid = f' data-testid="{escape(testid)}"' if testid else ""
    return f'<table class="wt-table"{tid}>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def shown(x: object, digits: int = DIGITS) -> str:
    """A number as the readout shows it: whole numbers in full digits (a vocabulary of 50257), others as
    `num` (`digits` significant figures) but whole once rounded (12345.6 as 12350); non-finite as `num`."""
    if isinstance(x, (float, np.floating, int, np.integer)) and not isinstance(x, (bool, np.bool_)) \
            and math.isfinite(x):
        r = float(x) if float(x).is_integer() else float(num(float(x), digits))
        return str(int(r)) if r.is_integer() and abs(r) < WHOLE_BELOW else num(r)
    return num(x)
