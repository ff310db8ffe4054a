"""Live answers before Panel: a section's slots for a setting its playback table does not hold (a typed value,
a slider beyond the grid), computed in a numerics worker of the page's pool (site/early.js) by the same
`views.<id>.slots` the live section shows, so the reader sees the live figure once NumPy is up, not after
`import panel`; the Panel section, when it arrives, shows the same bytes (both draw from carried results) (tests/test_browser_early.py).
No Panel here. Only a section whose results follow every control (no RUN_KEYS) answers: there, what Panel
shows for a setting is `slots(st, results(st))`; a run section's off-grid setting waits for a Run, which the
Panel worker starts.
"""
from __future__ import annotations

import json

from . import state
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
