"""The worker's document assembly: one broken section leaves a readable note, not a dead page."""
import html
import sys
import types

from bokeh.document import Document

from weighttying import state as S
from weighttying.app import main
from weighttying.app.store import Store


def test_a_section_that_fails_to_build_becomes_a_note(monkeypatch):
    broken = types.ModuleType("weighttying.app.sections.broken")

    def build(store):
        raise FloatingPointError("overflow in <script>")
    broken.build = build
    monkeypatch.setitem(sys.modules, broken.__name__, broken)
    doc, store = Document(), Store(S.State())
    note = main.add_root(doc, store, "broken")
    sweep = main.add_root(doc, store, "sweep")
    assert doc.roots[:2] == [note, sweep] and note is not sweep
    shown = html.unescape(doc.roots[0].text)  # the HTML the browser renders (Panel escapes it once for transport)
    assert "could not start" in shown and "FloatingPointError" in shown
    assert "&lt;script&gt;" in shown and "<script>" not in shown


def test_embed_and_hide_choose_what_is_built():
    page = S.parse_query("embed=sweep")[0].page
    assert main.shown_sections(page) == ("sweep",)
    hidden = S.parse_query("hide=sweep,tying")[0].page
    assert "sweep" not in main.shown_sections(hidden) and "tying" not in main.shown_sections(hidden)


def test_set_query_moves_the_live_state_and_writes_the_url_once_per_change(monkeypatch):
    # The hand-over from playback: the live State follows the query the reader's controls wrote.
    urls = []
    store = Store(S.State(), on_change=urls.append)
    monkeypatch.setattr(main, "_store", store)
    main.set_query("sweep.sigma=0.5&repeat.tied=0&sweep.band=7")
    assert store.state.sweep.sigma == 0.5 and store.state.repeat.tied is False
    assert store.state.sweep.band == 1.0  # clamped as a link would be
    assert urls and S.parse_query(urls[-1])[0] == store.state
    main.set_query("")
    assert store.state == S.State()
