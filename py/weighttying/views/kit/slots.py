"""A section's output as the page holds it: each slot in its box, overlays, pairs, the claim, the controls'
column and the "Data and downloads" disclosure (views.kit.compose; app.kit.layout lays the live one out alike)."""
from __future__ import annotations

from typing import Sequence

from ...markup import escape
from .tables import note



def slot(name: str, inner: str) -> str:
    """One slot of a section as the page holds it: prerendered, played back or live."""
    return f'<div class="wt-slot" data-slot="{escape(name)}">{inner}</div>'


DATA_SUMMARY = "Data and downloads"
DATA_BEFORE = ("Downloads of every table and figure (CSV, JSON, SVG, each stamped with the link that reproduces "
               "it) appear here once the live lab has loaded.")


def compose(slots: dict[str, str], overlays: dict[str, str] | None = None, pairs: Sequence[Sequence[str]] = (),
            data: Sequence[str] = (), claim: str = "", controls: str = "", downloads: bool = True) -> str:
    """A section's output: its slots in display order, each in its wt-slot box; an overlay slot
    (OVERLAYS: {overlay: the slot it is drawn over}, listed right after it) shares a wt-stack box with
    the slot below it, where CSS draws the two in the same place; each of `pairs` (adjacent slots that
    compare) side by side in a wt-pair box; the `data` slots (the last ones) in the section's closed
    "Data and downloads" disclosure, which the live lab fills with the downloads too (no disclosure for a section
    with neither data slots nor `downloads`). The `claim` slot (the first) opens it; then `controls` (the section's
    controls) in a column beside the rest (wt-block)."""
    below = {base: over for over, base in (overlays or {}).items()}
    pieces: dict[str, str] = {}
    for name, inner in slots.items():
        if name in below:
            pieces[name] = f'<div class="wt-stack">{slot(name, inner)}{slot(below[name], slots[below[name]])}</div>'
        elif name not in (overlays or {}):
            pieces[name] = slot(name, inner)
    for a, b in pairs:
        pieces[a] = f'<div class="wt-pair">{pieces[a]}{pieces.pop(b)}</div>'
    main = "".join(p for name, p in pieces.items() if name not in data and name != claim)
    block = f'<div class="wt-block"><div class="wt-side">{controls}</div><div class="wt-main">{main}</div></div>'
    box = data_box("".join(pieces[name] for name in data) + note(DATA_BEFORE, testid="data-before"))
    return pieces.get(claim, "") + block + (box if data or downloads else "")


def data_box(inner: str) -> str:
    """The section's "Data and downloads" disclosure, closed."""
    return f'<details class="wt-data" data-testid="data"><summary>{DATA_SUMMARY}</summary>{inner}</details>'
