"""Live section: two matrices or one. V and d set the toy's shape; the readout and table give its
parameter count tied and untied, recomputed in place on every change (microseconds: no Runner)."""
from __future__ import annotations

import html
from typing import Callable

import panel as pn

from ...views.tying import count_rows, notation, slots
from ..store import Store, controls
from ..widgets import export_buttons
from .repeat import html_pane, wrap_row


def guarded(pane: pn.pane.HTML, render: Callable[[], str]) -> None:
    """pane.object = render(), or a readable message in the section if the numerics refuse the setting."""
    try:
        pane.object = render()
    except Exception as err:  # a reader's setting must never become a traceback
        pane.object = f'<p class="wt-status wt-bad" role="alert">Cannot compute this setting: {html.escape(str(err))}</p>'


def build(store: Store) -> pn.viewable.Viewable:
    """The tying section's Panel root, bound to store["tying"]."""
    p = store["tying"]
    readout = html_pane()
    counts = lambda: "".join(v for k, v in slots(store.state.tying).items() if k != "notation")  # noqa: E731
    guarded(readout, counts)
    p.param.watch(lambda *_: guarded(readout, counts), ["V", "d"])
    exports = export_buttons(store, "tying", "tying-parameter-count", lambda: count_rows(p.V, p.d))
    return pn.Column(
        wrap_row(controls(store, "tying"), pn.Column(readout, exports)),
        html_pane(notation()),
        css_classes=["wt-tying"], sizing_mode="stretch_width")
