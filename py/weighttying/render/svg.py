"""A figure's <svg>: its viewBox, accessible name and description, the readout's data on its root, and a
figure saved as a standalone .svg file."""
from __future__ import annotations

import json
import re
from typing import Iterable, Sequence

from .. import colours
from ..markup import escape
from .numbers import DIGITS, WHOLE_BELOW, shown

W, H = 480, 240  # SVG viewBox; the page scales it to the column width (every unit of height is 1.25 px of page
# at 600 px)
STRIP_SPREAD, DOT_R = 0.15, 4  # a strip chart's dots: spread over this share of a column either side of its middle


def _svg(body: str, title: str, desc: str, data: str = "") -> str:
    """Wrap SVG content with its accessible name and description; given readout data (`_data`), the figure
    is focusable and carries it on the root element, which `standalone` leaves out of a saved file."""
    fig = f" tabindex=\"0\" data-fig='{_attr(data)}'" if data else ""
    return diagram(body, title, desc, W, H, fig)


def diagram(body: str, title: str, desc: str, width: float, height: float, attrs: str = "") -> str:
    """SVG content in the figures' look (class wt-fig) with its accessible name and description, in a viewBox
    WIDTH x HEIGHT; ATTRS, already escaped, go on its root (a drawing that plots no data: weighttying.front)."""
    return (f'<svg class="wt-fig" viewBox="0 0 {width} {height}" role="img"{attrs} xmlns="http://www.w3.org/2000/svg">'
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>{body}</svg>")


def _desc(parts: Sequence[str], alt: str) -> str:
    """A figure's accessible description: what it plots, then the caller's full account of it (`alt`: the
    values a caption under the figure would only list)."""
    return "; ".join(parts) + (f". {alt}" if alt else "")


# ---- the readout's data: what a figure shows, as site/readout.js reads it ------------------------------

def readout_rules() -> dict:
    """What site/readout.js reads a figure's data by (the page config's "readout"): `shown`'s significant figures
    and whole-number limit, and how `strips` spreads its dots; the rest of a figure's geometry is in its data."""
    return {"digits": DIGITS, "whole_below": WHOLE_BELOW, "strip_spread": STRIP_SPREAD, "dot_r": DOT_R}


def _jnum(x: object, digits: int = DIGITS) -> str:
    """x as a JSON token of the readout data: the shown number, its exponent short; other text quoted."""
    s = shown(x, digits)
    if not re.fullmatch(r"-?\d+(\.\d+)?(e[+-]\d+)?", s):
        return json.dumps(s, ensure_ascii=False)
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m[1] == "-" else "") + m[2], s)


def _jlist(xs: Iterable[object], digits: int = DIGITS) -> str:
    """A JSON list of readout numbers."""
    return "[" + ",".join(_jnum(x, digits) for x in xs) + "]"


def _data(kind: str, b: tuple, **parts: str) -> str:
    """The readout JSON of a figure: its kind, its plot box b, then parts already written as JSON."""
    return (f'{{"kind":"{kind}","box":{json.dumps([round(v, 1) for v in b], separators=(",", ":"))}'
            + "".join(f',"{k}":{v}' for k, v in parts.items()) + "}")


def _attr(text: str) -> str:
    """Text for a single-quoted attribute that no `<svg[^>]*>` match can end early (standalone's)."""
    return text.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;")


def _name(text: str) -> str:
    """A JSON string."""
    return json.dumps(text, ensure_ascii=False)


# ---- a figure as a file -----------------------------------------------------------------------------

# The page's figure colours (its light scheme: weighttying.colours) for a figure saved as a file.
FILE_CSS = colours.file_css()
FILE_BG = colours.LIGHT["bg"]  # a saved figure is light whatever the page showed


def standalone(fragments: Sequence[str], url: str) -> str:
    """A figure as an .svg file: the <svg> of each fragment (a slot, then its overlay) drawn on top of
    each other, the page's colours inline, and the link that reproduces it stamped under the plot."""
    bodies = [m.group(1) for f in fragments if (m := re.search(r"<svg[^>]*>(.*)</svg>", f, re.S))]
    if not bodies:
        bodies = [f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">No figure for these settings yet.</text>']
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H + 24}" width="{W * 2}" height="{(H + 24) * 2}" '
            f'font-family="sans-serif" font-size="11"><style>{FILE_CSS}</style><rect width="100%" height="100%" fill="{FILE_BG}"/>'
            + "".join(bodies) + f'<text x="4" y="{H + 16}" font-size="9">{escape(url)}</text></svg>')
