"""Every section's default state as static HTML, made by build.py in CPython so the page reads before
Python loads in the browser. No Panel here: each section's output is `views/<id>.slots`, composed
into `<div class="wt-slot" data-slot=NAME>` boxes, the same boxes the live section fills; before them,
the section's native controls (`controls`), which site/player.js answers from the playback tables."""
from __future__ import annotations

from . import controls
from . import state
from .views import kit
from .views.contract import view


def section(sid: str, st) -> str:
    """One section's static HTML for its state st (with the run results that state shows)."""
    v = view(sid)
    return kit.compose(v.slots(st, kit.with_results(v, st)), v.OVERLAYS, v.PAIRS, v.DATA, v.CLAIM,
                       controls.html_of(sid, v.PLAYBACK), has_downloads(sid))


def has_downloads(sid: str) -> bool:
    """Whether section sid's live lab offers downloads: a section with an app module does (its tables' CSV and
    JSON, its figures' SVG: tests/test_app_kit.py checks each), a generic one (app.sections.generic) its
    overlaid figures' SVG."""
    return state.SECTION[sid].app is not None or bool(view(sid).OVERLAYS)


def sections(page: state.State = state.State()) -> dict[str, str]:
    """{section id: static HTML of its state} for every section."""
    return {sid: section(sid, getattr(page, sid)) for sid in state.SECTIONS}


def rules() -> dict:
    """state.rules with every view's FILLS: the page's state rules as data, for site/state.js."""
    return state.rules({sid: view(sid).FILLS for sid in state.SECTIONS})
