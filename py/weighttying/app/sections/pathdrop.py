"""Live section: dropping a path into the tied E gives a gradient that is exactly right on most rows.

Central differences of every entry are computed once per seed (a Runner: in steps, cancellable,
kept in the store's memo, shared with the gradient check; the default seed's come with the build's
results); the input/output toggles and k then only redo the analytic side, so every slot follows a
flip at once. The curves are the section's run (kit.RunSection): the build's correct-vs-broken race at
the defaults; Train reruns it live, streaming its points into the curves slot; a RUN_KEYS change
(steps, lr, seed) waits for Train.
"""
from __future__ import annotations

import panel as pn

from ... import state as S
from ...views import pathdrop as V
from ...views.kit import note, slot
from ..kit import RunSection, Runner, export_buttons, layout, on_document_ready
from ..store import Store


def collect(results: dict, point: dict) -> bool:
    """Every progress dict is a point of both curves."""
    results["points"].append(point)
    return True


def build(store: Store) -> pn.viewable.Viewable:
    """The path-drop section's Panel root, bound to store["pathdrop"]."""
    st, memo = lambda: store.state_of("pathdrop"), store.differences  # noqa: E731
    known = lambda: V.known_numeric(st(), memo)  # noqa: E731
    if store.built and "pathdrop" in store.built:  # the default seed's central differences, from the build
        V.adopt(S.Pathdrop(), store.built["pathdrop"], memo)

    def draw(run: RunSection) -> None:
        if (num := known()) is None:  # the check Runner is computing them and draws when done
            run.slots["readout"].object = slot("readout", note("Computing central differences…"))
            return
        run.results["numeric"] = num
        run.slots.show()

    # a live run keeps the build's seed spread, which judges a single run
    run = RunSection(store, "pathdrop", "Train both", collect, fresh=lambda: {"points": []}, keep=("noise",),
                     draw=draw)
    check = Runner("Recompute central differences", lambda: V.iter_numeric(st(), memo), lambda: V.entries(st()),
                   on_step=lambda _: None, on_done=lambda last: run.draw())
    store["pathdrop"].param.watch(lambda *_: known() is not None or check.start(), "seed")
    # a seed the build did not compute (a shared link) is computed once the page shows the section
    on_document_ready(lambda: known() is not None or check.job.running or check.start())
    points = lambda: run.results["points"]  # noqa: E731
    table_export = export_buttons(store, "pathdrop", "pathdrop-rows", lambda: (
        V.COLUMNS, V.table_rows(st(), V.rows(st(), num)) if (num := known()) is not None else []))
    curve_export = export_buttons(store, "pathdrop", "pathdrop-curves", lambda: (V.CURVE_COLUMNS, V.curve_rows(
        st(), {n: points()[-1]["points"][n]["eval"] for n in V.CURVES}, run.results.get("noise")) if points() else []))
    return layout(store, "pathdrop", figures=("heatmap", "curves"),
                  before={"heatmap": [check.view()], "curves": [run.runner.view()]},
                  downloads=[table_export, curve_export])
