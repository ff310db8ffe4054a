"""Live section: it never halves. A preset or five numbers give a GPT-2-style model; the readout gives
what tying saves, and a log-V curve shows the share for every vocabulary size at the current width and
depth. Preset and numbers are one state on the store: watchers apply views.savings.reconcile, so a
preset fills in its numbers and editing a number switches to 'custom' (the URL follows)."""
from __future__ import annotations

import panel as pn

from ...views import savings as view
from ..kit import Slots, export_buttons, layout
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The savings section's Panel root, bound to store["savings"]."""
    p = store["savings"]

    def values() -> dict:
        return vars(store.state_of("savings"))

    p.param.update(**view.reconcile(values()))  # a shared link: make preset and numbers agree before drawing
    p.param.watch(lambda *_: p.param.update(**view.reconcile(values(), "preset")), "preset")
    p.param.watch(lambda event, *_: p.param.update(**view.reconcile(values(), event.name)), list(view.FIELDS))
    Slots(store, "savings").redraw_on()
    exports = export_buttons(store, "savings", "tying-savings-presets", view.preset_rows)
    return layout(store, "savings", figures=("curve",), downloads=[exports])
