"""Live section: two matrices or one. V and d set the toy's shape; the readout and tables give its
parameter count tied and untied, redrawn from views.tying on every change (arithmetic: no Runner)."""
from __future__ import annotations

import panel as pn

from ...views import tying as view
from ..kit import Slots, export_buttons, layout
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The tying section's Panel root, bound to store["tying"]."""
    Slots(store, "tying").redraw_on()
    exports = export_buttons(store, "tying", "tying-parameter-count",
                             lambda: view.count_rows(store.state_of("tying").V, store.state_of("tying").d))
    return layout(store, "tying", downloads=[exports])
