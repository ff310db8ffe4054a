"""Live section: tied vs untied on an aligned and a misaligned task, over several seeds.

Every seed trains four models (two tasks x tied/untied) of `steps` SGD steps: seconds of work in
the browser, so the Runner drives tasks.iter_runs a chunk of CHUNK steps at a time (each well under
100 ms), the table fills in as each (seed, task) pair finishes, and Cancel stops it. A settings change
drops the runs made for the old settings.
"""
from __future__ import annotations

import html

import panel as pn
from bokeh.models import ColumnDataSource, Span

from ... import quoted, tasks
from ...views import tasks as V
from ..store import Store, controls
from ..widgets import Runner, export_buttons, stamped_figure
from .repeat import guarded, html_pane, rows_export, runner_strip, wrap_row

X = {name: i for i, name in enumerate(tasks.TASKS)}  # task -> x position in the per-seed plot


def build(store: Store) -> pn.viewable.Viewable:
    """The tasks section's Panel root, bound to store["tasks"]."""
    p = store["tasks"]
    runs = V.empty()
    cur = {"rows": [], "seed_rows": []}
    error, table_pane, seed_pane, now, plot_text = html_pane(), html_pane(), html_pane(), html_pane(), html_pane()

    points = ColumnDataSource({"x": [], "ratio": [], "seed": [], "task": []})
    band = {"left": [], "right": [], "bottom": [], "top": []}
    for name, (lo, hi) in quoted.PAGE["ratio_range"].items():
        band["left"].append(X[name] - 0.3), band["right"].append(X[name] + 0.3)
        band["bottom"].append(lo), band["top"].append(hi)
    fig = stamped_figure(store, "tasks", title="Per-seed ratio tied/untied excess loss (shaded: the page's range)",
                         x_axis_label="task", y_axis_label="ratio", x_range=(-0.6, len(X) - 0.4))
    fig.quad(source=ColumnDataSource(band), fill_color="#e69f00", fill_alpha=0.25, line_alpha=0,
             legend_label="page's per-seed range")
    fig.scatter("x", "ratio", source=points, size=9, color="#0b63b6", legend_label="ours, one seed each")
    fig.add_layout(Span(location=1.0, dimension="width", line_dash="dashed", line_color="#888888"))
    fig.xaxis.ticker = list(X.values())
    fig.xaxis.major_label_overrides = {i: name for name, i in X.items()}
    fig.legend.location = "top_left"

    def refresh() -> None:
        cur["rows"], cur["seed_rows"] = V.summary_rows(runs, p.seeds), V.seed_rows(runs)
        table_pane.object = V.summary_table(cur["rows"], p)
        seed_pane.object = V.seed_table(cur["seed_rows"])
        done = [(name, r) for name in tasks.TASKS for r in runs[name]]
        points.data = {"x": [X[name] + 0.08 * (r["seed"] - (p.seeds - 1) / 2) for name, r in done],
                       "ratio": [r["ratio"] for _, r in done], "seed": [r["seed"] for _, r in done],
                       "task": [name for name, _ in done]}
        text = "; ".join(f"{name}: per-seed ratios {', '.join(V.R.num(r['ratio'], 3) for r in runs[name]) or 'none yet'}"
                         for name in tasks.TASKS)
        plot_text.object = f'<p class="wt-help" data-testid="tasks-plot-text">{html.escape(text)}.</p>'

    def say_now(text: str) -> None:
        now.object = f'<p class="wt-help" data-testid="tasks-now">{html.escape(text)}</p>'

    def steps():
        """A fresh run for the current settings: clear the tables, then stream iter_runs."""
        for r in runs.values():
            r.clear()
        refresh()
        return tasks.iter_runs(range(p.seeds), p.steps, p.lr, chunk=V.CHUNK)

    def on_step(pt: dict) -> None:
        label = f"Training seed {pt['seed'] + 1} of {p.seeds}: {pt['task']} task, {pt['model']} model."
        if label != cur.get("label"):  # one patch per model, not per chunk
            cur["label"] = label
            say_now(label)
        if V.collect(runs, pt):
            refresh()

    def on_done(last) -> None:
        say_now(f"All {p.seeds} seeds done." if last else "Nothing to run.")

    runner = Runner("Run the seeds", steps, lambda: p.seeds * len(tasks.TASKS) * 2 * p.steps,
                    guarded(error, on_step), on_done)

    def on_settings(*_) -> None:
        """Runs belong to their settings: drop them (and stop a run in flight) when they change."""
        if runner.job.running:
            runner.stop("Settings changed: the run was stopped. Press Run to train with the new settings.")
        for r in runs.values():
            r.clear()
        refresh()
        say_now(f"Not run yet for these settings: Run trains {p.seeds * len(tasks.TASKS) * 2} models "
                f"of {p.steps} steps here in your browser (a few seconds).")

    p.param.watch(guarded(error, on_settings), ["seeds", "steps", "lr"])
    guarded(error, on_settings)()
    return pn.Column(
        wrap_row(controls(store, "tasks"), pn.Column(runner_strip(runner), now, error, table_pane,
                                                     export_buttons(store, "tasks", "tasks-excess",
                                                                    rows_export(V.COLUMNS, lambda: cur["rows"])))),
        wrap_row(pn.Column(pn.pane.Bokeh(fig, sizing_mode="stretch_width"), plot_text),
                 pn.Column(seed_pane, export_buttons(store, "tasks", "tasks-per-seed",
                                                     rows_export(V.SEED_COLUMNS, lambda: cur["seed_rows"])))),
        css_classes=["wt-tasks"], sizing_mode="stretch_width")
