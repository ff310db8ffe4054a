"""Live section: dropping a path into the tied E gives a gradient that is exactly right on most rows.

Central differences of every entry are computed once per seed (a Runner: in steps, cancellable);
the input/output toggles then only redo the analytic side, so the table, the readout and E's error
heatmap follow a flip at once, and the k slider redoes the random-entry check. The correct and the
broken training runs stream into one plot through a second Runner.
"""
from __future__ import annotations

import html

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Label, Span

from ...views import kit as G
from ...views import pathdrop as V
from ..store import Store, controls
from ..widgets import Runner, export_buttons, stamped_figure
from .gradcheck import error_data, error_figure

COLOURS = {"both paths": "#0072b2", "output path only": "#d55e00"}  # colour-blind safe pair
KEYS = {"both paths": "correct", "output path only": "broken"}
CHECK_KEYS = ("input", "output", "k")  # cheap: answered from the cached numerical gradient
TRAIN_KEYS = ("steps", "lr", "seed")


def message(text: str, kind: str = "wt-help") -> str:
    """A short escaped paragraph for a pane that has nothing to show yet (or failed)."""
    return f'<p class="{kind}">{html.escape(text)}</p>'


def curves_figure(store: Store):
    """The stamped loss plot: both runs streamed into one source, the page's final losses as dashed lines."""
    src = ColumnDataSource({"step": [], "correct": [], "broken": []})
    f = stamped_figure(store, "pathdrop", title="Exact expected loss while training", height=300,
                       x_axis_label="step", y_axis_label="loss")
    for name, colour in COLOURS.items():
        f.line(x="step", y=KEYS[name], source=src, color=colour, line_width=2, legend_label=f"ours: {name}")
        page = V.PAGE["final_loss"][name]
        f.add_layout(Span(location=page, dimension="width", line_color=colour, line_dash="dashed", line_width=1))
        f.add_layout(Label(x=0, y=page, text=f"page: {page:g}", text_color=colour, text_font_size="9pt",
                           x_units="screen", x_offset=4, y_offset=2))
    f.legend.location = "top_right"
    return f, src


def build(store: Store) -> pn.viewable.Viewable:
    """The path-drop section's Panel root, bound to store["pathdrop"]."""
    p = store["pathdrop"]
    numeric: dict = {}  # seed -> central differences of the page's batch (params and batch depend only on it)
    shown: dict = {}  # the latest rows / finals, for the exports
    readout = pn.pane.HTML(message("Computing central differences of every entry…"), sizing_mode="stretch_width")
    table = pn.pane.HTML("", sizing_mode="stretch_width")
    desc = pn.pane.HTML("", sizing_mode="stretch_width")
    kpane = pn.pane.HTML("", sizing_mode="stretch_width")
    trap = pn.pane.HTML(V.trap_html(V.trap(p)), sizing_mode="stretch_width")
    fig, srcs = error_figure(store, "pathdrop", np.zeros((64, 16)), [], "Relative error of every entry of dE")
    curves, curve_src = curves_figure(store)
    live_loss = pn.pane.HTML(message("Training starts when the page is ready."), sizing_mode="stretch_width")
    finals_pane = pn.pane.HTML("", sizing_mode="stretch_width")

    def show_rows(*_) -> None:
        st = store.state.pathdrop
        if st.seed not in numeric:
            return  # the Runner below is computing it and calls us when done
        try:
            rs = V.rows(st, numeric[st.seed])
            shown["rows"] = (st, rs)
            readout.object, table.object = V.readout(st, rs), V.table(st, rs)
            err = rs[V.current(st)]["E_err"]
            desc.object = message(G.heatmap_desc(err, V.batch(st)[0]))
            for src, data in zip(srcs, error_data(err, V.batch(st)[0])):
                src.data = data
            kpane.object = V.kcheck_html(V.kcheck(st, rs))
        except Exception as err:  # show a readable message in the section, never a traceback
            readout.object = message(f"Could not update: {type(err).__name__}: {err}", "wt-bad")

    pending: dict = {}  # the seed the running central differences belong to

    def numeric_steps():
        pending["seed"] = store.state.pathdrop.seed
        return V.iter_numeric(store.state.pathdrop)

    def got_numeric(last: dict | None) -> None:
        numeric[pending["seed"]] = last["numeric"]
        show_rows()

    check = Runner("Recompute central differences", numeric_steps, lambda: V.entries(store.state.pathdrop),
                   on_step=lambda _: None, on_done=got_numeric)

    def steps():
        curve_src.data = {"step": [], "correct": [], "broken": []}
        finals_pane.object = ""
        return V.iter_curves(store.state.pathdrop)

    def on_train_step(pt: dict) -> None:
        pts = pt["points"]
        curve_src.stream({"step": [pt["step"]], **{KEYS[n]: [pts[n]["eval"]] for n in KEYS}})
        live_loss.object = message(f"Step {pt['step']}: correct {pts['both paths']['eval']:.4f}, "
                                   f"broken {pts['output path only']['eval']:.4f}")

    def on_train_done(last: dict | None) -> None:
        try:
            st = store.state.pathdrop
            finals = {n: q["eval"] for n, q in last["points"].items()}
            shown["finals"] = (st, finals)
            finals_pane.object = V.curves_html(st, finals)
        except Exception as err:
            finals_pane.object = message(f"Could not show the result: {type(err).__name__}: {err}", "wt-bad")

    train = Runner("Train both", steps, lambda: store.state.pathdrop.steps, on_train_step, on_train_done)

    def on_seed(*_) -> None:
        trap.object = V.trap_html(V.trap(store.state.pathdrop))
        if store.state.pathdrop.seed in numeric:
            show_rows()
        else:
            readout.object = message("Computing central differences of every entry…")
            check.start()

    def first_start() -> None:
        """Once, when the page has embedded the section (the event may come more than once)."""
        if not (numeric or check.job.running):
            check.start()
        if not ("finals" in shown or train.job.running):
            train.start()

    p.param.watch(show_rows, list(CHECK_KEYS))
    p.param.watch(on_seed, "seed")
    p.param.watch(lambda *_: train.start(), list(TRAIN_KEYS))
    doc = pn.state.curdoc  # in the worker: start both once the page has embedded the section
    if doc is not None:
        doc.on_event("document_ready", lambda _: first_start())

    table_export = export_buttons(store, "pathdrop", "pathdrop-rows",
                                  lambda: (V.COLUMNS, V.table_rows(*shown["rows"]) if "rows" in shown else []))
    curve_export = export_buttons(store, "pathdrop", "pathdrop-curves",
                                  lambda: (V.CURVE_COLUMNS, V.curve_rows(*shown["finals"]) if "finals" in shown else []))
    return pn.Column(
        controls(store, "pathdrop"), readout, table, table_export, kpane, trap,  # stacked: works at 360 px
        check.view(), pn.pane.Bokeh(fig, sizing_mode="stretch_width"), desc,
        train.view(), pn.pane.Bokeh(curves, sizing_mode="stretch_width"), live_loss, finals_pane, curve_export,
        css_classes=["wt-pathdrop"], sizing_mode="stretch_width")
