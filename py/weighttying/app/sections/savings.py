"""Live section: it never halves. A preset or five numbers give a GPT-2-style model; the readout gives
what tying saves, and a log-V curve shows the share for every vocabulary size at the current width and
depth. Preset and numbers are one state on the store: watchers apply views.savings.reconcile, so a
preset fills in its numbers and editing a number switches to 'custom' (the URL follows)."""
from __future__ import annotations

import panel as pn
from bokeh.models import ColumnDataSource, Span

from ... import savings
from ...views.savings import FIELDS, curve, curve_summary, preset_rows, presets_table, readout, reconcile
from ..store import Store, controls
from ..widgets import export_buttons, stamped_figure
from .repeat import html_pane, wrap_row
from .tying import guarded


def build(store: Store) -> pn.viewable.Viewable:
    """The savings section's Panel root, bound to store["savings"]."""
    p = store["savings"]
    values = lambda: {k: getattr(p, k) for k in ("preset", *FIELDS)}  # noqa: E731
    p.param.update(**reconcile(values()))  # a shared link: make preset and numbers agree before drawing

    def on_preset(*_):
        p.param.update(**reconcile(values(), "preset"))

    def on_field(event, *_):
        p.param.update(**reconcile(values(), event.name))

    text, summary = html_pane(), html_pane()
    line_src, point_src = ColumnDataSource({"V": [], "share": []}), ColumnDataSource({"V": [], "share": []})
    f = stamped_figure(store, "savings", title="Share saved vs vocabulary size",
                       x_axis_type="log", x_axis_label="vocabulary size V (log scale)",
                       y_axis_label="V·d / untied total", y_range=(0, 0.55), height=260)
    f.line("V", "share", source=line_src, line_width=2, legend_label="this width and depth")
    f.scatter("V", "share", source=point_src, size=10, color="#e69f00", legend_label="current V")
    f.add_layout(Span(location=0.5, dimension="width", line_dash="dashed", line_color="#888888"))
    f.legend.location = "top_left"

    def render(*_):
        guarded(text, lambda: readout(values()))
        guarded(summary, lambda: curve_summary(values()))
        c, now = curve(values()), savings.tying_saving(V=p.V, d=p.d, n_layers=p.layers, d_ff=p.d_ff, context=p.context)
        line_src.data = {"V": c["V"], "share": c["share"]}
        point_src.data = {"V": [p.V], "share": [now["share"]]}

    render()
    p.param.watch(on_preset, "preset")
    p.param.watch(on_field, list(FIELDS))
    p.param.watch(render, ["preset", *FIELDS])
    exports = export_buttons(store, "savings", "tying-savings-presets", preset_rows)
    return pn.Column(
        wrap_row(controls(store, "savings"), pn.Column(text, pn.pane.Bokeh(f, sizing_mode="stretch_width"), summary)),
        html_pane(presets_table()), exports,
        css_classes=["wt-savings"], sizing_mode="stretch_width")
