"""The worker's document assembly: one broken section leaves a readable note, not a dead page."""
import html
import json
import sys
import types

import pytest

from bokeh.document import Document

from weighttying import state
from weighttying.app import main
from weighttying.app.store import Store


def test_a_section_that_fails_to_build_becomes_a_note(monkeypatch):
    broken = types.ModuleType("weighttying.app.sections.broken")

    def build(store):
        raise FloatingPointError("overflow in <script>")
    broken.build = build
    monkeypatch.setitem(sys.modules, broken.__name__, broken)
    monkeypatch.setitem(state.SECTION, "broken", state.Section("broken", state.Sweep, "weighttying.views.sweep", broken.__name__, ""))
    doc, store = Document(), Store(state.State())
    note = main.add_root(doc, store, "broken")
    sweep = main.add_root(doc, store, "sweep")
    assert doc.roots[:2] == [note, sweep] and note is not sweep
    shown = html.unescape(doc.roots[0].text)  # the HTML the browser renders (Panel escapes it once for transport)
    assert "could not start" in shown and "FloatingPointError" in shown
    assert "&lt;script&gt;" in shown and "<script>" not in shown


def test_embed_and_hide_choose_what_is_built():
    page = state.parse_query("embed=sweep")[0].page
    assert main.shown_sections(page) == ("sweep",)
    hidden = state.parse_query("hide=sweep,tying")[0].page
    assert "sweep" not in main.shown_sections(hidden) and "tying" not in main.shown_sections(hidden)


def test_set_query_moves_the_live_state_and_writes_the_url_once_per_change(monkeypatch):
    # The hand-over from playback: the live State follows the query the reader's controls wrote.
    posted = []
    store = Store(state.State(), on_change=posted.append)
    monkeypatch.setattr(main, "_store", store)
    main.set_query("sweep.sigma=0.5&repeat.tied=0&sweep.band=7")
    assert store.page.sweep.sigma == 0.5 and store.page.repeat.tied is False
    assert store.page.sweep.band == 1.0  # clamped as a link would be
    # one post per section that changed, of that section's values alone
    assert [list(p) for p in posted] == [["repeat"], ["sweep"]], posted
    assert posted[-1] == {"sweep": {"sweep.sigma": 0.5, "sweep.in_scale": 1.0, "sweep.grid": "coarse", "sweep.band": 1.0}}
    main.set_query("")
    assert store.page == state.State()


def test_text_typed_before_python_is_carried_but_a_link_value_only_from_the_query(monkeypatch):
    store = Store(state.State())
    monkeypatch.setattr(main, "_store", store)
    typed = "typed before Python. " * 20
    carried = {"owntext.text": typed, "owntext.prompt": "x" * 65, "owntext.steps": 20, "nosuch.key": "a"}
    main.set_query("owntext.text=from-a-link&owntext.steps=500", ["owntext"], json.dumps(carried))
    st = store.page.owntext
    assert (st.text, st.prompt, st.steps) == (typed, "", 500)  # the prompt is over its kind's 64 characters
    # the live section chose "yours" on the text (app/sections/owntext.py); a later move of another control
    # moves that control alone, and the text stays
    store["owntext"].sample = "yours"
    main.set_query("owntext.steps=1500", ["owntext"], json.dumps({"owntext.text": typed}))
    st = store.page.owntext
    assert (st.sample, st.text, st.steps) == ("yours", typed, 1500)
    assert "typed" not in state.to_query(store.page)


@pytest.fixture
def pyodide_stubs(monkeypatch):
    """Just enough of Pyodide's `js` and `pyodide` modules for panel.io.pyodide to import and link in CPython
    (to_js passes Python values through; the patches stay Python dicts)."""
    js = types.ModuleType("js")
    js.JSON = js.XMLHttpRequest = object()
    js.Map = types.SimpleNamespace(new=lambda entries: entries)
    js.Object = types.SimpleNamespace(entries=lambda obj: obj)
    ffi = types.ModuleType("pyodide.ffi")
    ffi.to_js = lambda value, **kw: value
    ffi.jsnull = object()
    code = types.ModuleType("pyodide.code")
    code.run_js = lambda text: None
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi, pyodide.code = ffi, code
    for name, mod in {"js": js, "pyodide": pyodide, "pyodide.ffi": ffi, "pyodide.code": code}.items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.delitem(sys.modules, "panel.io.pyodide", raising=False)
    yield
    sys.modules.pop("panel.io.pyodide", None)  # imported over the stubs: no other test may get it
    main._docs.clear()
    # main.new_doc (Panel's init_doc) made its last document this thread's curdoc, under which Panel caches
    # stylesheet models: a later test's widget change outside a document of its own would take that doc's.
    from panel.io.state import state as panel_state
    panel_state.curdoc = None


def test_each_section_is_its_own_document_and_changes_wait_for_its_link(pyodide_stubs):
    # The page builds sections one at a time (the one in view first) and links each once embedded.
    emitted = []
    begun = json.loads(main.start("sweep.sigma=0.5&hide=paper", lambda kind, text: emitted.append(kind)))
    assert begun["sections"] == [s for s in state.SECTIONS if s != "paper"] and begun["query"] == "sweep.sigma=0.5&hide=paper"
    sweep, tying = json.loads(main.build("sweep")), json.loads(main.build("tying"))
    assert main._docs["sweep"] is not main._docs["tying"]
    assert list(sweep["render_items"][0]["roots"].values()) == ["live-sweep"] and sweep["section"] == "sweep"
    assert sweep["docs_json"].keys().isdisjoint(tying["docs_json"].keys())
    patches = []
    main.link("sweep", lambda patch, buffers, sid: patches.append(sid))
    patches.clear()  # what linking itself sends (held changes, document-ready callbacks)
    # The playback controls of sections not yet live move only those: sweep (live) keeps sigma 0.5.
    main.set_query("sweep.sigma=2.0&tying.d=32", ["tying"])
    assert main._store.page.sweep.sigma == 0.5 and main._store.page.tying.d == 32
    assert patches == [], "a section not linked yet sent patches (the page has not embedded it)"
    main.set_query("sweep.sigma=2.0", ["sweep"])
    assert main._store.page.sweep.sigma == 2.0 and set(patches) == {"sweep"}
    main.link("tying", lambda patch, buffers, sid: patches.append(sid))
    assert "tying" in patches, "the change made while tying was not linked never reached the page"
    assert emitted.count("values") >= 2
