"""A section's root laid out as its prerender is (views.kit.compose): claim, controls beside the slots in the
view's order, pairs, and the "Data and downloads" card with every download."""
from __future__ import annotations

from typing import Mapping, Sequence

import panel as pn

from ...views import kit as views_kit
from ..store import Store, controls
from .panes import wrap_row
from .slot_panes import SECTION_SLOTS



# The card drawn as the prerender's <details class="wt-data"> (style.css): a rule above, a 2 rem line of
# bold text with a triangle, no box.
DATA_CARD_CSS = """
:host(.card) { box-shadow: none; outline: none; border-radius: 0; border-top: 1px solid var(--line, #d4d4d8);
               margin: 0.5rem 0 0 !important; }
.card-header { background: none; border-radius: 0; padding-inline: 0; height: 2rem; font: inherit; }
.card-header:hover { box-shadow: none; }
.card-button { color: inherit; font-size: 1rem; width: 1.2rem; }
.card-title { font-size: 1.05rem; font-weight: 600; }
"""
# style.css's .wt-block for the live pieces: the controls in a column beside the rest, which takes every pixel
# the column leaves (flex-grow 100 to 1); on a narrow screen the column takes a line of its own above.
SIDE = {"flex": "1 1 16rem", "max-width": "100%", "align-self": "flex-start"}  # sticky: site/live.css
MAIN = {"flex": "100 1 30rem", "min-width": "0"}


def layout(store: Store, section: str, figures: Sequence[str] = (), before: Mapping[str, Sequence] | None = None,
           downloads: Sequence = ()) -> pn.Column:
    """A section's root, laid out as its prerender is (views.kit.compose), in the one order of its view's SLOTS:
    the claim slot, the controls in a column beside the other slots (each `figures` slot drawn with its overlay
    and its SVG download, `Slots.figure`; `before[name]`, pieces that go just above slot name: a run strip, a
    status line), pairs side by side, and the view's DATA slots with `downloads` and the figures' in one closed
    "Data and downloads" card (none for a section with nothing to put in it). The section's `Slots` hold its view."""
    slots = SECTION_SLOTS.get(store, {}).get(section)
    if slots is None:
        raise ValueError(f"section {section!r} has no Slots to lay out: make them (app.kit.Slots) before layout")
    view, before = slots.view, before or {}
    unknown = (set(figures) | set(before)) - (set(view.SLOTS) - set(view.OVERLAYS))
    if unknown:
        raise ValueError(f"section {section!r}: layout names {sorted(unknown)}, not a slot of its view (SLOTS) that "
                         "is placed on its own (an overlay goes with its figure)")
    bar = controls(store, section)
    bar.param.update(styles={**bar.styles, **SIDE}, sizing_mode="stretch_width")
    groups = {name: [*before.get(name, ()), slots.figure(name) if name in figures else slots[name]]
              for name in view.SLOTS if name not in view.OVERLAYS}
    for a, b in view.PAIRS:
        groups[a] = [wrap_row(pn.Column(*groups[a]), pn.Column(*groups.pop(b)))]
    main = [i for n, group in groups.items() if n != view.CLAIM and n not in view.DATA for i in group]
    inside = [*(i for n in view.DATA for i in groups[n]), *downloads, *slots.downloads]
    card = [pn.Card(*inside, title=views_kit.DATA_SUMMARY, collapsed=True, sizing_mode="stretch_width",
                    css_classes=["wt-data"], stylesheets=[DATA_CARD_CSS], margin=0)] if inside else []
    block = pn.Row(bar, pn.Column(slots.error, *main, styles=MAIN, sizing_mode="stretch_width"),
                   styles={"flex-wrap": "wrap", "column-gap": "1.5rem"}, css_classes=["wt-block"], sizing_mode="stretch_width")
    return pn.Column(*groups.get(view.CLAIM, []), block, *card, css_classes=[f"wt-{section}"], sizing_mode="stretch_width")
