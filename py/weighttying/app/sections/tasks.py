"""Live section: tied vs untied on an aligned and a misaligned task, over several seeds.

Every seed trains four models (two tasks x tied/untied) of `steps` SGD steps: seconds of work in
the browser, so the Runner drives views.tasks.iter_runs a chunk of CHUNK steps at a time (each well
under 100 ms), the slots fill in as each (seed, task) pair finishes, and Cancel stops it. At the
default settings the slots show the build's runs (store.built) until Run; a settings change drops
the runs made for the old settings.
"""
from __future__ import annotations

import panel as pn

from ... import tasks
from ...views import tasks as V
from ...views.kit import note, slot
from ..kit import Runner, Slots, built, export_buttons, layout, without_build, wrap_row
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The tasks section's Panel root, bound to store["tasks"]."""
    st = lambda: store.state_of("tasks")  # noqa: E731
    runs = built(store, "tasks", V) or V.empty()  # the (seed, task) runs shown, for the current settings
    said: dict = {}  # the model the status line names
    slots = Slots(store, "tasks", V, lambda: runs)

    def clear(results: dict | None = None) -> None:
        runs.clear()
        runs.update(results or V.empty())
        slots.show()

    def steps():
        """A fresh run for the current settings: clear the tables, then stream iter_runs."""
        clear()
        return V.iter_runs(st())

    def on_step(pt: dict) -> None:
        label = f"Training seed {pt['seed'] + 1} of {st().seeds}: {pt['task']} task, {pt['model']} model."
        if label != said.get("label"):  # one patch per model, not per chunk; the status slot says it until
            said["label"] = label     # the next (seed, task) pair lands and the slots are redrawn
            slots["status"].object = slot("status", note(label, testid="tasks-now"))
        if V.collect(runs, pt):
            slots.show()

    runner = Runner("Run the seeds", steps, lambda: st().seeds * len(tasks.TASKS) * 2 * st().steps, on_step)

    def on_settings(*_) -> None:
        """Runs belong to their settings: drop them (and stop a run in flight) when they change."""
        if runner.job.running:
            runner.stop("Settings changed: the run was stopped. Press Run to train with the new settings.")
        clear(built(store, "tasks", V))  # back at the defaults: the build's runs

    store["tasks"].param.watch(on_settings, list(V.RUN_KEYS))
    slots.show()
    without_build(store, "tasks", V, lambda: any(runs.values()) or runner.job.running or runner.start())
    summary_export = export_buttons(store, "tasks", "tasks-excess",
                                    lambda: (V.COLUMNS, V.summary_rows(runs, st().seeds)))
    seed_export = export_buttons(store, "tasks", "tasks-per-seed", lambda: (V.SEED_COLUMNS, V.seed_rows(runs)))
    return layout(store, "tasks", [runner.view(), slots["status"], slots.error, slots["table"], summary_export],
                  [wrap_row(slots.figure("plot"), pn.Column(slots["seeds"], seed_export))])
