"""Live section: the repeat bias of a tied model with a residual stream.

The rank table at init, the current setting's readout and its rank histogram are cheap (a few
forward passes over the toy's tokens) and follow the controls directly. Training tied and untied side
by side is long work: at the default settings the trained slots show the build's race (store.built);
Train reruns it live, the Runner driving views.repeat.iter_race a chunk of CHUNK steps at a time, and
its rank points (`views.repeat.results`, built up as they arrive) stream into the histogram, table
and curve; Cancel stops it and a change of a RUN_KEYS field drops a run made for the old settings.
"""
from __future__ import annotations

import panel as pn

from ...views import repeat as V
from ..kit import DRAW_S, Runner, Slots, built, every, export_buttons, kept, layout, without_build, wrap_row
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The repeat section's Panel root, bound to store["repeat"]."""
    st = lambda: store.state_of("repeat")  # noqa: E731
    run: dict = built(store, "repeat", V) or {"points": []}  # the race shown, for the current RUN_KEYS
    slots = Slots(store, "repeat", V, lambda: run)
    redraw = every(DRAW_S, slots.show)

    def on_step(pt: dict) -> None:
        if "tied" in pt:  # a rank point; the ticks between them only move the Runner's bar
            run["points"].append(pt)
            redraw()

    def steps():
        run.clear()  # a live run: the build's points and their origin go; its seed spread judges the run
        run.update(points=[], **kept(store, "repeat", ("noise",)))
        slots.show()
        return V.iter_race(st())

    runner = Runner("Train tied + untied", steps, lambda: st().steps, on_step, lambda last: redraw(True))

    def on_run_settings(*_) -> None:
        """A run belongs to its settings: drop it (and stop one in flight) when they change."""
        if runner.job.running:
            runner.stop("Settings changed: the run was stopped. Press Train to train with the new settings.")
        run.clear()
        run.update(built(store, "repeat", V) or {"points": []})  # back at the defaults: the build's race
        slots.show()

    store["repeat"].param.watch(on_run_settings, list(V.RUN_KEYS))  # first: a new setting never shows an old run
    slots.follow(["tied"])
    without_build(store, "repeat", V, lambda: run["points"] or runner.job.running or runner.start())
    init_export = export_buttons(store, "repeat", "repeat-ranks-at-init",
                                 lambda: (V.INIT_COLUMNS, V.init_rows(st().sigma, st().seed)))
    trained_export = export_buttons(store, "repeat", "repeat-ranks-trained", lambda: (
        V.TRAINED_COLUMNS, V.trained_rows(st(), run["points"][-1] if run["points"] else None, run.get("noise") or {})))
    return layout(store, "repeat", [slots["readout"], slots.error, slots["init"], init_export],
                  [runner.view(), wrap_row(slots.figure("hist"), slots.figure("curves")),
                   slots["trained"], trained_export])
