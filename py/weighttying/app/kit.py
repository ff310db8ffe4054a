"""The Panel pieces every live section shares, in one place: slot panes filled from the section's view,
a guard that turns a failure into a readable line, the section layout, a run/cancel/progress strip for
long work and the one lifecycle of a section's run around it (RunSection), and CSV/JSON exports stamped
with the link that reproduces them. No section imports another.

A live section is `build(store)`: `Slots` makes one HTML pane per slot of its view and sets each pane's
`.object` from `view.slots(st, results)`, the same function the build prerenders and plays back from,
so a live number is byte-identical to the precomputed one.
"""
from __future__ import annotations

import copy
import html
import io
import json
import math
import time
import weakref
from typing import Callable, Iterator, Sequence

import panel as pn

from .. import render as R
from .. import state as S
from ..views import kit as views_kit
from . import pooled
from .jobs import Job
from .store import Store, controls

STYLE = ["style.css"]  # the page's stylesheet inside Panel's shadow roots (tables, readouts, figures)
DRAW_S = 0.4  # a streaming run redraws its slots at most this often


def html_pane(text: str = "", **kw) -> pn.pane.HTML:
    """An HTML pane styled like the prerendered page."""
    return pn.pane.HTML(text, sizing_mode="stretch_width", stylesheets=[*STYLE, *kw.pop("stylesheets", [])], **kw)


def failure(err: Exception, what: str = "Could not compute this setting") -> str:
    """A reader-facing line for a failure: its type and message, escaped, never a traceback."""
    return (f'<p class="wt-bad" role="alert">{html.escape(what)}: {html.escape(type(err).__name__)}: '
            f"{html.escape(str(err))}</p>")


def guard(error: pn.pane.HTML, fn: Callable) -> Callable:
    """fn as a watcher that shows a failure as a readable line in `error` (cleared on success) instead of raising."""
    def run(*events):
        try:
            out = fn(*events)
            error.object = ""
            return out
        except Exception as err:  # a reader's setting broke the numerics: say so, keep the page working
            error.object = failure(err)
    return run


class Slots:
    """One HTML pane per slot of a view, filled from view.slots(st, results) for the store's state.

    `show(results)` redraws every slot for the section's current state (a pane whose HTML did not
    change sends nothing to the page); a failure leaves the panes as they were and says why in `error`.
    """

    def __init__(self, store: Store, section: str, view, results: Callable[[], object] = lambda: None):
        self.store, self.section, self.view, self.results = store, section, view, results
        self.panes = {name: html_pane(views_kit.slot(name, "")) for name in view.SLOTS}
        self.error = html_pane()
        self.show = guard(self.error, self._show)
        self.downloads: list = []  # figures' SVG downloads, which `layout` puts in "Data and downloads"
        SECTION_SLOTS.setdefault(store, {})[section] = self

    def __getitem__(self, name: str) -> pn.pane.HTML:
        return self.panes[name]

    def _show(self, *_) -> None:
        for name, inner in self.view.slots(self.store.state_of(self.section), self.results()).items():
            self.panes[name].object = views_kit.slot(name, inner)

    def figure(self, name: str) -> pn.viewable.Viewable:
        """A figure slot, with its overlay slot (view.OVERLAYS) drawn over it in one grid cell; a download
        of what it shows as an SVG file stamped with the link that reproduces it joins `downloads`."""
        over = {base: o for o, base in self.view.OVERLAYS.items()}.get(name)
        shown: pn.viewable.Viewable = self.panes[name]
        if over:
            self.panes[name].styles = {"grid-area": "1 / 1"}
            self.panes[over].styles = {"grid-area": "1 / 1", "pointer-events": "none"}
            shown = pn.Column(self.panes[name], self.panes[over], styles={"display": "grid"},
                              css_classes=["wt-stack"], sizing_mode="stretch_width")
        panes = [self.panes[n] for n in (name, over) if n]
        self.downloads.append(figure_download(self.store, self.section, f"{self.section}-{name}",
                                              lambda: [p.object for p in panes]))
        return pn.Column(shown, sizing_mode="stretch_width")  # a box of its own: wrap_row restyles it, not the stack

    def follow(self, fields: Sequence[str] | None = None) -> "Slots":
        """Draw now and again whenever one of `fields` (default: every control of the section) changes."""
        obj = self.store[self.section]
        self.store[self.section].param.watch(self.show, list(fields or [p for p in obj.param if p != "name"]))
        self.show()
        return self


def built(store: Store, section: str, view) -> dict | None:
    """The build's results for the section's current settings, as a copy the section may extend;
    None when there are none for them (other settings, or no results file)."""
    data = (store.built or {}).get(section)
    if data is None or not views_kit.built_applies(view, store.state_of(section)):
        return None
    return copy.deepcopy(data)


def kept(store: Store, section: str, keys: Sequence[str]) -> dict:
    """The parts `keys` of the build's results that a live run keeps because it does not recompute them (the
    seed spread that judges a single run, the paper's tuned lens); {} without the build's results."""
    data = (store.built or {}).get(section) or {}
    return {k: copy.deepcopy(data[k]) for k in keys if k in data}


def every(seconds: float, fn: Callable[[], None]) -> Callable[[bool], None]:
    """fn limited to one call per `seconds` (a streaming run's redraw: each is a patch the page applies);
    calling the result with True runs fn regardless (the last point of a run)."""
    last = [-math.inf]

    def call(force: bool = False) -> None:
        if force or time.perf_counter() - last[0] >= seconds:
            last[0] = time.perf_counter()
            fn()
    return call


def wrap_row(*columns: pn.Column) -> pn.Row:
    """Columns side by side that wrap under each other where either would be under 460 px (a figure's least
    width to read, style.css's .wt-pair)."""
    for c in columns:
        c.param.update(sizing_mode="stretch_width", styles={"flex": "1 1 460px", "min-width": "0"})  # CSS, not min_width:
        # Bokeh sums children's min_width into the row's, which would stop it from ever wrapping
    return pn.Row(*columns, sizing_mode="stretch_width", styles={"flex-wrap": "wrap"})


# Each store's Slots by section, so `layout` can place what a section hands it in the view's order.
SECTION_SLOTS: "weakref.WeakKeyDictionary[Store, dict[str, Slots]]" = weakref.WeakKeyDictionary()
# The card drawn as the prerender's <details class="wt-data"> (style.css): a rule above, a 2 rem line of
# bold text with a triangle, no box.
DATA_CARD_CSS = """
:host(.card) { box-shadow: none; outline: none; border-radius: 0; border-top: 1px solid var(--line, #d4d4d8);
               margin: 0.5rem 0 0 !important; }
.card-header { background: none; border-radius: 0; padding-inline: 0; height: 2rem; font: inherit; }
.card-header:hover { box-shadow: none; }
.card-button { color: inherit; font-size: 1rem; width: 1.2rem; }
.card-title { font-size: 1.05rem; font-weight: 600; }
"""
# style.css's .wt-block for the live pieces: the controls in a column beside the rest, which takes every pixel
# the column leaves (flex-grow 100 to 1); on a narrow screen the column takes a line of its own above.
SIDE = {"flex": "1 1 16rem", "max-width": "100%", "align-self": "flex-start"}  # sticky: site/live.css
MAIN = {"flex": "100 1 30rem", "min-width": "0"}


def parts(item) -> Iterator:
    """item and every Panel object inside it, depth first."""
    yield item
    for child in getattr(item, "objects", None) or []:
        yield from parts(child)


def is_download(item, slot_ids: set[int]) -> bool:
    """Whether item is downloads (export buttons, a figure's SVG, their labels) and no slot, so it belongs
    in "Data and downloads"."""
    inside = list(parts(item))
    return (any("wt-exports" in (getattr(p, "css_classes", None) or []) for p in inside)
            and not any(id(p) in slot_ids for p in inside))


def pluck(item, take: Callable[[object], bool]) -> list:
    """Remove from inside item (not item itself) every piece take() wants, and the boxes that leaves
    empty; return the pieces removed, in order."""
    out = []
    for child in list(getattr(item, "objects", None) or []):
        if take(child):
            out.append(child)
            item.remove(child)
        else:
            out += pluck(child, take)
            if getattr(child, "objects", None) == []:
                item.remove(child)
    return out


def layout(store: Store, section: str, side: Sequence, below: Sequence = ()) -> pn.Column:
    """A section's root, laid out as its prerender is (views.kit.compose): the claim slot, the controls in
    a column beside the slots in the view's order (each with the run strip handed over just before it), pairs side
    by side, and the view's DATA slots with every download in one closed "Data and downloads" card.
    `side` and `below` are the section's pieces in its own reading order."""
    slots = SECTION_SLOTS.get(store, {}).get(section)
    bar = controls(store, section)
    bar.param.update(styles={**bar.styles, **SIDE}, sizing_mode="stretch_width")
    if slots is None:  # a section without Slots: its pieces as given
        return pn.Column(bar, *side, *below, css_classes=[f"wt-{section}"], sizing_mode="stretch_width")
    view, owner = slots.view, {id(p): n for n, p in slots.panes.items()}
    groups: dict[str, list] = {}
    waiting, downloads, tail = [], [], []
    data_panes = {id(slots.panes[n]) for n in view.DATA}
    for item in [*side, *below]:  # data slots and downloads a section nested beside a figure come out first
        if is_download(item, set(owner)):
            continue
        for piece in pluck(item, lambda c: id(c) in data_panes or is_download(c, set(owner))):
            (groups.setdefault(owner[id(piece)], []) if id(piece) in owner else downloads).append(piece)
    for item in [*side, *below]:
        name = next((owner[id(p)] for p in parts(item) if id(p) in owner), None)
        if item is slots.error:
            continue
        if name is None and is_download(item, set(owner)):
            downloads.append(item)
        elif name is None:
            waiting.append(item)  # a run strip or a status line: it goes with the slot it computes, the next
        else:
            groups[name] = [*waiting, item]
            waiting = []
    tail = waiting
    placed = {owner[id(p)] for g in groups.values() for i in g for p in parts(i) if id(p) in owner}
    for name in view.SLOTS:  # slots the section did not hand over (the claim) go where the view puts them
        if name not in placed and name not in view.OVERLAYS:
            groups[name] = [slots.panes[name]]
    for a, b in view.PAIRS:
        if b in groups and a in groups:
            groups[a] = [wrap_row(pn.Column(*groups[a]), pn.Column(*groups.pop(b)))]
    order = sorted(groups, key=view.SLOTS.index)
    main = [i for n in order if n != view.CLAIM and n not in view.DATA for i in groups[n]]
    data = [i for n in order if n in view.DATA for i in groups[n]]
    card = pn.Card(*data, *downloads, *slots.downloads, title=views_kit.DATA_SUMMARY, collapsed=True,
                   sizing_mode="stretch_width", css_classes=["wt-data"], stylesheets=[DATA_CARD_CSS], margin=0)
    block = pn.Row(bar, pn.Column(slots.error, *main, *tail, styles=MAIN, sizing_mode="stretch_width"),
                   styles={"flex-wrap": "wrap", "column-gap": "1.5rem"}, css_classes=["wt-block"], sizing_mode="stretch_width")
    return pn.Column(*groups.get(view.CLAIM, []), block, card, css_classes=[f"wt-{section}"], sizing_mode="stretch_width")


# ---- exports -------------------------------------------------------------------------------------------

def page_url(store: Store, section: str) -> str:
    """The link that reproduces what a section shows now: page address, query, section anchor."""
    query = S.to_query(store.state)
    return f"{store.base_url}{'?' + query if query else ''}#{section}"


def export_cell(v: object) -> object:
    """A cell as both exports hold it: numbers plain (hooked cells too), non-finite floats as the text
    "inf", "-inf" or "nan" (JSON has no such numbers; CSV readers parse these spellings back)."""
    v = views_kit.plain_number(views_kit.plain(v))
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def _csv_cell(v: object) -> str:
    """A CSV field: numbers as repr (full precision), booleans as JSON spells them, text quoted when it
    holds a comma, quote or newline."""
    text = json.dumps(v) if isinstance(v, bool) else repr(v) if isinstance(v, float) else str(v)
    return '"' + text.replace('"', '""') + '"' if any(ch in text for ch in ',"\n') else text


def export_buttons(store: Store, section: str, name: str,
                   table: Callable[[], tuple[Sequence[str], Sequence[Sequence[object]]]]) -> pn.Row:
    """CSV and JSON downloads of table() = (columns, rows), each stamped with its reproducing link."""

    def payload(kind: str) -> io.StringIO:
        columns, rows = table()
        url, cells = page_url(store, section), [[export_cell(v) for v in r] for r in rows]
        if kind == "json":
            return io.StringIO(json.dumps({"url": url, "columns": list(columns), "rows": cells}, indent=1))
        lines = [f"# reproduce: {url}", ",".join(_csv_cell(c) for c in columns)]
        lines += [",".join(_csv_cell(v) for v in r) for r in cells]
        return io.StringIO("\n".join(lines) + "\n")

    return pn.Row(*(pn.widgets.FileDownload(callback=lambda k=kind: payload(k), filename=f"{name}.{kind}",
                                            label=f"Download {kind.upper()}", button_type="light",
                                            width=150) for kind in ("csv", "json")),
                  css_classes=["wt-exports"])


def figure_download(store: Store, section: str, name: str, fragments: Callable[[], list[str]]) -> pn.widgets.FileDownload:
    """"Download figure (SVG)": the figure in fragments() (a slot's HTML, then its overlay's) as an .svg
    file with the reproducing link stamped under the plot."""
    return pn.widgets.FileDownload(
        callback=lambda: io.StringIO(R.standalone(fragments(), page_url(store, section))), filename=f"{name}.svg",
        label="Download figure (SVG)", button_type="light", width=200, css_classes=["wt-exports"])


# ---- long work -------------------------------------------------------------------------------------------

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
        self.run.on_click(lambda _: self.start())
        self.cancel.on_click(lambda _: self.stop("Cancelled."))

    def view(self) -> pn.Column:
        """Buttons, then bar and status while they have something to show, stacked to fit a 360 px screen."""
        return pn.Column(pn.Row(self.run, self.cancel), self.bar, self.status, sizing_mode="stretch_width")

    def say(self, text: str, kind: str = "") -> None:
        self.status.param.update(object=f'<p class="wt-status {kind}" role="status">{html.escape(text)}</p>',
                                 visible=bool(text))

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
        self.notes = []
        self.say("Running…")
        told = lambda text: " ".join([text, *self.notes])  # noqa: E731

        def step(p: dict) -> None:
            loss = p.get("loss", 0.0)
            if not math.isfinite(loss):
                self.stop(f"Diverged at step {p['step']}: the loss became {R.num(loss)}. "
                          "Lower the learning rate and run again.", "wt-bad")
                return
            self.notes += [p["note"]] if "note" in p else []
            self.bar.value = min(100, int(100 * p["step"] / total))
            self.say(told(f"Step {p['step']} of {total}"))
            self.on_step(p)

        def done(last: dict | None) -> None:
            self.bar.value = 100
            self.busy(False)
            self.say(told("Done."))
            self.on_done(last)

        def failed(err: Exception) -> None:
            self.stop(f"Stopped: {type(err).__name__}: {err}", "wt-bad")

        self.job.start(self.steps(), step, done, failed)

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


class RunSection:
    """A section's run and everything around it, one lifecycle for every section with one (docs/DESIGN.md):

    - `results` is what the slots show: at hand-over the build's for the current settings (`built`), and
      nothing runs by itself;
    - Run restarts from `fresh()` plus the build's `keep` parts (which no run recomputes) and streams each
      progress dict of `steps(st)` into it (`collect(results, point)`, True when what the slots show
      changed: drawn at most every DRAW_S, and at the end); Cancel stops it; a failing step stops it with
      a readable status line, a failing draw is Slots' error line;
    - the one RUN_KEYS policy: a change of a RUN_KEYS field stops a run in flight and shows the build's
      results if the settings are back at the defaults, else the pending state; it starts nothing: runs
      wait for Run. A view without RUN_KEYS has results that follow every control (the gradient check,
      which every slot needs): any change restarts its run, unless the build's results apply;
    - results nobody has (no results.json; for a view without RUN_KEYS, also settings the build did not
      run) are computed live once the page shows the section, as pressing Run would.
    `draw(run)` replaces `run.slots.show` for a section whose slots need more than its results; `check()` names
    why Run cannot start (a bad input: said in the status line, the results shown stay), "" when it can.
    """

    def __init__(self, store: Store, section: str, view, label: str, steps: Callable[[object], Iterator[dict]],
                 total: Callable[[object], int], collect: Callable[[dict, dict], bool], fresh: Callable[[], dict] = dict,
                 keep: Sequence[str] = (), draw: Callable[["RunSection"], None] | None = None,
                 check: Callable[[], str] = lambda: ""):
        self.store, self.section, self.view, self.fresh, self.keep = store, section, view, fresh, keep
        self.results: dict = built(store, section, view) or fresh()
        self.slots = Slots(store, section, view, lambda: self.results)
        self.draw = (lambda: draw(self)) if draw else self.slots.show
        redraw = every(DRAW_S, self.draw)

        def step(point: dict) -> None:
            if "merged" in point:  # a pooled Run: the results its parts have merged into so far (None: as before)
                collect(self.fresh(), {k: v for k, v in point.items() if k != "merged"})  # only what it says of the run
                if point["merged"] is not None:
                    self.results.clear()
                    self.results.update(self.fresh(), **kept(store, section, keep), **point["merged"])
                    redraw()
            elif "note" not in point and collect(self.results, point):
                redraw()

        def run(st) -> Iterator[dict]:
            """The Run of st: on the page's pool of numerics workers when there is one, else here."""
            return pooled.steps(section, st, total(st), lambda: steps(st)) if pooled.available(section) else steps(st)
        self.runner = Runner(label, lambda: self._restart(run), lambda: total(self.st()), step,
                             lambda last: redraw(True), check)
        self.follows, self.live = not view.RUN_KEYS, False  # follows: results follow every control, no Run wait
        obj = store[section]
        others = [p for p in obj.param if p != "name" and p not in view.RUN_KEYS]
        obj.param.watch(self._changed, list(view.RUN_KEYS) or others)
        if not self.follows and others:  # the other controls redraw the same results
            obj.param.watch(lambda *_: self.draw(), others)
        self.draw()
        if self.unrun():
            on_document_ready(lambda: self.unrun() and self.runner.start())

    def st(self):
        """The section's current state."""
        return self.store.state_of(self.section)

    def unrun(self) -> bool:
        """Whether the section must compute its results by itself: nothing ran live yet and there are none for
        the settings shown (with RUN_KEYS: no results.json at all, and the settings are the defaults)."""
        if self.live or self.runner.job.running:
            return False
        if self.follows:
            return not self.results
        return self.store.built is None and views_kit.built_applies(self.view, self.st())

    def _restart(self, steps: Callable[[object], Iterator[dict]]) -> Iterator[dict]:
        """A live run's start: the build's results go (but the parts no run redoes), the slots show that."""
        self.live = True
        self.results.clear()
        self.results.update(self.fresh(), **kept(self.store, self.section, self.keep))
        self.draw()
        return steps(self.st())

    def _changed(self, *_) -> None:
        """The RUN_KEYS policy (see the class): the results shown always belong to the settings shown."""
        if self.runner.job.running:
            self.runner.stop(f"Settings changed: the run was stopped. Press “{self.runner.run.name}” to run "
                             "with the new settings." if not self.follows else "")
        self.results.clear()
        self.results.update(built(self.store, self.section, self.view) or self.fresh())
        self.draw()
        if self.follows and not self.results:
            self.runner.start()
