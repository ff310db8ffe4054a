"""weighttying.early in CPython: which sections answer off-grid settings before Panel, and that their answer is,
slot for slot, what the live Panel section draws for the same link (the browser's check: test_browser_early.py)."""
import json

import pytest

from weighttying import early
from weighttying import state
from weighttying.app import kit, sections
from weighttying.app.store import Store
from weighttying.views.kit import slot

OFF_GRID = {"tying": "tying.V=77&tying.d=5", "sweep": "sweep.sigma=0.0123&sweep.in_scale=3.3",
            "savings": "savings.V=1234&savings.layers=5"}


def test_only_sections_whose_results_follow_every_control_answer():
    follow = {s for s in state.SECTIONS if not early.view(s).RUN_KEYS}
    assert {s for s in state.SECTIONS if early.answers(s)} == follow and set(OFF_GRID) <= follow, follow
    assert not early.answers("nonsense")
    with pytest.raises(ValueError, match="no live answer without its Run"):
        early.slots("tasks", "")


@pytest.mark.parametrize("sid", sorted(OFF_GRID))
def test_the_answer_is_what_the_live_section_draws(sid):
    got = json.loads(early.slots(sid, OFF_GRID[sid]))
    store = Store(state.parse_query(OFF_GRID[sid])[0])
    sections.build(store, sid)
    panes = kit.SECTION_SLOTS[store][sid].panes
    assert list(got) == list(panes)
    for name, inner in got.items():
        assert panes[name].object == slot(name, inner), name
    assert got != json.loads(early.slots(sid, "")), "the setting changes the answer"
