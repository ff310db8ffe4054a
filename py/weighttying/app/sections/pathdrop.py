"""Live section: dropping a path into the tied E gives a gradient that is exactly right on most rows.

Central differences of every entry are computed once per seed (a Runner: in steps, cancellable,
memoised in views.kit); the input/output toggles and k then only redo the analytic side, so every
slot follows a flip at once. The correct and the broken training runs stream into the curves slot
through a second Runner; its points are `views.pathdrop.results`, built up as they arrive.
"""
from __future__ import annotations

import panel as pn

from ...views import pathdrop as V
from ...views.kit import note, slot
from ..kit import DRAW_S, Runner, Slots, every, export_buttons, layout, on_document_ready
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The path-drop section's Panel root, bound to store["pathdrop"]."""
    st = lambda: store.state_of("pathdrop")  # noqa: E731
    ready: set = set()  # seeds whose central differences are in (slots need them)
    run: dict = {"points": []}  # the training race so far, for the current steps, lr and seed
    slots = Slots(store, "pathdrop", V, lambda: run)

    def show(*_) -> None:
        if st().seed in ready:
            slots.show()
        else:  # the check Runner is computing them and shows the slots when done
            slots["readout"].object = slot("readout", note("Computing central differences of every entry…"))

    def got_numeric(last: dict | None) -> None:
        ready.add(pending["seed"])
        show()

    pending: dict = {}  # the seed the running central differences belong to

    def numeric_steps():
        pending["seed"] = st().seed
        return V.iter_numeric(st())

    check = Runner("Recompute central differences", numeric_steps, lambda: V.entries(st()),
                   on_step=lambda _: None, on_done=got_numeric)
    redraw = every(DRAW_S, show)

    def train_steps():
        run["points"] = []
        show()
        return V.iter_curves(st())

    def on_train_step(pt: dict) -> None:
        run["points"].append(pt)
        redraw()

    train = Runner("Train both", train_steps, lambda: st().steps, on_train_step, lambda last: redraw(True))

    def on_seed(*_) -> None:
        if st().seed not in ready:
            check.start()
        show()

    def first_start() -> None:
        """Once, when the page has embedded the section (the event may come more than once)."""
        if not (ready or check.job.running):
            check.start()
        if not (run["points"] or train.job.running):
            train.start()

    p = store["pathdrop"]
    p.param.watch(lambda *_: train.start(), list(V.RUN_KEYS))  # first: a new seed's slots never show the old run
    p.param.watch(show, ["input", "output", "k"])
    p.param.watch(on_seed, "seed")
    on_document_ready(first_start)
    show()
    table_export = export_buttons(store, "pathdrop", "pathdrop-rows",
                                  lambda: (V.COLUMNS, V.table_rows(st(), V.rows(st(), V.numeric(st())))
                                           if st().seed in ready else []))
    curve_export = export_buttons(store, "pathdrop", "pathdrop-curves", lambda: (V.CURVE_COLUMNS, V.curve_rows(
        st(), {n: run["points"][-1]["points"][n]["eval"] for n in V.CURVES}) if run["points"] else []))
    return layout(store, "pathdrop",
                  [slots["readout"], slots.error, slots["table"], table_export, slots["kcheck"], slots["trap"]],
                  [check.view(), slots["heatmap"], train.view(), slots["curves"], slots["finals"], curve_export])
