"""Long work: Run and Cancel buttons, a progress bar and a status line around one Job, and its progress
batched so the page is not flooded with patches."""
from __future__ import annotations

import math
import time
from typing import Callable, Iterator

import panel as pn

from ...markup import escape
from ... import render
from .. import pooled
from ..jobs import Job



class Runner:
    """Run and Cancel buttons, a determinate progress bar and a status line for one Job.

    `steps()` makes a fresh iterator of progress dicts, each with "step"; a non-finite "loss"
    stops the run and reports divergence instead of drawing garbage.
    """

    def __init__(self, label: str, steps: Callable[[], Iterator[dict]], total: Callable[[], int],
                 on_step: Callable[[dict], None], on_done: Callable[[dict | None], None] = lambda last: None,
                 check: Callable[[], str] = lambda: ""):
        self.job, self.steps, self.total, self.check = Job(), steps, total, check
        self.on_step, self.on_done = on_step, on_done
        # no fixed width: a long label ("Recompute central differences") ran out of a 160 px button over Cancel
        self.run = pn.widgets.Button(name=label, button_type="primary", min_width=160)
        self.cancel = pn.widgets.Button(name="Cancel", button_type="default", width=100, disabled=True)
        # progress is shown only while something runs; the status line only once it has something to say
        self.bar = pn.indicators.Progress(value=0, max=100, width=200, bar_color="primary", visible=False)
        self.status = pn.pane.HTML('<p class="wt-status" role="status"></p>', sizing_mode="stretch_width",
                                   visible=False)
        self.notes: list[str] = []  # what happened to this run besides its steps (a numerics worker replaced)
        # The status line's data-run and data-step: "over" once the run's task has ended (no step can follow),
        # with the last step it applied; what a test waits on after Cancel instead of sleeping
        self.over, self.last_step, self.said = True, 0, ("", "")
        self.run.on_click(lambda _: self.start())
        self.cancel.on_click(lambda _: self.stop("Cancelled."))

    def view(self) -> pn.Column:
        """Buttons, then bar and status while they have something to show, stacked to fit a 360 px screen."""
        return pn.Column(pn.Row(self.run, self.cancel), self.bar, self.status, sizing_mode="stretch_width")

    def say(self, text: str, kind: str = "") -> None:
        run = f'data-testid="run-status" data-run="{"over" if self.over else "going"}" data-step="{self.last_step}"'
        self.status.param.update(object=f'<p class="wt-status {kind}" role="status" {run}>{escape(text)}</p>',
                                 visible=bool(text))
        self.said = (text, kind)

    def ended(self, task) -> None:
        """The run's task is over (done, failed or cancelled): say so on the status line, unless a newer run took over."""
        if task is self.job.task:
            self.over = True
            self.say(*self.said)

    def busy(self, running: bool) -> None:
        """Buttons and bar for a run starting (True) or over (False)."""
        self.run.disabled, self.cancel.disabled, self.bar.visible = running, not running, running

    def start(self) -> None:
        """(Re)start the run from the current settings; a run already going is dropped. When check() names a
        problem (a reader's input the run cannot take), it is said instead and nothing changes."""
        problem = self.check()
        if problem:
            self.say(problem, "wt-bad")
            return
        total = max(self.total(), 1)
        self.bar.value = 0
        self.busy(True)
        self.notes, self.over, self.last_step = [], False, 0
        self.say("Running…")
        def told(text):
            return " ".join([text, *self.notes])

        def step(p: dict) -> None:
            loss = p.get("loss", 0.0)
            if not math.isfinite(loss):
                self.stop(f"Diverged at step {p['step']}: the loss became {render.num(loss)}. "
                          "Lower the learning rate and run again.", "wt-bad")
                return
            self.notes += [p["note"]] if "note" in p else []
            self.last_step = p["step"]
            self.bar.value = min(100, int(100 * p["step"] / total))
            self.say(told(f"Step {p['step']} of {total}"))
            self.on_step(p)

        def done(last: dict | None) -> None:
            self.bar.value = 100
            self.busy(False)
            # the last results drawn first: "Done." on the page means the numbers beside it are the final ones
            self.on_done(last)
            self.say(told("Done."))

        def failed(err: Exception) -> None:
            said = str(err) if isinstance(err, pooled.PartFailed) else f"{type(err).__name__}: {err}"
            self.stop(f"Stopped: {said}", "wt-bad")

        self.job.start(self.steps(), step, done, failed).add_done_callback(self.ended)

    def stop(self, message: str, kind: str = "") -> None:
        self.job.cancel()
        self.busy(False)
        self.say(message, kind)


def on_document_ready(fn: Callable[[], None]) -> None:
    """Call fn once the page has embedded the document (in the worker; CPython tests have no document)."""
    doc = pn.state.curdoc
    if doc is not None:
        doc.on_event("document_ready", lambda _: fn())


def batched(steps: Iterator[dict], budget: float) -> Iterator[dict]:
    """Consecutive progress dicts merged for up to `budget` s of compute each, so the page is not flooded with
    patches; a result or a non-finite loss is passed on at once."""
    merged, t0 = {}, time.perf_counter()
    for s in steps:
        merged.update(s)
        if "result" in s or not math.isfinite(s.get("loss", 0.0)) or time.perf_counter() - t0 >= budget:
            yield merged
            merged, t0 = {}, time.perf_counter()
    if merged:
        yield merged
