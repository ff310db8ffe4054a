"""Pieces every section shares: a run/cancel/progress strip for long work, figures stamped with the
link that reproduces them, and CSV/JSON exports of a table stamped the same way."""
from __future__ import annotations

import html
import io
import json
import math
from typing import Callable, Iterator, Sequence

import panel as pn
from bokeh.models import Title
from bokeh.plotting import figure

from .. import render as R
from .. import state as S
from .jobs import Job
from .store import Store


def page_url(store: Store, section: str) -> str:
    """The link that reproduces what a section shows now: page address, query, section anchor."""
    query = S.to_query(store.state)
    return f"{store.base_url}{'?' + query if query else ''}#{section}"


def stamped_figure(store: Store, section: str, **kw) -> figure:
    """A Bokeh figure whose PNG export (toolbar save) carries the reproducing link under the plot."""
    kw.setdefault("sizing_mode", "stretch_width")
    kw.setdefault("height", 280)
    f = figure(tools="save", toolbar_location="above", **kw)
    stamp = Title(text=page_url(store, section), text_font_size="8pt", text_font_style="normal",
                  text_color="#666666", align="left")
    f.add_layout(stamp, "below")
    store[section].param.watch(lambda *_: setattr(stamp, "text", page_url(store, section)),
                               [p for p in store[section].param if p != "name"])
    return f


def export_buttons(store: Store, section: str, name: str,
                   table: Callable[[], tuple[Sequence[str], Sequence[Sequence[object]]]]) -> pn.Row:
    """CSV and JSON downloads of table() = (columns, rows), each stamped with its reproducing link."""

    def payload(kind: str) -> io.StringIO:
        columns, rows = table()
        url = page_url(store, section)
        if kind == "json":
            cells = [[v if isinstance(v, (int, str)) or (isinstance(v, float) and math.isfinite(v)) else R.num(v)
                      for v in r] for r in rows]
            return io.StringIO(json.dumps({"url": url, "columns": list(columns), "rows": cells}, indent=1))
        lines = [f"# reproduce: {url}", ",".join(columns)]
        lines += [",".join(_csv_cell(v) for v in r) for r in rows]
        return io.StringIO("\n".join(lines) + "\n")

    return pn.Row(*(pn.widgets.FileDownload(callback=lambda k=kind: payload(k), filename=f"{name}.{kind}",
                                            label=f"Download {kind.upper()}", button_type="light",
                                            width=150) for kind in ("csv", "json")),
                  css_classes=["wt-exports"])


def _csv_cell(v: object) -> str:
    """A CSV field: numbers as repr (full precision), text quoted when it holds a comma or quote."""
    text = repr(v) if isinstance(v, float) else R.num(v)
    return '"' + text.replace('"', '""') + '"' if any(ch in text for ch in ',"\n') else text


class Runner:
    """Run and Cancel buttons, a determinate progress bar and a status line for one Job.

    `steps()` makes a fresh iterator of progress dicts, each with "step"; a non-finite "loss"
    stops the run and reports divergence instead of drawing garbage.
    """

    def __init__(self, label: str, steps: Callable[[], Iterator[dict]], total: Callable[[], int],
                 on_step: Callable[[dict], None], on_done: Callable[[dict | None], None] = lambda last: None):
        self.job, self.steps, self.total = Job(), steps, total
        self.on_step, self.on_done = on_step, on_done
        self.run = pn.widgets.Button(name=label, button_type="primary", width=160)
        self.cancel = pn.widgets.Button(name="Cancel", button_type="default", width=100, disabled=True)
        self.bar = pn.indicators.Progress(value=0, max=100, width=200, bar_color="primary")
        self.status = pn.pane.HTML('<p class="wt-status" role="status"></p>', sizing_mode="stretch_width")
        self.run.on_click(lambda _: self.start())
        self.cancel.on_click(lambda _: self.stop("Cancelled."))

    def view(self) -> pn.Row:
        return pn.Row(self.run, self.cancel, self.bar, self.status, sizing_mode="stretch_width")

    def say(self, text: str, kind: str = "") -> None:
        self.status.object = f'<p class="wt-status {kind}" role="status">{html.escape(text)}</p>'

    def start(self) -> None:
        """(Re)start the run from the current settings; a run already going is dropped."""
        total = max(self.total(), 1)
        self.bar.value, self.run.disabled, self.cancel.disabled = 0, True, False
        self.say("Running…")

        def step(p: dict) -> None:
            loss = p.get("loss", 0.0)
            if not math.isfinite(loss):
                self.stop(f"Diverged at step {p['step']}: the loss became {R.num(loss)}. "
                          "Lower the learning rate and run again.", "wt-bad")
                return
            self.bar.value = min(100, int(100 * p["step"] / total))
            self.say(f"Step {p['step']} of {total}")
            self.on_step(p)

        def done(last: dict | None) -> None:
            self.bar.value, self.run.disabled, self.cancel.disabled = 100, False, True
            self.say("Done.")
            self.on_done(last)

        def failed(err: Exception) -> None:
            self.stop(f"Stopped: {type(err).__name__}: {err}", "wt-bad")

        self.job.start(self.steps(), step, done, failed)

    def stop(self, message: str, kind: str = "") -> None:
        self.job.cancel()
        self.run.disabled, self.cancel.disabled = False, True
        self.say(message, kind)
