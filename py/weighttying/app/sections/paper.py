"""Live section: the paper at toy scale. At the default settings the slots show the build's study
(store.built), so nothing runs at start. Run (and any change of a control) starts one streamed,
cancellable study (paper.iter_study) for the current setting: the path-norm slots grow while the
first tied model trains, then the alignment, lens and claims slots fill in, all drawn by
views.paper.slots from the study so far; the stale run is dropped; Cancel stops it. Back at the
defaults the build's study shows again.
"""
from __future__ import annotations

import asyncio
import html
import math
import sys
import time
from typing import Iterator

import panel as pn

from ... import paper
from ...views import paper as V
from ..kit import DRAW_S, Runner, Slots, built, every, export_buttons, html_pane, kept, layout
from ..store import Store

BUDGET_S = 0.03  # compute per worker call: a slider change elsewhere waits at most this long for the study to yield


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
    st = lambda: store.state_of("paper")  # noqa: E731
    phase = html_pane('<p class="wt-help" data-testid="paper-phase"></p>')
    run: dict = built(store, "paper", V) or {}  # the study shown: {"norms"} while it streams, else the whole result
    slots = Slots(store, "paper", V, lambda: run)
    redraw = every(DRAW_S, slots.show)

    def on_step(s: dict) -> None:
        now = f'<p class="wt-help" data-testid="paper-phase">Now: {html.escape(s["phase"])}.</p>'
        if phase.object != now:  # one patch per phase, not per chunk
            phase.object = now
        if "result" in s:
            run.update(s["result"])
            redraw(True)
        elif "norms" in s:
            run["norms"] = s["norms"]
            redraw()

    def steps():
        run.clear()  # a live run: the build's study and its origin go; its tuned lens, which no run redoes, stays
        run.update(kept(store, "paper", ("tuned",)))
        slots.show()
        return batched(paper.iter_study(st().scale, st().steps, st().seed, st().seeds, st().lr))

    runner = Runner("Run again", steps, lambda: paper.study_total(st().scale, st().steps, st().seeds), on_step)

    def restart(*_) -> None:
        if runner.job.running:
            runner.stop("Settings changed: the run was stopped.")
        run.clear()
        run.update(built(store, "paper", V) or {})  # back at the defaults: the build's study
        slots.show()
        if not run and can_run():
            runner.start()

    store["paper"].param.watch(restart, list(V.RUN_KEYS))
    slots.show()
    if can_run() and store.built is None:  # no build results: compute the default study live
        asyncio.ensure_future(start_when_linked(restart))
    table = lambda rows: (lambda: rows(run) if "align" in run else (["status"], [["no result yet"]]))  # noqa: E731
    exports = pn.Column(html_pane('<p class="wt-help">Download the similarity table:</p>'),
                        export_buttons(store, "paper", "paper-alignment", table(V.align_rows)),
                        html_pane('<p class="wt-help">Download the claims table:</p>'),
                        export_buttons(store, "paper", "paper-claims", table(V.claim_rows)), sizing_mode="stretch_width")
    return layout(store, "paper", [runner.view(), phase, slots["norms"], slots.error, slots.figure("figure")],
                  [slots["align"], slots["lens"], slots["claims"], exports, slots["tuned"]])
