"""Live section: the paper at toy scale. One streamed, cancellable study (paper.iter_study) per
setting: the path-norm curve grows while the first tied model trains, then the alignment, lens and
claims tables fill in. Changing a control restarts the study (the stale run is dropped); Cancel stops it.
"""
from __future__ import annotations

import asyncio
import html
import math
import sys
import time
from typing import Iterator

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource

from ... import paper
from ...views.paper import align_html, align_rows, claim_rows, claims_html, lens_html, norms_readout, pending
from ..store import Store, controls
from ..widgets import Runner, export_buttons, stamped_figure
from .repeat import html_pane, runner_strip, wrap_row
from .tying import guarded

SETTINGS = ("scale", "seeds", "steps", "lr", "seed")
BUDGET_S = 0.03  # compute per worker call: a slider change elsewhere waits at most this long for the study to yield
DRAW_S = 0.4  # redraw the streaming curve at most this often: each redraw is a patch the page must apply


def batched(steps: Iterator[dict], budget: float = BUDGET_S) -> Iterator[dict]:
    """Merge consecutive progress dicts for up to `budget` s of compute each, so the page is not flooded
    with patches; a result or a non-finite loss is passed on at once."""
    merged, t0 = {}, time.perf_counter()
    for s in steps:
        merged.update(s)
        if "result" in s or not math.isfinite(s.get("loss", 0.0)) or time.perf_counter() - t0 >= budget:
            yield merged
            merged, t0 = {}, time.perf_counter()
    if merged:
        yield merged


def can_run() -> bool:
    """Whether an asyncio loop will drive a Job now: always in Pyodide's worker; in CPython only inside one."""
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return sys.platform == "emscripten"


async def start_when_linked(start, poll: float = 0.25, timeout: float = 300.0) -> None:
    """Start the first run once the page is listening: changes made before main.link forwards them
    would never reach the page (a short run could finish unseen)."""
    doc, waited = pn.state.curdoc, 0.0
    while doc is not None and not doc.callbacks._change_callbacks and waited < timeout:
        await asyncio.sleep(poll)
        waited += poll
    start()


def build(store: Store) -> pn.viewable.Viewable:
    """The paper section's Panel root, bound to store["paper"]."""
    p = store["paper"]
    phase = html_pane('<p class="wt-help" data-testid="paper-phase"></p>')
    norms_text = html_pane(pending("Gradient norms"))
    norms_alt = html_pane()
    results = {k: html_pane(pending(label))
               for k, label in (("align", "Similarity"), ("lens", "Lens"), ("claims", "Claims"))}
    last: dict = {}
    drawn = [0.0]  # when the curve was last redrawn
    src = ColumnDataSource({"step": [], "output": [], "input": []})
    f = stamped_figure(store, "paper", title="Gradient norm into tied E", x_axis_label="training step",
                       y_axis_label="Frobenius norm on a fixed batch", height=260)
    f.line("step", "output", source=src, line_width=2, legend_label="output path")
    f.line("step", "input", source=src, line_width=2, color="#e69f00", legend_label="input path × scale")
    f.legend.location = "top_right"

    def on_step(s: dict) -> None:
        now = f'<p class="wt-help" data-testid="paper-phase">Now: {html.escape(s["phase"])}.</p>'
        if phase.object != now:  # one patch per phase, not per chunk
            phase.object = now
        n = s["result"]["norms"] if "result" in s else s.get("norms")
        if n is not None and ("result" in s or time.perf_counter() - drawn[0] >= DRAW_S):
            drawn[0] = time.perf_counter()
            src.data = {"step": n["step"], "output": n["output"], "input": n["output"] / n["ratio"]}
            guarded(norms_text, lambda: norms_readout(n, p.scale))
            norms_alt.object = (f'<p class="wt-help">Plotted: {len(n["step"])} measurements; output-path norm '
                                f'{n["output"][0]:.3g} at step 0 and {n["output"][-1]:.3g} at step {int(n["step"][-1])}; '
                                f'scaled input-path norm {n["output"][0] / n["ratio"][0]:.3g} and '
                                f'{n["output"][-1] / n["ratio"][-1]:.3g}.</p>')
        if "result" in s:
            last["result"] = s["result"]
            for k, render in (("align", align_html), ("lens", lens_html), ("claims", claims_html)):
                guarded(results[k], lambda render=render: render(s["result"]))

    runner = Runner("Run again", lambda: batched(paper.iter_study(p.scale, p.steps, p.seed, p.seeds, p.lr)),
                    lambda: paper.study_total(p.scale, p.steps, p.seeds), on_step)

    def restart(*_) -> None:
        last.clear()
        src.data = {"step": [], "output": [], "input": []}
        norms_text.object = pending("Gradient norms")
        for k, pane in results.items():
            pane.object = pending(k.title())
        if can_run():
            runner.start()

    p.param.watch(restart, list(SETTINGS))
    if can_run():
        asyncio.ensure_future(start_when_linked(restart))
    table = lambda rows: (lambda: rows(last["result"]) if last else (["status"], [["no result yet"]]))  # noqa: E731
    exports = pn.Column(html_pane('<p class="wt-help">Download the similarity table:</p>'),
                        export_buttons(store, "paper", "paper-alignment", table(align_rows)),
                        html_pane('<p class="wt-help">Download the claims table:</p>'),
                        export_buttons(store, "paper", "paper-claims", table(claim_rows)), sizing_mode="stretch_width")
    return pn.Column(
        wrap_row(controls(store, "paper"), pn.Column(runner_strip(runner), phase, norms_text,
                                                   pn.pane.Bokeh(f, sizing_mode="stretch_width"), norms_alt)),
        results["align"], results["lens"], results["claims"], exports,
        css_classes=["wt-paper"], sizing_mode="stretch_width")
