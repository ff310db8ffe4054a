"""Live section: the repeat bias of a tied model with a residual stream.

The rank table at init, the current setting's readout and its rank histogram are cheap (a few
forward passes over the toy's tokens) and follow the controls directly. Training tied and untied side
by side is the section's run (kit.RunSection): at the default settings the trained slots show the
build's race; Train reruns it live, views.repeat.iter_race a chunk of CHUNK steps at a time, its rank
points streaming into the histogram, table and curve; a RUN_KEYS change waits for Train.
"""
from __future__ import annotations

import panel as pn

from ...views import repeat as view
from ..kit import RunSection, export_buttons, layout
from ..store import Store


def collect(results: dict, point: dict) -> bool:
    """A rank point joins the race shown; the ticks between them only move the Runner's bar."""
    if "tied" in point:
        results["points"].append(point)
    return "tied" in point


def build(store: Store) -> pn.viewable.Viewable:
    """The repeat section's Panel root, bound to store["repeat"]."""
    def st():
        return store.state_of("repeat")

    # a live run keeps the build's seed spread, which judges a single run
    run = RunSection(store, "repeat", "Train tied + untied", collect, fresh=lambda: {"points": []}, keep=("noise",))

    def points() -> list[dict]:
        return run.results["points"]

    init_export = export_buttons(store, "repeat", "repeat-ranks-at-init",
                                 lambda: (view.INIT_COLUMNS, view.init_rows(st().sigma, st().seed)))
    trained_export = export_buttons(store, "repeat", "repeat-ranks-trained", lambda: (view.TRAINED_COLUMNS,
        view.trained_rows(st(), points()[-1] if points() else None, run.results.get("noise") or {})))
    return layout(store, "repeat", figures=("hist", "curves"), before={"hist": [run.runner.view()]},
                  downloads=[init_export, trained_export])
