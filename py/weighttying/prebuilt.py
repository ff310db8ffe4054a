"""The run results the page shows before anyone presses Run: every heavy section's results for its
default state (`views.<id>.results`, as `views.kit.with_results` gives them), computed at build in
CPython and shipped as one file, results.json, whose sha256 the page's config records. The live lab
reads it at start, so a live section shows the same numbers as the prerender without running
anything; a missing or modified file is named and the sections compute their results live. No Panel.
"""
from __future__ import annotations

import json

from . import state
from .prerender import view
from .views import kit

FILE = "results.json"
# the run sections, in page order: those whose view has results (heavy work) for its state
RUN_SECTIONS = tuple(sid for sid in state.SECTIONS if view(sid).results is not kit.no_results)


def compute() -> dict[str, dict]:
    """{section id: its default results, as the build ships them} for every run section."""
    return {sid: kit.with_results(view(sid), getattr(state.State(), sid)) for sid in RUN_SECTIONS}


def dumps(results: dict[str, dict]) -> bytes:
    """results.json's bytes (compact; Python's float repr, so every number reads back exactly)."""
    return json.dumps(results, separators=(",", ":"), ensure_ascii=False).encode()


def loads(text: str) -> dict[str, dict]:
    """The results of results.json's text; ValueError naming what is wrong with it."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ValueError(f"{FILE} is not valid JSON ({err})") from None
    if not isinstance(data, dict) or not all(sid in state.SECTIONS and isinstance(r, dict) for sid, r in data.items()):
        raise ValueError(f"{FILE} does not hold results by section")
    return data
