"""The live side of the section contract: every live section fills its slot panes with exactly the HTML
its view gives (what the build prerenders and plays back), reads its state one way, and imports no
other section; the shared kit's pieces behave."""
import ast
import importlib
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import panel as pn
import pytest

from harness import probe_env
from weighttying import prerender, state
from weighttying.app import kit, sections
from weighttying.app.store import Store
from weighttying.views import kit as views_kit

SECTIONS_DIR = Path(__file__).resolve().parents[1] / "py" / "weighttying" / "app" / "sections"
# sections whose slots show without a run (the run sections show their not-run-yet state)
QUERIES = {"tying": "tying.V=100&tying.d=3", "sweep": "sweep.grid=fine&sweep.band=0.3",
           "savings": "savings.preset=char-model", "repeat": "repeat.sigma=0.5&repeat.tied=0",
           "tasks": "tasks.seeds=2", "paper": "paper.scale=4"}


def parts(item):
    """item and every Panel object inside it, depth first."""
    yield item
    for child in getattr(item, "objects", None) or []:
        yield from parts(child)


def slot_panes(root) -> dict[str, str]:
    return {m.group(1): p.object for p in root.select(pn.pane.HTML)
            if (m := re.match(r'<div class="wt-slot" data-slot="([\w-]+)">', p.object or ""))}


@pytest.mark.parametrize("sid", QUERIES)
def test_live_slots_are_the_views_html(sid):
    store = Store(state.parse_query(QUERIES[sid])[0], base_url="http://x/")
    root = importlib.import_module(f"weighttying.app.sections.{sid}").build(store)
    view = prerender.view(sid)
    want = view.slots(store.state_of(sid), None)
    assert slot_panes(root) == {name: views_kit.slot(name, html) for name, html in want.items()}
    assert "wt-" + sid in root.css_classes


def test_no_section_imports_another_and_state_is_read_one_way():
    sections = set(state.SECTIONS)
    for path in SECTIONS_DIR.glob("*.py"):
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level == 1:  # from .x import ... inside sections/
                assert not ({node.module} | {a.name for a in node.names}) & sections, path.name
        assert "store.page." not in text, f"{path.name} reads the whole State; use store.state_of(section)"


def test_state_of_is_the_frozen_section_state():
    store = Store(state.parse_query("sweep.sigma=0.5&repeat.tied=0")[0])
    assert store.state_of("sweep") == state.Sweep(sigma=0.5) and store.state_of("repeat") == state.Repeat(tied=False)
    store["sweep"].band = 0.3
    assert store.state_of("sweep").band == 0.3 and store.state_of("sweep") == store.page.sweep


def test_slots_keep_the_last_good_html_and_say_why_a_setting_failed(monkeypatch):
    calls = []

    def broken_slots(st, results=None):
        calls.append(st)
        if st.sigma > 1:
            raise ValueError("sigma <too> large")
        return {"a": f"<p>{st.sigma}</p>"}

    broken = types.ModuleType("wt_test_broken_view")
    broken.__dict__.update(SLOTS=("a",), slots=broken_slots, PLAYBACK={"sigma": (0.25,)}, DEPENDS={"a": ("sigma",)})
    monkeypatch.setitem(sys.modules, broken.__name__, broken)
    monkeypatch.setitem(state.SECTION, "sweep", state.Section("sweep", state.Sweep, broken.__name__, None, ""))
    store = Store(state.State())
    slots = kit.Slots(store, "sweep").redraw_on(["sigma"])
    assert slots["a"].object == views_kit.slot("a", "<p>0.25</p>") and slots.error.object == ""
    store["sweep"].sigma = 5.0
    assert slots["a"].object == views_kit.slot("a", "<p>0.25</p>")
    assert "ValueError" in slots.error.object and "&lt;too&gt;" in slots.error.object
    store["sweep"].in_scale = 2.0  # not redrawn on
    assert len(calls) == 2
    store["sweep"].sigma = 0.5
    assert slots["a"].object == views_kit.slot("a", "<p>0.5</p>") and slots.error.object == ""


def test_every_limits_redraws_but_forced_ones_always_run():
    seen = []
    draw = kit.every(60.0, lambda: seen.append(1))
    draw(), draw(), draw()
    assert seen == [1]
    draw(True)
    assert seen == [1, 1]


def test_a_figure_downloads_as_svg_with_its_overlay_and_the_reproducing_link():
    import xml.etree.ElementTree as ET

    store = Store(state.parse_query("sweep.sigma=0.5")[0], base_url="http://x/")
    slots = kit.Slots(store, "sweep").redraw_on()
    fig = slots.figure("resid")
    [stack] = [c for c in fig.select(pn.Column) if "wt-stack" in c.css_classes]
    assert stack.styles["display"] == "grid" and list(stack.objects) == [slots["resid"], slots["resid_at"]]
    assert all(p.styles["grid-area"] == "1 / 1" for p in stack.objects)
    assert not fig.select(pn.widgets.FileDownload)  # the download is in the section's "Data and downloads"
    [download] = slots.downloads
    assert download.label == "Download figure (SVG)" and download.filename == "sweep-resid.svg"
    svg = download.callback().getvalue()
    root = ET.fromstring(svg)  # a well-formed SVG file
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "http://x/?sweep.sigma=0.5#sweep" in texts  # stamped under the plot
    assert 'class="wt-at"' in svg and svg.count("<rect ") > 20  # the heatmap's cells and the ring over them
    store["sweep"].sigma = 2.0
    assert "http://x/?sweep.sigma=2#sweep" in download.callback().getvalue()


def code_lines(text: str) -> int:
    """Lines of Python that are code: not blank, not only a comment, not part of a docstring."""
    docs = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            docs |= set(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(1 for i, line in enumerate(text.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in docs)


def test_each_live_section_is_mostly_declarations():
    """What every section shares (the run lifecycle, slots, exports, layout) lives in app/kit/: a section
    is at most 50 lines of code."""
    counts = {p.stem: code_lines(p.read_text()) for p in SECTIONS_DIR.glob("*.py") if p.stem != "__init__"}
    assert set(counts) == set(sections.SECTIONS) and max(counts.values()) <= 50, counts
    assert code_lines('"""doc"""\n# note\n\ndef f():\n    """doc\n    more"""\n    return 1  # why\n') == 2


@pytest.mark.parametrize("sid", state.SECTIONS)
def test_live_layout_is_the_prerenders(sid):
    """kit.layout places a section's pieces as views.kit.compose does before Python: the claim slot, the control
    column beside the slots in the view's order (pairs side by side), then one closed "Data and downloads" card holding
    the view's DATA slots and every download of the section."""
    store = Store(state.State(), base_url="http://x/")
    root = importlib.import_module(f"weighttying.app.sections.{sid}").build(store)
    view = prerender.view(sid)
    names = {id(p): n for n, p in kit.SECTION_SLOTS[store][sid].panes.items()}
    order = [names[id(p)] for p in parts(root) if id(p) in names]
    assert order == list(view.SLOTS)
    top = list(root.objects)
    [block] = [o for o in top if "wt-block" in o.css_classes]  # the controls beside everything else
    assert "wt-controls" in block.objects[0].css_classes and len(block.objects) == 2
    assert top.index(block) == (1 if view.CLAIM else 0) and (not view.CLAIM or names.get(id(top[0])) == view.CLAIM)
    [card] = [o for o in top if isinstance(o, pn.Card)]
    assert card is top[-1] and card.collapsed and card.title == views_kit.DATA_SUMMARY
    inside = [names[id(p)] for p in parts(card) if id(p) in names]
    assert inside == list(view.DATA)
    downloads = root.select(pn.widgets.FileDownload)
    assert downloads and all(any(d is x for x in card.select(pn.widgets.FileDownload)) for d in downloads)
    for a, b in view.PAIRS:  # side by side: one row holds both
        assert any(isinstance(r, pn.Row) and {a, b} <= {names.get(id(p)) for p in parts(r)} for r in parts(root))


def test_layout_refuses_a_piece_for_a_slot_it_does_not_place():
    store = Store(state.State(), base_url="http://x/")
    kit.Slots(store, "sweep")
    for wrong in ({"figures": ("nope",)}, {"before": {"resid_at": []}}):
        with pytest.raises(ValueError, match=r"section 'sweep': layout names \['(nope|resid_at)'\], not a slot"):
            kit.layout(store, "sweep", **wrong)


NOTHING_TO_DOWNLOAD = """
import json, panel as pn
from weighttying import prerender, state
from weighttying.app import sections
from weighttying.app.store import Store
root = sections.build(Store(state.State(), base_url="http://x/"), "probe")
print(json.dumps({"box": 'class="wt-data"' in prerender.section("probe", state.SECTION["probe"].state()),
                  "card": len(root.select(pn.Card)), "downloads": len(root.select(pn.widgets.FileDownload))}))
"""


def test_a_section_with_nothing_to_download_has_no_data_box():
    """The test-only probe (tests/sections/: no DATA slots, no overlaid figure, no app module) offers no download,
    so neither its prerender nor its live section has a "Data and downloads" box: an empty one would promise
    downloads that never come. Every page section has one (test_live_layout_is_the_prerenders)."""
    proc = subprocess.run([sys.executable, "-c", NOTHING_TO_DOWNLOAD], env=probe_env(), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == {"box": False, "card": 0, "downloads": 0}
    assert all('class="wt-data"' in prerender.section(sid, getattr(state.State(), sid)) for sid in state.SECTIONS)
