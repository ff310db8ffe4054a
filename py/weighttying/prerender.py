"""Every section's default state as static HTML, made by build.py in CPython so the page reads
before Python loads in the browser. No Panel here: each section's HTML lives in `views/<id>.py`."""
from __future__ import annotations

import importlib
import importlib.util

from . import state as S


def sections(state: S.State = S.State()) -> dict[str, str]:
    """{section id: static HTML of its state} for every section that has a view module."""
    out = {}
    for sid in S.SECTIONS:
        if importlib.util.find_spec(f"{__package__}.views.{sid}") is not None:
            out[sid] = importlib.import_module(f".views.{sid}", __package__).prerender(getattr(state, sid))
    return out
