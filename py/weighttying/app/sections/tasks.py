"""Live section: tied vs untied on an aligned and a misaligned task, over several seeds.

Every seed trains four models (two tasks x tied/untied) of `steps` SGD steps, all seeds' models as one
stack: seconds of work in the browser, so the section's run (kit.RunSection) drives views.tasks.iter_runs
a chunk of CHUNK stack steps at a time (each well under 100 ms), the slots fill in as the (seed, task)
pairs land at the end, and Cancel stops it. At the default settings the slots show the build's runs; a
RUN_KEYS change waits for Run.
"""
from __future__ import annotations

import panel as pn

from ...views import tasks as view
from ...views.kit import note, slot
from ..kit import RunSection, export_buttons, layout
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The tasks section's Panel root, bound to store["tasks"]."""
    said: dict = {}  # the model the status line names

    def collect(runs: dict, pt: dict) -> bool:
        label = f"Training all {pt['models']} models at once: {run.st().seeds} seeds, 2 tasks, tied and untied."
        if label != said.get("label"):  # one patch per run, not per chunk; the status slot says it until
            said["label"] = label     # the (seed, task) pairs land and the slots are redrawn
            run.slots["status"].object = slot("status", note(label, testid="tasks-now"))
        return view.collect(runs, pt)

    run = RunSection(store, "tasks", "Run the seeds", collect, fresh=view.empty)
    summary_export = export_buttons(store, "tasks", "tasks-excess",
                                    lambda: (view.COLUMNS, view.summary_rows(run.results, run.st().seeds)))
    seed_export = export_buttons(store, "tasks", "tasks-per-seed",
                                 lambda: (view.SEED_COLUMNS, view.seed_rows(run.results)))
    return layout(store, "tasks", figures=("plot",), before={"status": [run.runner.view()]},
                  downloads=[summary_export, seed_export])
