"""The own-text section's live module in CPython: the reader's text, file and prompt are the section's own
controls (kinds that never enter the URL): a paste or a file makes the sample "yours" and Run trains it to
CPython's numbers; a bad text is named and the results shown stay; the prompt picks the writing shown without a
run; a preset or a link keeps none of them."""
import html

import numpy as np
import panel as pn

from weighttying import owntext
from weighttying import state
from weighttying.app.sections import owntext as section
from weighttying.app.store import Store
from weighttying.views import owntext as owntext_view
from carried_numbers import carried
from test_section_repeat import run_until_done, shown, values

TEXT = "".join(" ".join(np.random.default_rng(4).choice("a cat sat on the mat and ran".split(), 12)) + ".\n"
               for _ in range(30))


def live(query: str = "owntext.steps=20"):
    writes = []
    store = Store(state.parse_query(query)[0], on_change=writes.append)
    return store, section.build(store), writes


def test_a_paste_is_yours_trains_to_cpython_and_never_enters_the_url():
    store, root, writes = live()
    store["owntext"].text = TEXT
    assert store["owntext"].sample == "yours" and "Ready: your pasted text" in shown(root)
    run_until_done(root, "Run")
    got, want = values(shown(root)), owntext.run(TEXT, s=owntext.Setup(steps=20))
    assert got["owntext-heldout-tied"] == carried(want["models"]["tied"]["curve"][-1]["heldout"])
    assert got["owntext-rank-untied"] == carried(want["models"]["untied"]["rank_after"])
    link = writes[-1]["owntext"]  # the section's values for the address bar: the sample, never the text itself
    assert link["owntext.sample"] == "yours" and link["owntext.steps"] == 20, link
    assert not any(k in w.get("owntext", {}) for w in writes for k in ("owntext.text", "owntext.file", "owntext.prompt"))


def test_a_text_typed_before_python_is_taken_as_a_paste_when_the_section_is_built():
    # the page carries a text typed into the playback's box into the State before the section is built
    store = Store(state.parse_query("owntext.steps=20")[0])
    store["owntext"].text = TEXT
    root = section.build(store)
    assert store["owntext"].sample == "yours" and "Ready: your pasted text" in shown(root)


def test_a_file_chosen_before_python_is_taken_as_chosen_when_the_section_is_built():
    # the page reads a file chosen in the playback's box and carries its text (state.carry) into the State
    store = Store(state.carry(state.parse_query("owntext.steps=20")[0], {"owntext.file": TEXT}))
    root = section.build(store)
    assert store["owntext"].sample == "yours" and f"Ready: the file you chose ({len(TEXT):,} characters)" in shown(root)
    run_until_done(root, "Run")
    assert values(shown(root))["owntext-heldout-tied"] == carried(owntext.run(TEXT, s=owntext.Setup(steps=20))["models"]["tied"]["curve"][-1]["heldout"])


def test_a_file_after_a_paste_wins_and_a_paste_after_it_wins_back():
    store, root, _ = live()
    store["owntext"].text = "a first paste of mine. " * 10
    store["owntext"].file = TEXT
    assert owntext_view.yours(store.state_of("owntext")) == TEXT and "Ready: the file you chose" in shown(root)
    store["owntext"].text = "the second paste. " * 12
    assert store["owntext"].file == "" and owntext_view.yours(store.state_of("owntext")).startswith("the second")


def test_a_bad_paste_is_named_and_the_shown_results_stay():
    store, root, _ = live("owntext.steps=20&owntext.sample=yours")
    store["owntext"].text = TEXT
    run_until_done(root, "Run")
    before = values(shown(root))
    store["owntext"].text = "z" * 400
    assert "one character" in shown(root)
    run_until_done(root, "Run")
    assert "one character" in shown(root) and values(shown(root)) == before


def test_the_prompt_picks_the_writing_shown_without_a_run():
    store, root, _ = live("owntext.sample=song&owntext.steps=20")
    run_until_done(root, "Run")
    assert "<mark>On the </mark>" in shown(root)  # the sample's own prompt
    store["owntext"].prompt = "xyz Q"
    want = owntext_view.slots(store.state_of("owntext"), owntext_view.results(state.Owntext(steps=20)))["sample_tied"]
    assert "<mark>xyz Q</mark>" in want and want in shown(root) and "<mark>On the </mark>" not in shown(root)
    assert [b.name for b in root.select(pn.widgets.Button) if b.disabled] == ["Cancel"]  # nothing runs


def test_a_preset_keeps_the_readers_text_and_prompt():
    store, root, _ = live()
    store["owntext"].param.update(text=TEXT, prompt="Th")
    store.apply_preset("owntext", "Python source")
    assert (store["owntext"].sample, store["owntext"].text, store["owntext"].prompt) == ("code", TEXT, "Th")
    assert state.matching_preset("owntext", vars(store.state_of("owntext"))) == "Python source"


def test_the_captions_say_only_what_holds_for_the_text():
    """A reader's text can put the held-out loss outside the baselines (here: its last tenth is digits the model
    barely trained on) or repeat characters more often than not: the captions then say so, not the shipped texts'
    story."""
    unseen_tail = "the cat sat on the mat. " * 40 + "0123456789" * 11
    repeating = "ab" + "a" * 300 + "b" * 100
    seen = set()
    for text in (TEXT, unseen_tail):
        e = owntext.run(text, s=owntext.Setup(steps=100))
        heldout = [e["models"][m]["curve"][-1]["heldout"] for m in owntext_view.MODELS]
        between = all(e["bigram"] <= h <= e["unigram"] for h in heldout)
        caption = html.unescape(owntext_view.comparison(state.Owntext(steps=100), e))
        assert ("between the text's unigram" in caption) == between != ("against the text's unigram" in caption)
        seen.add(between)
    assert seen == {True, False}
    for text, rate_over_half in ((TEXT, False), (repeating, True)):
        e = owntext.run(text, s=owntext.Setup(steps=20))
        assert (e["repeat_rate"] > 0.5) == rate_over_half
        caption = html.unescape(owntext_view.ranks(e))
        assert ("mostly guesses wrong" in caption) != rate_over_half
        assert ("right more often than not" in caption) == rate_over_half
