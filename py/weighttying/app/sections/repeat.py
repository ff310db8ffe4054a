"""Live section: the repeat bias of a tied model with a residual stream.

The rank table at init, the current setting's readout and its rank histogram are cheap (a few
forward passes over 64 tokens) and follow the controls directly. Training tied and untied side by
side is long work: the Runner drives repeat.race a chunk of CHUNK steps at a time, streaming both
mean ranks into the curve and the current setting's ranks into the histogram; Cancel stops it and a
settings change drops a run made for the old settings.
"""
from __future__ import annotations

import html
from typing import Callable

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Span
from bokeh.transform import dodge

from ... import model, repeat
from ...views import kit
from ...views import repeat as V
from ..store import Store, controls
from ..widgets import Runner, export_buttons, stamped_figure

STYLE = ["style.css"]  # the page's stylesheet inside Panel's shadow roots (tables, readouts)
TRAIN_KEYS = ["res", "sigma", "steps", "lr", "seed"]  # what a training run depends on (not `tied`: both train)


def html_pane(text: str = "") -> pn.pane.HTML:
    """An HTML pane styled like the prerendered page."""
    return pn.pane.HTML(text, sizing_mode="stretch_width", stylesheets=STYLE)


def guarded(error: pn.pane.HTML, fn: Callable) -> Callable:
    """fn as a watcher that shows a failure as a readable line in `error` instead of raising."""
    def run(*events):
        try:
            fn(*events)
            error.object = ""
        except Exception as err:  # a reader's setting broke the numerics: say so, keep the page working
            error.object = (f'<p class="wt-bad" role="alert">Could not compute this setting: '
                            f'{html.escape(type(err).__name__)}: {html.escape(str(err))}</p>')
    return run


def wrap_row(*columns: pn.Column) -> pn.Row:
    """Columns side by side that wrap under each other on a narrow screen (360 px)."""
    for c in columns:
        c.param.update(sizing_mode="stretch_width", styles={"flex": "1 1 300px", "min-width": "0"})  # CSS, not min_width:
        # Bokeh sums children's min_width into the row's, which would stop it from ever wrapping
    return pn.Row(*columns, sizing_mode="stretch_width", styles={"flex-wrap": "wrap"})


def runner_strip(runner: Runner) -> pn.Column:
    """The Runner's buttons, bar and status stacked, so the strip fits 360 px (its own view() is one row)."""
    return pn.Column(pn.Row(runner.run, runner.cancel), runner.bar, runner.status, sizing_mode="stretch_width")


def rows_export(columns, rows) -> Callable:
    """An export_buttons table() over the current rows (hooks become plain numbers)."""
    return lambda: (list(columns), [[kit.plain(v) for v in r] for r in rows()])


def build(store: Store) -> pn.viewable.Viewable:
    """The repeat section's Panel root, bound to store["repeat"]."""
    p = store["repeat"]
    n = model.Config().V
    h0 = V.histogram(np.ones(n))
    width = float(h0["edges"][1] - h0["edges"][0])
    centers = (h0["edges"][:-1] + h0["edges"][1:]) / 2
    cur = {"init": [], "rows": [], "points": [], "trained_rows": V.trained_rows(None)}

    error, init_pane, readout, hist_text = html_pane(), html_pane(), html_pane(), html_pane()
    trained_pane, curve_text = html_pane(), html_pane()
    hist_src = ColumnDataSource({"x": centers, "init": np.zeros(len(centers)), "trained": np.zeros(len(centers))})
    curve_src = ColumnDataSource({"step": [], "tied": [], "untied": []})

    hist = stamped_figure(store, "repeat", title="Rank of the just-read token, current setting",
                          x_axis_label="rank among 64 next-token predictions (1 = top)", y_axis_label="tokens")
    hist.vbar(x=dodge("x", -width / 4), top="init", width=width / 2, source=hist_src, color="#0b63b6",
              legend_label="at init")
    hist.vbar(x=dodge("x", width / 4), top="trained", width=width / 2, source=hist_src, color="#e69f00",
              legend_label="after training")
    hist.legend.location = "top_right"
    curves = stamped_figure(store, "repeat", title="Mean rank of the just-read token over training",
                            x_axis_label="training step", y_axis_label="mean rank (chance 32.5)")
    for name, color in (("tied", "#0b63b6"), ("untied", "#e69f00")):
        curves.line("step", name, source=curve_src, line_width=2, color=color, legend_label=name)
        curves.scatter("step", name, source=curve_src, size=4, color=color)
    curves.add_layout(Span(location=(n + 1) / 2, dimension="width", line_dash="dashed", line_color="#888888"))
    curves.legend.location = "bottom_right"

    def show_hist() -> None:
        """Histogram bars and their text: init always, trained when a run for these settings exists."""
        trained = cur["points"][-1]["ranks"]["tied" if p.tied else "untied"] if cur["points"] else None
        h_init = V.histogram(cur["init"])
        h_trained = V.histogram(trained) if trained is not None else {"counts": np.zeros(len(centers))}
        hist_src.data = {"x": centers, "init": h_init["counts"], "trained": h_trained["counts"]}
        text = V.hist_text("At init", h_init)
        if trained is not None:
            text += " " + V.hist_text(f"After {cur['points'][-1]['step']} steps", h_trained)
        hist_text.object = f'<p class="wt-help" data-testid="repeat-hist-text">{html.escape(text)}</p>'

    def show_init(*_) -> None:
        cfg = V.config(p)
        cur["init"] = repeat.self_ranks(model.init_params(cfg), cfg)
        cur["rows"] = V.init_rows(p.sigma, p.seed)
        init_pane.object = V.init_table(cur["rows"], p.sigma, p.seed)
        readout.object = V.readout(p, cur["init"])
        show_hist()

    def show_trained() -> None:
        pts = cur["points"]
        cur["trained_rows"] = V.trained_rows(pts[-1] if pts else None)
        trained_pane.object = V.trained_table(cur["trained_rows"], p, pts[-1]["step"] if pts else 0)
        curve_text.object = (f'<p class="wt-help" data-testid="repeat-curve-text">' + html.escape(
            "; ".join(f"{k}: mean rank {V.R.num(pts[0][k])} at step 0, {V.R.num(pts[-1][k])} at step {pts[-1]['step']}"
                      for k in ("tied", "untied")) if pts else "Not trained yet for these settings: press Train.")
            + "</p>")

    def on_step(pt: dict) -> None:
        if "tied" not in pt:  # a tick between curve points: the Runner has moved the bar, nothing to draw
            return
        if pt["step"] == 0:
            cur["points"] = []
            curve_src.data = {"step": [], "tied": [], "untied": []}
        cur["points"].append(pt)
        curve_src.stream({"step": [pt["step"]], "tied": [pt["tied"]], "untied": [pt["untied"]]})
        show_trained()
        show_hist()

    runner = Runner("Train tied + untied", lambda: repeat.race(p.res, p.sigma, p.steps, p.lr, p.seed, V.CHUNK, V.EVERY),
                    lambda: p.steps, guarded(error, on_step))

    def on_train_settings(*_) -> None:
        """A run belongs to its settings: drop it (and stop one in flight) when they change."""
        if runner.job.running:
            runner.stop("Settings changed: the run was stopped. Press Train to train with the new settings.")
        cur["points"] = []
        curve_src.data = {"step": [], "tied": [], "untied": []}
        show_trained()

    p.param.watch(guarded(error, show_init), ["tied", "res", "sigma", "seed"])
    p.param.watch(guarded(error, on_train_settings), TRAIN_KEYS)
    guarded(error, show_init)()
    show_trained()
    return pn.Column(
        wrap_row(controls(store, "repeat"), pn.Column(readout, error, init_pane,
                                                      export_buttons(store, "repeat", "repeat-ranks-at-init",
                                                                     rows_export(V.INIT_COLUMNS, lambda: cur["rows"])))),
        runner_strip(runner),
        wrap_row(pn.Column(pn.pane.Bokeh(hist, sizing_mode="stretch_width"), hist_text),
                 pn.Column(pn.pane.Bokeh(curves, sizing_mode="stretch_width"), curve_text)),
        trained_pane,
        export_buttons(store, "repeat", "repeat-ranks-trained", rows_export(V.TRAINED_COLUMNS, lambda: cur["trained_rows"])),
        css_classes=["wt-repeat"], sizing_mode="stretch_width")
