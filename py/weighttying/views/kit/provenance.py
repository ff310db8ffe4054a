"""Where a result comes from: the build's results (results.json, marked "build") for the settings that have
them, or a live run; and the line under a block that says which."""
from __future__ import annotations

import copy
import dataclasses
import functools
import json

import numpy as np

from ...markup import escape
from ...precision import carry
from .hooks import plain_number



def no_results(st) -> None:
    """`results` of a section whose slots need no run: everything is computed from the state alone."""
    return None


def with_results(view, st):
    """The run results slots should show for st without a run: the section's own results, as the
    build ships them (`as_built`), when st leaves every RUN_KEYS field at its default, else None (a
    changed setting has no result until Run)."""
    default = type(st)()
    same = all(getattr(st, k) == getattr(default, k) for k in view.RUN_KEYS)
    # results follow the RUN_KEYS alone: every state default on them shares the default's (one run per build)
    return copy.deepcopy(_built(view, default if view.RUN_KEYS else st)) if same else None


@functools.lru_cache(maxsize=128)
def _built(view, st):
    """as_built(view.results(st)), once per state: the prerender, the playback tables and the
    results file of one build share each heavy run."""
    return as_built(view.results(st))


BUILT = "build"  # results["origin"] of results computed at build (absent: computed live in the browser)
# one line under a block's figures and tables (the package's name is the side column's status line's)
SOURCE_TEXT = {BUILT: "Computed at build by this page's own code, in CPython, not in your browser: running it "
                      "again here recomputes it live.",
               "live": "Computed live in your browser."}


def plain_data(x: object) -> object:
    """x as JSON holds it: arrays and tuples as lists, numpy scalars as plain numbers (keys must be text)."""
    if isinstance(x, dict):
        assert all(isinstance(k, str) for k in x), f"results keys must be text: {list(x)[:4]}"
        return {k: plain_data(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [plain_data(v) for v in x]
    return plain_number(x) if isinstance(x, np.generic) else x


def as_built(results):
    """results as the page ships them (results.json): plain data, every number carried (precision.carry) and
    through JSON, marked as computed at build, so a view draws the same HTML from them in CPython at build, on
    any machine, and in the browser; None stays None."""
    if results is None:
        return None
    return {**json.loads(json.dumps(carry(plain_data(results)))), "origin": BUILT}


def origin(results) -> str:
    """"build" or "live": who computed these results."""
    return BUILT if isinstance(results, dict) and results.get("origin") == BUILT else "live"


def source(results, testid: str) -> str:
    """One line saying where the shown results were computed (data-source="build" or "live")."""
    where = origin(results)
    return (f'<p class="wt-source" data-testid="{escape(testid)}" data-source="{where}">'
            f"{escape(SOURCE_TEXT[where])}</p>")


def built_applies(view, st) -> bool:
    """Whether the build's results (for the section's default state) are the ones st shows: st is
    default on every RUN_KEYS field, or, for a section without RUN_KEYS (its results follow every
    control), on every field."""
    default = type(st)()
    keys = view.RUN_KEYS or [f.name for f in dataclasses.fields(st)]
    return all(getattr(st, k) == getattr(default, k) for k in keys)
