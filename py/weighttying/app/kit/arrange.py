"""A section's root laid out as its prerender is (views.kit.compose): claim, controls beside the slots, pairs,
and the "Data and downloads" card with every download."""
from __future__ import annotations

from typing import Callable, Iterator, Sequence

import panel as pn

from ...views import kit as views_kit
from ..store import Store, controls
from .panes import wrap_row
from .slots import SECTION_SLOTS



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


def parts(item) -> Iterator:
    """item and every Panel object inside it, depth first."""
    yield item
    for child in getattr(item, "objects", None) or []:
        yield from parts(child)


def is_download(item, slot_ids: set[int]) -> bool:
    """Whether item is downloads (export buttons, a figure's SVG, their labels) and no slot, so it belongs
    in "Data and downloads"."""
    inside = list(parts(item))
    return (any("wt-exports" in (getattr(p, "css_classes", None) or []) for p in inside)
            and not any(id(p) in slot_ids for p in inside))


def pluck(item, take: Callable[[object], bool]) -> list:
    """Remove from inside item (not item itself) every piece take() wants, and the boxes that leaves
    empty; return the pieces removed, in order."""
    out = []
    for child in list(getattr(item, "objects", None) or []):
        if take(child):
            out.append(child)
            item.remove(child)
        else:
            out += pluck(child, take)
            if getattr(child, "objects", None) == []:
                item.remove(child)
    return out


def layout(store: Store, section: str, side: Sequence, below: Sequence = ()) -> pn.Column:
    """A section's root, laid out as its prerender is (views.kit.compose): the claim slot, the controls in
    a column beside the slots in the view's order (each with the run strip handed over just before it), pairs side
    by side, and the view's DATA slots with every download in one closed "Data and downloads" card (none for a
    section with nothing to put in it).
    `side` and `below` are the section's pieces in its own reading order."""
    slots = SECTION_SLOTS.get(store, {}).get(section)
    bar = controls(store, section)
    bar.param.update(styles={**bar.styles, **SIDE}, sizing_mode="stretch_width")
    if slots is None:  # a section without Slots: its pieces as given
        return pn.Column(bar, *side, *below, css_classes=[f"wt-{section}"], sizing_mode="stretch_width")
    view, owner = slots.view, {id(p): n for n, p in slots.panes.items()}
    groups: dict[str, list] = {}
    waiting, downloads, tail = [], [], []
    data_panes = {id(slots.panes[n]) for n in view.DATA}
    for item in [*side, *below]:  # data slots and downloads a section nested beside a figure come out first
        if is_download(item, set(owner)):
            continue
        for piece in pluck(item, lambda c: id(c) in data_panes or is_download(c, set(owner))):
            (groups.setdefault(owner[id(piece)], []) if id(piece) in owner else downloads).append(piece)
    for item in [*side, *below]:
        name = next((owner[id(p)] for p in parts(item) if id(p) in owner), None)
        if item is slots.error:
            continue
        if name is None and is_download(item, set(owner)):
            downloads.append(item)
        elif name is None:
            waiting.append(item)  # a run strip or a status line: it goes with the slot it computes, the next
        else:
            groups[name] = [*waiting, item]
            waiting = []
    tail = waiting
    placed = {owner[id(p)] for g in groups.values() for i in g for p in parts(i) if id(p) in owner}
    for name in view.SLOTS:  # slots the section did not hand over (the claim) go where the view puts them
        if name not in placed and name not in view.OVERLAYS:
            groups[name] = [slots.panes[name]]
    for a, b in view.PAIRS:
        if b in groups and a in groups:
            groups[a] = [wrap_row(pn.Column(*groups[a]), pn.Column(*groups.pop(b)))]
    order = sorted(groups, key=view.SLOTS.index)
    main = [i for n in order if n != view.CLAIM and n not in view.DATA for i in groups[n]]
    data = [i for n in order if n in view.DATA for i in groups[n]]
    inside = [*data, *downloads, *slots.downloads]
    card = [pn.Card(*inside, title=views_kit.DATA_SUMMARY, collapsed=True, sizing_mode="stretch_width",
                    css_classes=["wt-data"], stylesheets=[DATA_CARD_CSS], margin=0)] if inside else []
    block = pn.Row(bar, pn.Column(slots.error, *main, *tail, styles=MAIN, sizing_mode="stretch_width"),
                   styles={"flex-wrap": "wrap", "column-gap": "1.5rem"}, css_classes=["wt-block"], sizing_mode="stretch_width")
    return pn.Column(*groups.get(view.CLAIM, []), block, *card, css_classes=[f"wt-{section}"], sizing_mode="stretch_width")
