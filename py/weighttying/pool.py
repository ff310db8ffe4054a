"""A run split across a pool of numerics workers, the numerics side (no Panel: the pool's workers load only
NumPy and this package).

A run section's view splits its run into parts (`view.split(st, n)`: at most n balanced parts, each a plain
dict of the run's independent models: seeds, tied/untied, tasks), runs one part (`view.iter_part(st, part)`:
progress dicts, each with the part's own "step" and "total") and merges what the parts streamed so far into
the results its live section shows (`view.merge(st, streams)`); merged once every part is done, they are the
one-worker run's results (tests/test_pool.py, tests/test_pyodide_node.py). Between workers a part and its points
travel as JSON text (`encode`/`decode`: arrays keep their dtype, floats their every bit, NaN included).
"""
from __future__ import annotations

import dataclasses
import json
import math
import time

import numpy as np

from . import state
from .views import contract

BUDGET_S = 0.2  # compute per batch of points a part sends: a few messages a second, each a few ms to pass on


def parted(section: str) -> bool:
    """Whether `section`'s Run splits into parts: its view declares split, iter_part and merge."""
    return section in state.SECTION and contract.view(section).split is not None


def view(section: str) -> contract.View:
    """The view of a run section that splits."""
    if not parted(section):
        raise ValueError(f"the {section!r} section's run does not split into parts")
    return contract.view(section)


def section_state(section: str, fields: dict):
    """The frozen state of `section` from its fields (a part's spec carries them)."""
    return type(getattr(state.State(), section))(**fields)


def _plain(obj):
    """obj with every array as {"__nd__": nested list, "dtype"} (JSON holds lists, not arrays)."""
    if isinstance(obj, np.ndarray):
        return {"__nd__": obj.tolist(), "dtype": obj.dtype.str}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def _arrays(obj):
    """_plain undone: {"__nd__"} back to arrays."""
    if isinstance(obj, dict):
        if "__nd__" in obj:
            return np.array(obj["__nd__"], dtype=obj["dtype"])
        return {k: _arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_arrays(v) for v in obj]
    return obj


def encode(obj) -> str:
    """obj as JSON text (repr floats: every bit kept; NaN and inf as Python's json spells them)."""
    return json.dumps(_plain(obj))


def decode(text: str):
    """encode undone."""
    return _arrays(json.loads(text))


def balanced(units: list, n: int, weight=lambda unit: 1.0) -> list[list]:
    """units in at most n parts of near-equal total weight (largest first onto the lightest part), each
    part keeping the units' order; no empty part."""
    loads, parts = [0.0] * max(1, n), [[] for _ in range(max(1, n))]
    for i in sorted(range(len(units)), key=lambda i: -weight(units[i])):
        k = loads.index(min(loads))
        loads[k] += weight(units[i])
        parts[k].append(i)
    return [[units[i] for i in sorted(p)] for p in parts if p]


def split(section: str, st, n: int) -> list[dict]:
    """A run's parts for n workers, each a spec a worker runs alone: {section, state, part}."""
    return [{"section": section, "state": dataclasses.asdict(st), "part": p} for p in view(section).split(st, n)]


class Part:
    """One part of a run in a numerics worker, run a batch at a time (the worker reads its messages between
    batches, so a Cancel lands): `batch()` is JSON {points, done, step}."""

    def __init__(self, spec: str):
        spec = json.loads(spec)
        self.view = view(spec["section"])
        self.points = self.view.iter_part(section_state(spec["section"], spec["state"]), spec["part"])
        self.done, self.step = False, 0

    def batch(self, budget: float = BUDGET_S) -> str:
        """The points computed in about `budget` s (a superseded key, view.LATEST, only on the batch's last); a point
        the view marks "flush" ends its batch at once and marks it (it is worth showing now, or what follows may never
        return): {points, done, step, flush}."""
        out, t0, flush = [], time.perf_counter(), False
        while time.perf_counter() - t0 < budget:
            point = next(self.points, None)
            if point is None:
                self.done = True
                break
            flush = point.pop("flush", False)
            out.append(point)
            self.step = point["step"]
            if flush:
                break
        stale = [{k: v for k, v in p.items() if k not in self.view.LATEST} for p in out[:-1]]
        return encode({"points": stale + out[-1:], "done": self.done, "step": self.step, "flush": flush})


class Gather:
    """The points of a run's parts as they arrive (in the worker that shows the run): the merged progress
    point for the run's bar, and the results merged so far."""

    def __init__(self, section: str, st, parts: int, total: int):
        self.view, self.st, self.total = view(section), st, total
        self.streams = [[] for _ in range(parts)]
        self.done = [False] * parts
        self.flushed = False  # the last batch taken in ended on a point its view marked "flush": show it now

    def add(self, part: int, batch: str) -> dict:
        """A part's batch (Part.batch) taken in: the run's progress {step (of total), loss (the worst)}."""
        got = decode(batch)
        self.streams[part] += got["points"]
        self.done[part], self.flushed = got["done"], got["flush"]
        return self.progress()

    def restart(self, part: int) -> None:
        """A part started again from its first step (its worker was replaced)."""
        self.streams[part], self.done[part] = [], False

    def progress(self) -> dict:
        """{step (of total), loss (the worst)}, and what a section's status names: the models training at once
        (every part's) and the phase (the latest part's)."""
        latest = [s[-1] for s in self.streams if s]
        done = sum(p["step"] / max(1, p["total"]) for p in latest) / len(self.streams)  # balanced parts: a mean
        out = {"step": min(self.total, math.floor(self.total * done)),
               "loss": float(np.max([p["loss"] for p in latest])) if latest else 0.0}
        if latest and all("models" in p for p in latest):
            out["models"] = sum(p["models"] for p in latest)
        return out | ({"phase": latest[-1]["phase"]} if latest and "phase" in latest[-1] else {})

    @property
    def finished(self) -> bool:
        return all(self.done)

    def results(self) -> dict:
        """The results merged from every part's points so far (the one-worker run's once all are done)."""
        return self.view.merge(self.st, self.streams)
