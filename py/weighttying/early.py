"""Live answers before Panel: a section's slots for a setting its playback table does not hold (a typed value,
a slider beyond the grid), computed in a numerics worker of the page's pool (site/early.js) by the same
`views.<id>.slots` the live section shows, so the reader sees the live figure once NumPy is up, not after
`import panel`; the Panel section, when it arrives, shows the same bytes (both draw from carried results) (tests/test_browser_early.py).
No Panel here. Only a section whose results follow every control (no RUN_KEYS) answers: there, what Panel
shows for a setting is `slots(st, results(st))`; a run section's off-grid setting waits for a Run, which the
Panel worker starts. A Run of the reader's own code is the exception (`Run`): before Panel it runs whole on a
numerics worker, which draws its slots as the live section would.
"""
from __future__ import annotations

import json

from . import pool, state
from .precision import carry
from .views.contract import view


def answers(section: str) -> bool:
    """Whether a numerics worker answers section's off-grid settings (its results follow every control)."""
    return section in state.SECTION and not view(section).RUN_KEYS


def slots(section: str, query: str) -> str:
    """JSON {slot name: inner HTML} of section for the URL query's state, as its live section draws them."""
    if not answers(section):
        raise ValueError(f"the {section!r} section has no live answer without its Run")
    v = view(section)
    st = getattr(state.parse_query(query)[0], section)
    return json.dumps(v.slots(st, carry(v.results(st))), ensure_ascii=False)


def has_run(section: str) -> bool:
    """Whether section has a Run a numerics worker runs before Panel (site/earlyrun.js): a Run on the pool that runs
    the reader's own code (QUIET_S), whose prerendered controls carry its Run button (controls.py, the code kind)."""
    return pool.parted(section) and view(section).QUIET_S is not None


def emitted() -> dict:
    """{section: {"quiet_s"}} of the sections with an early Run, for the page's config (site/earlyrun.js)."""
    return {sid: {"quiet_s": view(sid).QUIET_S} for sid in state.SECTIONS if has_run(sid)}


def prepare(section: str) -> None:
    """What section's Run computes first whatever the reader's code (its view's prepare), computed now: a numerics
    worker warmed for the reader's code (site/pool.js warm) has it before a Run is asked."""
    if not has_run(section):
        raise ValueError(f"the {section!r} section has no Run before the live lab")
    if view(section).prepare is not None:
        view(section).prepare()


def part(spec: str):
    """What a numerics worker runs for a part's spec: a Run before Panel (`Run`: its spec holds the page's query), or
    one part of a pooled Run (pool.Part: its spec holds the section's state)."""
    return Run(spec) if "query" in json.loads(spec) else pool.Part(spec)


class Run:
    """A section's whole Run as one part, before its live section is there (site/earlyrun.js): `batch()` is JSON
    {batch: the part's batch (pool.Part.batch), slots: {slot name: inner HTML} drawn from every point so far, as the
    live section draws a pooled Run's merged results (app.kit.Slots: carried), the slots no result changes left out,
    or null while the results are what the section shows (a bare progress point: the Run's start leaves the results
    shown until its first answer)}. The spec is JSON {section, query, carried}: the section's setting as the page's
    link and its carried values (state.carry) hold it."""

    def __init__(self, spec: str):
        spec = json.loads(spec)
        self.section = spec["section"]
        if not has_run(self.section):
            raise ValueError(f"the {self.section!r} section has no Run before the live lab")
        page = state.carry(state.parse_query(spec["query"])[0], spec.get("carried") or {})
        self.st = getattr(page, self.section)
        self.part = pool.Part(json.dumps(pool.split(self.section, self.st, 1)[0]))
        self.gather = pool.Gather(self.section, self.st, 1, view(self.section).total(self.st))
        self.shown = pool.encode({})  # the results last drawn: none yet
        # the slots no result changes (the code lab's claim and its code's note), which the page already shows:
        # never drawn here, so a worker that ran the reader's code draws only what its results are
        self.fixed = view(self.section).slots(self.st, {})

    @property
    def done(self) -> bool:
        return self.part.done

    @property
    def step(self) -> int:
        return self.part.step

    def batch(self) -> str:
        text = self.part.batch()
        self.gather.add(0, text)
        results = carry(self.gather.results())
        drawn, self.shown = self.shown, pool.encode(results)
        slots = None
        if self.shown != drawn:
            slots = {k: v for k, v in view(self.section).slots(self.st, results).items() if v != self.fixed.get(k)}
        return json.dumps({"batch": text, "slots": slots}, ensure_ascii=False)
