"""Live section: every entry of the hand-written gradient against central differences.

Any control change restarts the check (gradcheck.iter_check, in steps of a few batch tokens, through a
Runner so other sections stay live and Cancel works); when it finishes, the fixed badge, the
readout, the per-parameter table and E's error heatmap update in place. The heatmap pieces
(`error_figure`, `error_data`) are shared with the path-drop section.
"""
from __future__ import annotations

import html

import numpy as np
import panel as pn
from bokeh.models import ColorBar, ColumnDataSource, LinearColorMapper
from bokeh.palettes import Viridis256

from ...views import gradcheck as V
from ...views import kit
from ..store import Store, controls
from ..widgets import Runner, export_buttons, stamped_figure

LOG_LO = -12  # colour scale of log10 relative error: 1e-12 (and below) .. 1
# The badge pane renders in a shadow root, where the page's CSS does not reach: it carries its own
# rules (the prerendered badge, in the light DOM, is styled by site/sections/gradcheck.html).
BADGE_CSS = """
.wt-gc-badge { position: fixed; right: 10px; bottom: 10px; z-index: 50; max-width: calc(100vw - 20px);
  padding: 4px 10px; border-radius: 12px; font: 600 12px/1.4 system-ui, sans-serif; text-decoration: none;
  box-shadow: 0 1px 4px rgba(0,0,0,.3); background: #e7f5ea; color: #14532d; border: 1px solid #2f855a; }
.wt-gc-badge.wt-bad { background: #fdecea; color: #7f1d1d; border-color: #c53030; }
.wt-gc-badge.wt-busy { background: #f1f1f1; color: #333; border-color: #888; }
@media (prefers-color-scheme: dark) {
  .wt-gc-badge { background: #12301f; color: #bdf0cf; }
  .wt-gc-badge.wt-bad { background: #3b1212; color: #ffd1d1; }
  .wt-gc-badge.wt-busy { background: #2a2a2a; color: #ddd; } }
"""


def pending(state: str, text: str) -> str:
    """The badge while no result stands: running, or cancelled by the reader."""
    return (f'<a class="wt-gc-badge wt-busy" href="#gradcheck" role="status" data-testid="gradcheck-badge" '
            f'data-value="{state}">gradient check: {text}</a>')


BUSY, CANCELLED = pending("running", "running…"), pending("cancelled", "cancelled (not checked)")


def error_data(err: np.ndarray, inputs) -> tuple[dict, dict, dict]:
    """(image, wrong-row outlines, batch-token marks) for error_figure from E's error (V, d)."""
    Vn, d = err.shape
    bad = np.flatnonzero(kit.row_errors(err) > V.TOL)
    image = {"img": [np.log10(np.maximum(err, 1e-300)).T], "x": [0], "y": [0], "dw": [Vn], "dh": [d]}
    rows = {"x": bad + 0.5, "y": np.full(bad.size, d / 2), "h": np.full(bad.size, float(d))}
    tokens = np.unique(inputs)
    return image, rows, {"x": tokens + 0.5, "y": np.full(tokens.size, -0.8)}


def error_figure(store: Store, section: str, err: np.ndarray, inputs, title: str):
    """A stamped Bokeh heatmap of E's error, rows over TOL outlined, the batch's tokens marked below.

    Returns (figure, [image, rows, tokens] sources) so callers update `.data` in place.
    """
    Vn, d = err.shape
    srcs = [ColumnDataSource(x) for x in error_data(err, inputs)]
    f = stamped_figure(store, section, title=title, height=260, x_range=(0, Vn), y_range=(-1.6, d),
                       x_axis_label="row of E (token id); ▲ = token in the batch", y_axis_label="column of E")
    mapper = LinearColorMapper(palette=Viridis256, low=LOG_LO, high=0)
    f.image(image="img", x="x", y="y", dw="dw", dh="dh", source=srcs[0], color_mapper=mapper)
    f.rect(x="x", y="y", width=1, height="h", source=srcs[1], fill_alpha=0, line_color="#e69f00", line_width=2)
    f.scatter(x="x", y="y", source=srcs[2], marker="triangle", size=7, color="#d55e00")
    f.add_layout(ColorBar(color_mapper=mapper, title="log10 rel. error", width=10), "right")
    return f, srcs


def build(store: Store) -> pn.viewable.Viewable:
    """The gradient-check section's Panel root, bound to store["gradcheck"]."""
    p = store["gradcheck"]
    current: dict = {}  # the latest finished summary, for the exports
    badge = pn.pane.HTML(BUSY, stylesheets=[BADGE_CSS], margin=0)
    readout = pn.pane.HTML('<p class="wt-readout">Checking every entry…</p>', sizing_mode="stretch_width")
    table = pn.pane.HTML("", sizing_mode="stretch_width")
    note = pn.pane.HTML("", sizing_mode="stretch_width")
    desc = pn.pane.HTML("", sizing_mode="stretch_width")
    placeholder = np.zeros((64, 16))
    fig, srcs = error_figure(store, "gradcheck", placeholder, [], "Relative error of every entry of dE")

    def show(last: dict | None) -> None:
        try:
            st = store.state.gradcheck
            s = V.summary(last["result"])
            inputs = V.batch(st)[0]
            current["summary"] = s
            badge.object, readout.object = V.badge(s), V.readout(st, s)
            table.object, note.object = V.table(s), V.kink_note(s)
            desc.object = f'<p class="wt-help">{html.escape(kit.heatmap_desc(s["E_err"], inputs))}</p>'
            for src, data in zip(srcs, error_data(s["E_err"], inputs)):
                src.data = data
        except Exception as err:  # a reader's setting broke something: say so here, never a traceback
            readout.object = f'<p class="wt-bad">Could not show the check: {html.escape(type(err).__name__)}: {html.escape(str(err))}</p>'

    runner = Runner("Check every entry", lambda: V.iter_check(store.state.gradcheck),
                    lambda: V.entries(store.state.gradcheck), on_step=lambda _: None, on_done=show)

    def restart(*_) -> None:
        badge.object = BUSY
        runner.start()

    p.param.watch(restart, [n for n in p.param if n != "name"])
    runner.run.on_click(lambda _: setattr(badge, "object", BUSY))
    runner.cancel.on_click(lambda _: setattr(badge, "object", CANCELLED))
    doc = pn.state.curdoc  # in the worker: check once the page has embedded the section
    if doc is not None:
        doc.on_event("document_ready", lambda _: current or runner.job.running or restart())
    exports = export_buttons(store, "gradcheck", "gradcheck",
                             lambda: (V.COLUMNS, V.table_rows(current["summary"]) if current else []))
    return pn.Column(
        badge,
        # stacked, not side by side: a Row does not wrap, and at 360 px the readout column vanished
        controls(store, "gradcheck"), readout, table, exports, note,
        runner.view(),
        pn.pane.Bokeh(fig, sizing_mode="stretch_width"), desc,
        css_classes=["wt-gradcheck"], sizing_mode="stretch_width")
