"""The live sections, in page order (state.REGISTRY). A section is built by its declared app module's
`build(store)`, or, when it declares none, by `generic`: its view's slots beside its controls, from the shared
kit (app/kit/). app.main embeds the root into the section's `<div id="live-<id>">`, which the build wraps
around its prerender."""
from __future__ import annotations

import importlib

import panel as pn

from ... import state
from ...views import contract
from ..kit import Slots, layout
from ..store import Store

SECTIONS = state.SECTIONS


def generic(store: Store, sid: str) -> pn.viewable.Viewable:
    """A section with no controls of its own beyond the shared ones: every slot follows every control."""
    Slots(store, sid).redraw_on()
    return layout(store, sid, figures=tuple(contract.view(sid).OVERLAYS.values()))


def build(store: Store, sid: str) -> pn.viewable.Viewable:
    """Section sid's Panel root: its app module's, or the generic one."""
    app = state.SECTION[sid].app
    return importlib.import_module(app).build(store) if app else generic(store, sid)
