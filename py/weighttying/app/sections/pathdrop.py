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

from ... import state
from ...views import pathdrop as view
from ...views.kit import note, slot
from ..kit import RunSection, Runner, export_buttons, layout, on_document_ready
from ..store import Store


def collect(results: dict, point: dict) -> bool:
    """Every progress dict is a point of both curves."""
    results["points"].append(point)
    return True


def build(store: Store) -> pn.viewable.Viewable:
    """The path-drop section's Panel root, bound to store["pathdrop"]."""
    memo = store.differences

    def st() -> state.Pathdrop:
        return store.state_of("pathdrop")

    def known() -> dict | None:
        return view.known_numeric(st(), memo)

    if store.prebuilt and "pathdrop" in store.prebuilt:  # the default seed's central differences, from the build
        view.adopt(state.Pathdrop(), store.prebuilt["pathdrop"], memo)

    def draw(run: RunSection) -> None:
        if (num := known()) is None:  # the check Runner is computing them and draws when done
            run.slots["readout"].object = slot("readout", note("Computing central differences…"))
            return
        run.results["numeric"] = num
        run.slots.show()

    # a live run keeps the build's seed spread, which judges a single run
    run = RunSection(store, "pathdrop", "Train both", collect, fresh=lambda: {"points": []}, keep=("noise",),
                     draw=draw)
    check = Runner("Recompute central differences", lambda: view.iter_numeric(st(), memo), lambda: view.entries(st()),
                   on_step=lambda _: None, on_done=lambda last: run.draw())

    def seed_changed(*_) -> None:
        if known() is None:
            check.start()

    def shown() -> None:  # a seed the build did not compute (a shared link) is computed once the page shows it
        if known() is None and not check.job.running:
            check.start()

    def points() -> list[dict]:
        return run.results["points"]

    store["pathdrop"].param.watch(seed_changed, "seed")
    on_document_ready(shown)
    table_export = export_buttons(store, "pathdrop", "pathdrop-rows", lambda: (
        view.COLUMNS, view.table_rows(st(), view.rows(st(), num)) if (num := known()) is not None else []))

    def curves() -> tuple[tuple, list]:
        if not points():
            return view.CURVE_COLUMNS, []
        last = {n: points()[-1]["points"][n]["eval"] for n in view.CURVES}
        return view.CURVE_COLUMNS, view.curve_rows(st(), last, run.results.get("noise"))

    curve_export = export_buttons(store, "pathdrop", "pathdrop-curves", curves)
    return layout(store, "pathdrop", figures=("heatmap", "curves"),
                  before={"heatmap": [check.view()], "curves": [run.runner.view()]},
                  downloads=[table_export, curve_export])
