"""Live section: the sigma / inScale initialisation sweep.

Sliders (log scale, applied on release) set sigma and inScale; the readout shows both scales for that
setting and the heatmaps both scales over the grid, cells in the band outlined. Every slot is redrawn
from views.sweep on a change (one forward pass; the grids are memoised there); unchanged slots send nothing.
"""
from __future__ import annotations

import panel as pn

from ...views import sweep as view
from ..kit import Slots, export_buttons, layout
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The sweep section's Panel root, bound to store["sweep"]."""
    Slots(store, "sweep").redraw_on()
    return layout(store, "sweep", figures=("resid", "logit"),
                  downloads=[export_buttons(store, "sweep", "sweep", lambda: view.rows(store.state_of("sweep")))])
