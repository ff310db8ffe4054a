"""The one lifecycle of a section's run (RunSection): the build's results at hand-over, Run, Cancel, the
RUN_KEYS policy and redraws at most every DRAW_S."""
from __future__ import annotations

import math
import time
import weakref
from typing import Callable, Iterator, Sequence

from ... import pool
from ...views import contract
from ...views import kit as views_kit
from .. import pooled
from ..store import Store
from .runner import Runner, on_document_ready
from .slot_panes import Slots, kept, prebuilt_for



DRAW_S = 0.4  # a streaming run redraws its slots at most this often
# Each store's RunSections by section, and the results of Runs the page ran before a section was built (adopt)
RUNS: "weakref.WeakKeyDictionary[Store, dict[str, RunSection]]" = weakref.WeakKeyDictionary()
ADOPTED: "weakref.WeakKeyDictionary[Store, dict[str, dict]]" = weakref.WeakKeyDictionary()


def adopt(store: Store, section: str, batches: list[str]) -> None:
    """A Run the page ran before the section was live (site/earlyrun.js: its one part's batches), taken in as the
    section's results, as if its own pooled Run had streamed them: shown now if the section is built, else when it is."""
    gather = pool.Gather(section, store.state_of(section), 1, 0)
    for text in batches:
        gather.add(0, text)
    results = gather.results()
    run = RUNS.get(store, {}).get(section)
    if run is None:
        ADOPTED.setdefault(store, {})[section] = results
    else:
        run.adopt(results)


def every(seconds: float, fn: Callable[[], None]) -> Callable[[bool], None]:
    """fn limited to one call per `seconds` (a streaming run's redraw: each is a patch the page applies);
    calling the result with True runs fn regardless (the last point of a run)."""
    last = [-math.inf]

    def call(force: bool = False) -> None:
        if force or time.perf_counter() - last[0] >= seconds:
            last[0] = time.perf_counter()
            fn()
    return call


class RunSection:
    """A section's run and everything around it, one lifecycle for every section with one (docs/DESIGN.md):

    - `results` is what the slots show: at hand-over the build's for the current settings (`prebuilt_for`), and
      nothing runs by itself;
    - Run restarts from `fresh()` plus the build's `keep` parts (which no run recomputes) and streams each
      progress dict of the view's `steps(st)` (`total(st)` steps) into it (`collect(results, point)`, True
      when what the slots show changed: drawn at most every DRAW_S, and at the end); Cancel stops it; a
      failing step stops it with a readable status line, a failing draw is Slots' error line;
    - the one RUN_KEYS policy: a change of a RUN_KEYS field stops a run in flight and shows the build's
      results if the settings are back at the defaults, else the pending state; it starts nothing: runs
      wait for Run. A view without RUN_KEYS has results that follow every control (the gradient check,
      which every slot needs): any change restarts its run, unless the build's results apply;
    - results nobody has (no results.json; for a view without RUN_KEYS, also settings the build did not
      run) are computed live once the page shows the section, as pressing Run would.
    `draw(run)` replaces `run.slots.show` for a section whose slots need more than its results; `check()` names
    why Run cannot start (a bad input: said in the status line, the results shown stay), "" when it can; `steps`
    replaces the view's for a Run that needs what only the live section holds (the store's memo, Panel's batching).
    With `hold`, a Run's start leaves the results shown as they are until its first answer replaces them: for a
    Run whose answer comes within a moment, where blanking them would flash and delay the answer by a redraw.
    """

    def __init__(self, store: Store, section: str, label: str, collect: Callable[[dict, dict], bool],
                 fresh: Callable[[], dict] = dict, keep: Sequence[str] = (),
                 draw: Callable[["RunSection"], None] | None = None, check: Callable[[], str] = lambda: "",
                 steps: Callable[[object], Iterator[dict]] | None = None, hold: bool = False):
        view = contract.view(section)
        if view.steps is None:
            raise TypeError(f"view {view.module} has no Run (steps, total) for app.kit.RunSection")
        steps, total = steps or view.steps, view.total
        self.store, self.section, self.view, self.fresh, self.keep, self.hold = store, section, view, fresh, keep, hold
        adopted = ADOPTED.get(store, {}).pop(section, None)
        self.results: dict = prebuilt_for(store, section) or fresh()
        self.slots = Slots(store, section, lambda: self.results)
        RUNS.setdefault(store, {})[section] = self
        self.draw = (lambda: draw(self)) if draw else self.slots.show
        redraw = every(DRAW_S, self.draw)

        def step(point: dict) -> None:
            if "merged" in point:  # a pooled Run: the results its parts have merged into so far (None: as before)
                collect(self.fresh(), {k: v for k, v in point.items() if k != "merged"})  # only what it says of the run
                if point["merged"] is not None:
                    self._take(point["merged"])
                    redraw(True)  # pooled.steps merges only when a redraw is due
            elif "note" not in point and collect(self.results, point):
                redraw()

        def run(st) -> Iterator[dict]:
            """The Run of st: on the page's pool of numerics workers when there is one, else here."""
            if pooled.available(section):
                return pooled.steps(section, st, total(st), lambda: steps(st), DRAW_S)
            return steps(st)
        self.runner = Runner(label, lambda: self._restart(run), lambda: total(self.st()), step,
                             lambda last: redraw(True), check)
        # no RUN_KEYS: results follow every control, a change reruns (unless the build's results apply), no Run wait
        self.reruns_on_change, self.live = not view.RUN_KEYS, False
        obj = store[section]
        others = [p for p in obj.param if p != "name" and p not in view.RUN_KEYS]
        obj.param.watch(self._changed, list(view.RUN_KEYS) or others)
        if not self.reruns_on_change and others:  # the other controls redraw the same results
            obj.param.watch(lambda *_: self.draw(), others)
        self.draw()
        if adopted is not None:
            self.adopt(adopted)
        if self.unrun():
            on_document_ready(lambda: self.unrun() and self.runner.start())

    def adopt(self, results: dict) -> None:
        """RESULTS of a Run the page ran before the section was live, in place of the ones shown, unless a live Run
        is going (the reader's latest)."""
        if self.runner.job.running:
            return
        self.live = True
        self._take(results)
        self.draw()

    def _take(self, merged: dict) -> None:
        """MERGED results (a pooled Run's, or one the page ran) in place of the ones shown, the build's kept parts kept."""
        self.results.clear()
        self.results.update(self.fresh(), **kept(self.store, self.section, self.keep), **merged)

    def st(self):
        """The section's current state."""
        return self.store.state_of(self.section)

    def unrun(self) -> bool:
        """Whether the section must compute its results by itself: nothing ran live yet and there are none for
        the settings shown (with RUN_KEYS: no results.json at all, and the settings are the defaults)."""
        if self.live or self.runner.job.running:
            return False
        if self.reruns_on_change:
            return not self.results
        return self.store.prebuilt is None and views_kit.built_applies(self.view, self.st())

    def _restart(self, steps: Callable[[object], Iterator[dict]]) -> Iterator[dict]:
        """A live run's start: the build's results go (but the parts no run redoes), the slots show that (with
        `hold`, they stay until the run's first answer)."""
        self.live = True
        if not self.hold:
            self.results.clear()
            self.results.update(self.fresh(), **kept(self.store, self.section, self.keep))
            self.draw()
        return steps(self.st())

    def _changed(self, *_) -> None:
        """The RUN_KEYS policy (see the class): the results shown always belong to the settings shown."""
        if self.runner.job.running:
            self.runner.stop(f"Settings changed: the run was stopped. Press “{self.runner.run.name}” to run "
                             "with the new settings." if not self.reruns_on_change else "")
        self.results.clear()
        self.results.update(prebuilt_for(self.store, self.section) or self.fresh())
        self.draw()
        if self.reruns_on_change and not self.results:
            self.runner.start()
