"""The page's front (issue 42), on the built site before Python (?live=click: what a reader has in the first
seconds):
- "What this page finds" has one line per section, in the page's order, each linking to its section; every
  number and verdict in it is the section's own: each hook the list copies (finding-<hook>) has the section's
  data-value, verdict and text, and each line's numbers are those of the claim it copies;
- every link of the list lands on its section.
"""
from __future__ import annotations

import re

import pytest

from harness import Recorder, recorded
from weighttying.state import SECTIONS
from weighttying.views import contract

pytestmark = pytest.mark.browser

PAUSED = "?live=click"  # the player answers, Python never loads
NUMBER = re.compile(r"[−-]?\d+(?:\.\d+)?")

# Per finding: its section, which claim it copies (data-from), its text, and the text of what it copies in the
# section's claim slot: the i-th claim item, else the i-th row of its table, else the whole slot.
FINDINGS_JS = """(claims) => [...document.querySelectorAll('.wt-findings-list > li')].map((li) => {
  const sid = li.dataset.section, slot = document.querySelector(`#live-${sid} [data-slot="${claims[sid]}"]`);
  const link = li.querySelector('a.wt-finding-go');
  return {sid, href: link.getAttribute('href'), title: link.textContent.trim(),
    heading: (() => { const h = document.querySelector(`#${sid} h2`).cloneNode(true);
      h.querySelectorAll('.wt-anchor').forEach((a) => a.remove()); return h.textContent.trim(); })(),
    says: [...li.querySelectorAll('.wt-finding:not(.wt-none)')].map((f) => {
      const i = Number(f.dataset.from), items = slot ? slot.querySelectorAll('.wt-claim-item') : [];
      const rows = slot ? slot.querySelectorAll('tbody tr') : [];
      const source = items.length ? items[i] : rows.length ? rows[i] : slot;
      return {text: f.textContent, source: source ? source.textContent : null};
    })};
})"""

# Every hook the list copies beside the section's own: [copy's testid, section, its value/verdict/text, the original's].
HOOKS_JS = """() => [...document.querySelectorAll('.wt-findings-list [data-testid]')].map((el) => {
  const sid = el.closest('li').dataset.section, id = el.dataset.testid.replace(/^finding-/, '');
  const orig = document.querySelector(`#live-${sid} [data-testid="${id}"]`);
  const seen = (e) => e && [e.dataset.value, e.dataset.verdict, e.textContent.trim()];
  return [el.dataset.testid, sid, seen(el), seen(orig)];
})"""


@pytest.fixture(scope="module")
def before(browser, server):
    """The page before Python at 1280 x 900, shared by the module's tests."""
    ctx, page = recorded(browser, Recorder())
    try:
        page.goto(server.url + PAUSED, wait_until="load")
        yield page
    finally:
        ctx.close()


def test_every_section_has_one_line_of_findings_in_page_order(before):
    claims = {sid: contract.view(sid).CLAIM for sid in SECTIONS}
    lines = before.evaluate(FINDINGS_JS, claims)
    assert [f["sid"] for f in lines] == list(SECTIONS)
    for f in lines:
        assert f["href"] == f"#{f['sid']}" and f["title"] == f["heading"], f
        assert bool(f["says"]) == bool(claims[f["sid"]]), f  # a section with a claim says it; one without, that it has none
        for said in f["says"]:
            assert said["source"] is not None, f
            assert NUMBER.findall(said["text"]) == NUMBER.findall(said["source"]), (f["sid"], said)
    said = before.locator(".wt-findings").inner_text()
    assert "computed at build by this page's code" in said


def test_every_copied_hook_is_the_sections_own(before):
    hooks = before.evaluate(HOOKS_JS)
    sections = {sid for _, sid, _, _ in hooks}
    # every section with a claim has its verdicts (or its hooked number) in the list
    assert sections == {sid for sid in SECTIONS if contract.view(sid).CLAIM}, sections
    for testid, sid, copy, orig in hooks:
        assert orig is not None, f"{testid}: no {testid.removeprefix('finding-')} in section {sid}"
        assert copy == orig, (testid, copy, orig)


def test_every_finding_links_to_its_section(before):
    for sid in SECTIONS:
        before.evaluate("() => scrollTo(0, 0)")
        before.locator(f'.wt-findings-list > li[data-section="{sid}"] a.wt-finding-go').click()
        before.wait_for_function("(sid) => location.hash === `#${sid}`", arg=sid)
        top = before.evaluate("(sid) => document.getElementById(sid).getBoundingClientRect().top", sid)
        end = before.evaluate("() => innerHeight + scrollY >= document.documentElement.scrollHeight - 1")
        assert abs(top) <= 2 or (end and top > 0), f"{sid}: the link left its section's top at {top} px"
