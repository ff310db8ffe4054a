"""A section's Run on the page's pool of numerics workers (site/pool.js), from the Panel worker's side.

`steps(section, st, total, alone)` is the Run as an async stream of progress dicts, like the one-worker
iterator it replaces: it asks the page (emit "pool-run") to run the view's parts (weighttying.pool.split) in
the pool, takes each part's batches as the page relays them (`heard`), and yields the run's progress with the
results merged so far ("merged"); this worker only gathers and draws. A Cancel (the Job's task cancelled) tells
the page to stop every part ("pool-cancel"). A numerics worker that died is replaced by the page and its part
run again (a "note" for the section's status line); a pool that cannot start runs `alone()` here instead, with
a note, and no later Run asks it again.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
from typing import Callable, Iterator

from .. import pool

SIZE = {"workers": 0}  # how many numerics workers the page may start (0: no pool, every Run runs here)
_emit: Callable[[str, str], None] = lambda kind, data: None  # noqa: E731  (a slot that setup() fills, not a function)
_runs: dict[int, asyncio.Queue] = {}
_ids = itertools.count(1)
SHARE = 0.08  # of a pooled Run's time this worker may spend on updates; taking the batches in is ~2 % more


class PartFailed(RuntimeError):
    """A part of a pooled Run failed: its message, from the page or the part's Python, is said as it stands."""


def setup(size: int, emit: Callable[[str, str], None]) -> None:
    """The page's pool size for this worker's Runs, and how to post to the page (worker.js, once)."""
    global _emit
    SIZE["workers"], _emit = int(size), emit


def available(section: str) -> bool:
    """Whether a Run of `section` goes to the pool."""
    return SIZE["workers"] > 0 and pool.parted(section)


def heard(kind: str, run: int, part: int, text: str) -> None:
    """The pool's word on run `run` (worker.js): "points" (a part's batch), "retry" (its worker died: it runs
    again from its start), "failed" (the pool cannot start), "error" (a part's Python failed)."""
    queue = _runs.get(int(run))
    if queue is not None:
        queue.put_nowait((kind, None if part is None else int(part), text))


async def steps(section: str, st, total: int, alone: Callable[[], Iterator[dict]], draw_s: float = 0.0):
    """The Run of st in the pool: progress dicts {step, loss, merged (the results so far, None when unchanged)},
    at most one every draw_s s or its cost / SHARE but the last (and one at once when the loss is not finite or a
    batch was flushed: Part.batch), or {step, note}."""
    run, specs = next(_ids), pool.split(section, st, SIZE["workers"])
    gather, queue = pool.Gather(section, st, len(specs), total), asyncio.Queue()
    shown = [pool.encode(gather.results())]  # nothing yet: the results a Run starts from
    drawn, cost = [-math.inf], [0.0]  # when the last update began, and what it cost (s)
    _runs[run] = queue

    def merged() -> dict | None:
        """The results merged so far, or None when they are what the section already shows."""
        results = gather.results()
        text = pool.encode(results)
        changed, shown[0] = text != shown[0], text
        return results if changed else None

    def due(progress: dict) -> bool:
        return gather.finished or gather.flushed or not math.isfinite(progress["loss"]) or (
            time.perf_counter() - drawn[0] >= max(draw_s, cost[0] / SHARE))
    _emit("pool-run", json.dumps({"sid": section, "run": run, "parts": [json.dumps(s) for s in specs],
                                  "quiet_s": pool.view(section).QUIET_S}))
    try:
        while not gather.finished:
            kind, part, text = await queue.get()
            if kind == "points":
                progress = gather.add(part, text)
                if due(progress):
                    drawn[0] = time.perf_counter()
                    yield {**progress, "merged": merged()}  # the section takes it in before this resumes
                    cost[0] = time.perf_counter() - drawn[0]
            elif kind == "retry":
                gather.restart(part)
                yield {**gather.progress(), "note": text}
            elif kind == "failed":
                SIZE["workers"] = 0
                yield {"step": 0, "note": text}
                for point in alone():
                    yield point
                    await asyncio.sleep(0)
                return
            else:
                raise PartFailed(text)
    finally:
        _runs.pop(run, None)
        if not gather.finished:
            _emit("pool-cancel", json.dumps({"run": run}))
