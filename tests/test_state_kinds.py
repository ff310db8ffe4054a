"""A control kind is one row of state.KINDS: its type, link form, limits, the input form (`Kind.input`) each layer
draws it with and the event at which the page takes its value (`Kind.event`). The layers' drawing code is keyed by
that form, never by a kind's name: controls.INPUTS (the page's HTML before Python), site/player.js's FORMS (playing
them back: tests/node/player.test.mjs checks it covers every form and takes a value at its kind's event) and
app/store.WIDGETS (the live lab's Panel widgets), and each covers every form the table names, so a new kind is a row,
plus drawing code only for a new form."""
from __future__ import annotations

import html
from pathlib import Path

from weighttying import controls, state
from weighttying.app import store

FORMS = {k.input for k in state.KINDS.values()}
ROOT = Path(__file__).resolve().parents[1]


def test_each_layer_draws_every_input_form_the_kinds_name():
    assert set(controls.INPUTS) == FORMS
    assert set(store.WIDGETS) == FORMS


def test_a_kinds_event_is_emitted_and_a_linked_value_is_taken_once_committed():
    """The page reads a kind's event from the rules (site/player.js types none of its own: tests/node/player.test.mjs).
    A value a link holds is taken on "change", once committed, so the address bar is written per value, not per
    keystroke."""
    emitted = state.rules({})["kinds"]
    for k in state.KINDS.values():
        assert k.event in ("input", "change"), k.name
        assert emitted[k.name]["event"] == k.event, k.name
        if k.url:
            assert k.event == "change", k.name


def test_a_controls_param_is_its_kinds_type_within_its_bounds():
    for c in state.CONTROLS:
        p = store.SECTION_CLASSES[c.section].param[c.name]
        assert p.default == c.default, c.key
        if c.choices:
            assert list(p.objects) == list(c.choices), c.key
        else:
            assert isinstance(p, store.PARAMETER_TYPES[c.type]), c.key
            if c.lo is not None:
                assert p.bounds == (c.lo, c.hi), c.key


def test_a_choice_reads_as_its_words_in_both_layers_and_its_value_stays_the_links():
    """A choice with words for the reader (spec's `shown`: the code lab's bugs) shows them before Python (an <option>'s
    text) and live (the widget's option names), while the value, in the URL and the state, stays the choice."""
    shown = [c for c in state.CONTROLS if c.shown]
    assert shown, "no control has words for its choices"
    for c in shown:
        before = controls.control(c, None)
        for choice, words in c.shown:
            assert f'<option value="{choice}"' in before, c.key
            assert f">{html.escape(words, quote=True)}</option>" in before, c.key
        widget = store.WIDGETS["select"](store.SECTION_CLASSES[c.section](), c)
        assert widget.options == {c.says(x): x for x in c.choices}, c.key
        assert len(set(widget.options)) == len(c.choices), c.key  # no two choices read alike


def test_a_label_is_the_proses_name_for_its_control_in_both_layers_and_the_key_stays_the_links():
    """A control the page's prose names otherwise (spec's `label`: σ for sigma, inScale for in_scale) is labelled so
    before Python (its <label>, its help's name) and live (its widget's title), while its URL key stays the field's;
    and a label is a name the prose uses (the opening section introduces σ for every section): there for no other
    reason."""
    labelled = [c for c in state.CONTROLS if c.label != c.name]
    assert labelled, "no control has a label of its own"
    prose = "".join((ROOT / s.html).read_text(encoding="utf-8") for s in state.REGISTRY)
    for c in labelled:
        assert c.label in prose, f"{c.key}: its label {c.label!r} is no name the page's prose uses"
        title = f"{c.label} (log scale)" if c.log else c.label
        before = controls.control(c, None)
        assert f">{html.escape(title, quote=True)}</label>" in before, c.key
        assert f'aria-label="What {html.escape(c.label, quote=True)} does"' in before, c.key
        assert f"data-key=\"{c.name}\"" in before and state.BY_KEY[c.key] is c, c.key
        widget = store.control(store.Store(state.State()), c)
        titles = [w.name for w in widget.select(store.pn.widgets.Widget)]
        assert title in titles, (c.key, titles)


def test_a_row_of_buttons_live_carries_its_label_as_its_select_does_before_python():
    """A choice of few options is a row of buttons live, which Panel draws without a title, and a labelled <select>
    before Python: live, the label stands over the buttons (app/store.titled), so 'coarse | fine' says it is the
    grid's."""
    live = store.Store(state.State())
    rows = [c for c in state.CONTROLS if c.section in state.SECTIONS and c.choices
            and isinstance(store.WIDGETS["select"](live[c.section], c), store.pn.widgets.RadioButtonGroup)]
    assert rows, "no choice is drawn as buttons"
    for c in rows:
        assert f'<label for="wt-p-{c.section}-{c.name}">{html.escape(c.label)}</label>' in controls.control(c, None)
        titles = [p.object for p in store.control(live, c).select(store.pn.pane.HTML)]
        assert any(f">{html.escape(c.label)}</span>" in t for t in titles), (c.key, titles)
