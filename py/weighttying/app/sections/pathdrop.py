"""Live section: dropping a path into the tied E gives a gradient that is exactly right on most rows.

Central differences of every entry are computed once per seed (a Runner: in steps, cancellable,
kept in the store's memo, shared with the gradient check; the default seed's come with the build's results); the input/output toggles
and k then only redo the analytic side, so every slot follows a flip at once. The curves start as
the build's correct-vs-broken race; Train reruns it live, streaming into the curves slot through a
second Runner (its points are `views.pathdrop.results`' "points", built up as they arrive).
"""
from __future__ import annotations

import panel as pn

from ... import state as S
from ...views import pathdrop as V
from ...views.kit import note, slot
from ..kit import DRAW_S, Runner, Slots, built, every, export_buttons, kept, layout, on_document_ready, without_build
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The path-drop section's Panel root, bound to store["pathdrop"]."""
    st = lambda: store.state_of("pathdrop")  # noqa: E731
    memo = store.differences
    if store.built and "pathdrop" in store.built:  # the default seed's central differences, from the build
        V.adopt(S.Pathdrop(), store.built["pathdrop"], memo)
    run: dict = built(store, "pathdrop", V) or {"points": []}  # the race shown, for the current steps, lr, seed
    slots = Slots(store, "pathdrop", V, lambda: {**run, "numeric": V.known_numeric(st(), memo)})

    def show(*_) -> None:
        if V.known_numeric(st(), memo) is not None:
            slots.show()
        else:  # the check Runner is computing them and shows the slots when done
            slots["readout"].object = slot("readout", note("Computing central differences…"))

    check = Runner("Recompute central differences", lambda: V.iter_numeric(st(), memo), lambda: V.entries(st()),
                   on_step=lambda _: None, on_done=lambda last: show())
    redraw = every(DRAW_S, show)

    def train_steps():
        run.clear()  # a live run: the build's points and their origin go; its seed spread judges the run
        run.update(points=[], **kept(store, "pathdrop", ("noise",)))
        show()
        return V.iter_curves(st())

    def on_train_step(pt: dict) -> None:
        run["points"].append(pt)
        redraw()

    train = Runner("Train both", train_steps, lambda: st().steps, on_train_step, lambda last: redraw(True))

    def on_seed(*_) -> None:
        if V.known_numeric(st(), memo) is None:
            check.start()
        show()

    def on_run_settings(*_) -> None:
        """New run settings train at once; back at the defaults, the build's race shows again."""
        again = built(store, "pathdrop", V)
        if again is None:
            train.start()
            return
        if train.job.running:
            train.stop("Settings changed: the run was stopped.")
        run.clear()
        run.update(again)
        show()

    p = store["pathdrop"]
    p.param.watch(on_run_settings, list(V.RUN_KEYS))  # first: a new seed's slots never show the old run
    p.param.watch(show, ["input", "output", "k"])
    p.param.watch(on_seed, "seed")
    # a seed the build did not compute (a shared link) is computed once the page shows the section
    on_document_ready(lambda: V.known_numeric(st(), memo) is not None or check.job.running or check.start())
    without_build(store, "pathdrop", V, lambda: run["points"] or train.job.running or train.start())
    show()
    table_export = export_buttons(store, "pathdrop", "pathdrop-rows",
                                  lambda: (V.COLUMNS, V.table_rows(st(), V.rows(st(), num))
                                           if (num := V.known_numeric(st(), memo)) is not None else []))
    curve_export = export_buttons(store, "pathdrop", "pathdrop-curves", lambda: (V.CURVE_COLUMNS, V.curve_rows(
        st(), {n: run["points"][-1]["points"][n]["eval"] for n in V.CURVES}, run.get("noise")) if run["points"] else []))
    return layout(store, "pathdrop",
                  [slots["readout"], slots.error, slots["table"], table_export, slots["kcheck"], slots["trap"]],
                  [check.view(), slots.figure("heatmap"), train.view(), slots.figure("curves"), slots["finals"], curve_export])
