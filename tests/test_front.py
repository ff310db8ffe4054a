"""weighttying.front in CPython: the findings read a claim slot's items, a claim table's rows or the whole slot,
rename its hooks, and name the section whose claim they cannot read; the contents list the sections in order."""
from __future__ import annotations

import pytest

from weighttying import front
from weighttying.views import kit

CLAIM = kit.claim([("Rows wrong", "8 of 64", 8, "agrees (exact)")], "x-claim")
TABLE = ('<div class="wt-slot" data-slot="page"><table><thead><tr><th>reading</th><th>ours</th><th>paper says</th>'
         '<th>verdict</th></tr></thead><tbody><tr><td data-label="reading">share</td><td data-label="ours">24.5%</td>'
         '<td data-label="paper says">32%</td><td data-label="verdict"><span data-testid="v-1" data-value="0.5">differs'
         '</span></td></tr></tbody></table></div>')


def test_a_claims_items_are_its_phrases_with_hooks_renamed():
    section = f'{kit.slot("claim", CLAIM)}<div class="wt-block"><div>controls</div></div>'
    slot = front.slot_html(section, "claim")
    assert slot == kit.slot("claim", CLAIM)
    (phrase,) = front.phrases(slot)
    assert "Rows wrong: ours <strong>8 of 64</strong>, the page 8" in phrase and "agrees" in phrase
    assert front.slot_html(section, "none") == ""


def test_a_claim_tables_rows_read_as_phrases_naming_who_is_quoted():
    (phrase,) = front.phrases(TABLE)
    assert phrase.startswith("share: ours <strong>24.5%</strong>, the paper 32% ")
    assert 'data-testid="finding-v-1" data-value="0.5"' in phrase


def test_a_slot_without_items_or_table_is_one_phrase_unannounced():
    badge = '<div class="wt-slot" data-slot="badge"><a href="#g" aria-live="polite" data-testid="b">all agree</a></div>'
    assert front.phrases(badge) == ['<a href="#g" data-testid="finding-b">all agree</a>']


def test_findings_name_the_section_they_cannot_read_and_list_one_without_a_claim():
    with pytest.raises(front.FrontError, match="section 'bad'.*not well-formed"):
        front.findings([("bad", "Bad", '<div class="wt-slot"><p>open</div>')])
    with pytest.raises(front.FrontError, match="section 'tab'.*quoted"):
        front.findings([("tab", "Tab", TABLE.replace("paper says", "theirs"))])
    out = front.findings([("a", "A", kit.slot("claim", CLAIM)), ("b", "B & C", "")])
    assert out.index('data-section="a"') < out.index('data-section="b"') and "B &amp; C" in out
    assert "Nothing quoted to check" in out and "computed at build by this page's code" in out


def test_contents_list_the_findings_then_every_section_in_order():
    out = front.contents([("x", "X"), ("y", "Y")])
    assert out.index('href="#findings"') < out.index('href="#x"') < out.index('href="#y"')

