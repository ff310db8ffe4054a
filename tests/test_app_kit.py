"""The live side of the section contract: every live section fills its slot panes with exactly the HTML
its view gives (what the build prerenders and plays back), reads its state one way, and imports no
other section; the shared kit's pieces behave."""
import ast
import importlib
import re
from pathlib import Path

import panel as pn
import pytest

from weighttying import state as S
from weighttying.app import kit
from weighttying.app.store import Store
from weighttying.views import kit as views_kit

SECTIONS_DIR = Path(__file__).resolve().parents[1] / "py" / "weighttying" / "app" / "sections"
# sections whose slots show without a run (the run sections show their not-run-yet state)
QUERIES = {"tying": "tying.V=100&tying.d=3", "sweep": "sweep.grid=fine&sweep.band=0.3",
           "savings": "savings.preset=char-model", "repeat": "repeat.sigma=0.5&repeat.tied=0",
           "tasks": "tasks.seeds=2", "paper": "paper.scale=4"}


def slot_panes(root) -> dict[str, str]:
    return {m.group(1): p.object for p in root.select(pn.pane.HTML)
            if (m := re.match(r'<div class="wt-slot" data-slot="([\w-]+)">', p.object or ""))}


@pytest.mark.parametrize("sid", QUERIES)
def test_live_slots_are_the_views_html(sid):
    store = Store(S.parse_query(QUERIES[sid])[0], base_url="http://x/")
    root = importlib.import_module(f"weighttying.app.sections.{sid}").build(store)
    view = importlib.import_module(f"weighttying.views.{sid}")
    want = view.slots(store.state_of(sid), None)
    assert slot_panes(root) == {name: views_kit.slot(name, html) for name, html in want.items()}
    assert "wt-" + sid in root.css_classes


def test_no_section_imports_another_and_state_is_read_one_way():
    sections = set(S.SECTIONS)
    for path in SECTIONS_DIR.glob("*.py"):
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level == 1:  # from .x import ... inside sections/
                assert not ({node.module} | {a.name for a in node.names}) & sections, path.name
        assert "store.state." not in text, f"{path.name} reads the whole State; use store.state_of(section)"


def test_state_of_is_the_frozen_section_state():
    store = Store(S.parse_query("sweep.sigma=0.5&repeat.tied=0")[0])
    assert store.state_of("sweep") == S.Sweep(sigma=0.5) and store.state_of("repeat") == S.Repeat(tied=False)
    store["sweep"].band = 0.3
    assert store.state_of("sweep").band == 0.3 and store.state_of("sweep") == store.state.sweep


def test_slots_keep_the_last_good_html_and_say_why_a_setting_failed():
    class Broken:
        SLOTS = ("a",)
        calls = []

        @classmethod
        def slots(cls, st, results=None):
            cls.calls.append(st)
            if st.sigma > 1:
                raise ValueError("sigma <too> large")
            return {"a": f"<p>{st.sigma}</p>"}

    store = Store(S.State())
    slots = kit.Slots(store, "sweep", Broken).follow(["sigma"])
    assert slots["a"].object == views_kit.slot("a", "<p>0.25</p>") and slots.error.object == ""
    store["sweep"].sigma = 5.0
    assert slots["a"].object == views_kit.slot("a", "<p>0.25</p>")
    assert "ValueError" in slots.error.object and "&lt;too&gt;" in slots.error.object
    store["sweep"].in_scale = 2.0  # not followed
    assert len(Broken.calls) == 2
    store["sweep"].sigma = 0.5
    assert slots["a"].object == views_kit.slot("a", "<p>0.5</p>") and slots.error.object == ""


def test_every_limits_redraws_but_forced_ones_always_run():
    seen = []
    draw = kit.every(60.0, lambda: seen.append(1))
    draw(), draw(), draw()
    assert seen == [1]
    draw(True)
    assert seen == [1, 1]
