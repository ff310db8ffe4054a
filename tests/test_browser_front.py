"""The page's front, on the built site before Python (?live=click: what a reader has in the first
seconds):
- "What this page finds" has one line per section, in the page's order, each linking to its section; every
  number and verdict in it is the section's own: each hook the list copies (finding-<hook>) has the section's
  data-value, verdict and text, and each line's numbers are those of the claim it copies;
- every link of the list lands on its section;
- the opening figure and the first line of the findings are on the first screen at 1280 x 900 and 360 x 780;
- the figure answers a click, a tap and the keyboard (a token picked: its row lit, its in-arrow drawn, the caption
  names it) and its tied/untied switch (the out-arrows land on E or on U), and is described for screen readers;
- the contents: at 1280 px open beside the article, marking the section scrolled to; on a phone a closed menu in the
  page's flow that a tap or the keyboard opens, that jumps to a section and closes; none embedded (?embed=), and
  printed once.
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


# ---- the opening figure -----------------------------------------------------------------------------------------
PHONE = {"viewport": {"width": 360, "height": 780}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
# What the figure shows: the picked token, the rows lit, the in-arrows and out-arrows drawn, the caption's words.
IDEA_JS = """() => { const svg = document.querySelector('svg[data-testid=idea]'), box = svg.closest('figure');
  const drawn = (sel) => [...svg.querySelectorAll(sel)].filter((el) => el.getBoundingClientRect().width > 0
    && getComputedStyle(el).display !== 'none' && !el.closest('[style*="display: none"]')).length;
  const u = svg.querySelector('.wt-idea-u');
  return {token: Number(svg.dataset.token),
    lit: [...svg.querySelectorAll('rect.wt-idea-row.wt-on')].map((r) => Number(r.dataset.row)),
    inArrows: drawn('line.wt-idea-in'), toE: drawn('line.wt-idea-out.wt-idea-tied'),
    toU: drawn('line.wt-idea-out.wt-idea-untied'),
    uOpacity: Number(getComputedStyle(u).opacity), said: document.getElementById('wt-idea-said').innerText.trim(),
    word: svg.querySelectorAll('text.wt-idea-token')[Number(svg.dataset.token)].textContent,
    paused: window.__wt.status === 'paused'}; }"""
FIRST_SCREEN_JS = """() => { const fig = document.querySelector('svg[data-testid=idea]').getBoundingClientRect();
  const list = document.querySelector('.wt-findings-list > li > a').getClientRects()[0];  // the list's first line
  return {figure: [fig.top, fig.bottom], first: [list.top, list.bottom], screen: innerHeight}; }"""


@pytest.mark.parametrize("screen", [{"viewport": {"width": 1280, "height": 900}}, PHONE], ids=["1280", "360"])
def test_first_screen_shows_the_figure_and_the_findings(browser, server, screen):
    ctx, page = recorded(browser, Recorder(), **screen)
    try:
        page.goto(server.url + PAUSED, wait_until="load")
        at = page.evaluate(FIRST_SCREEN_JS)
        print(f"[front] {screen['viewport']['width']} px: figure {at['figure']}, first finding {at['first']}")
        assert 0 <= at["figure"][0] and at["figure"][1] <= at["screen"], at
        assert at["first"][1] <= at["screen"], f"the findings' first line is below the first screen: {at}"
    finally:
        ctx.close()


def test_the_figure_answers_pointer_keyboard_and_the_switch(before):
    before.evaluate("() => scrollTo(0, 0)")
    idea = before.evaluate(IDEA_JS)
    assert idea["paused"], "the page loaded Python: this checks the figure without it"
    token = idea["token"]
    assert idea["lit"] == [token] and idea["inArrows"] == 2 and idea["toE"] == 8 and idea["toU"] == 0, idea
    assert idea["said"].startswith("Tied") and idea["word"] in idea["said"] and idea["uOpacity"] < 0.5, idea
    svg = before.locator("svg[data-testid=idea]")
    svg.locator("text.wt-idea-token").nth(5).click()  # the pointer: a token's word
    idea = before.evaluate(IDEA_JS)
    assert idea["token"] == 5 and idea["lit"] == [5] and f"“{idea['word']}”" in idea["said"], idea
    svg.focus()  # the keyboard: the arrows move the pick, Home and End go to the ends
    for key, to in (("ArrowDown", 6), ("ArrowUp", 5), ("End", 7), ("ArrowDown", 7), ("Home", 0)):
        before.keyboard.press(key)
        assert before.evaluate(IDEA_JS)["lit"] == [to], key
    before.locator("input[name=wt-idea-tied][value=tied]").focus()
    before.keyboard.press("ArrowRight")  # the switch, by keyboard: untied
    idea = before.evaluate(IDEA_JS)
    assert idea["toU"] == 8 and idea["toE"] == 0 and idea["inArrows"] == 2 and idea["uOpacity"] == 1, idea
    assert idea["said"].startswith("Untied") and "U" in idea["said"], idea
    before.locator("input[name=wt-idea-tied][value=tied]").check()
    assert before.evaluate(IDEA_JS)["toE"] == 8


def test_the_figure_answers_a_tap_and_is_described(browser, server):
    ctx, page = recorded(browser, Recorder(), **PHONE)
    try:
        page.goto(server.url + PAUSED, wait_until="load")
        svg = page.locator("svg[data-testid=idea]")
        svg.locator("rect.wt-idea-row").nth(3).tap()
        idea = page.evaluate(IDEA_JS)
        assert idea["lit"] == [3] and idea["word"] in idea["said"], idea
        # for a screen reader: a named image, its description, and the caption it points to, announced as it changes
        assert svg.get_attribute("role") == "img" and svg.locator("title").text_content().strip()
        assert "every row" in svg.locator("desc").text_content()
        said = page.locator(f"#{svg.get_attribute('aria-describedby')}")
        assert said.get_attribute("aria-live") == "polite" and idea["word"] in said.inner_text()
    finally:
        ctx.close()


# ---- the contents -----------------------------------------------------------------------------------------------
CONTENTS_JS = """() => { const nav = document.querySelector('nav.wt-toc'), r = nav.getBoundingClientRect();
  const main = document.querySelector('main').getBoundingClientRect();
  const shown = [...nav.querySelectorAll('a')].filter((a) => a.checkVisibility());
  return {position: getComputedStyle(nav).position, open: nav.querySelector('details').open, right: r.right,
    mainLeft: main.left, links: shown.map((a) => a.getAttribute('href').slice(1)),
    current: [...nav.querySelectorAll('a[aria-current]')].map((a) => a.getAttribute('href').slice(1)),
    hash: location.hash.slice(1)}; }"""


def test_contents_beside_the_article_mark_the_section_in_view(before):
    at = before.evaluate(CONTENTS_JS)
    assert at["position"] == "fixed" and at["open"] and at["right"] <= at["mainLeft"], at
    assert at["links"] == ["findings", *SECTIONS], at
    for sid in SECTIONS:
        before.evaluate("(sid) => document.querySelector(`#${sid} h2`).scrollIntoView()", sid)
        before.wait_for_function("(sid) => document.querySelector(`nav.wt-toc a[href='#${sid}']`)"
                                 ".getAttribute('aria-current') === 'location'", arg=sid)
        assert before.evaluate(CONTENTS_JS)["current"] == [sid]


def test_contents_on_a_phone_open_jump_and_close_by_touch_and_keys(browser, server):
    ctx, page = recorded(browser, Recorder(), **PHONE)
    try:
        page.goto(server.url + PAUSED, wait_until="load")
        at = page.evaluate(CONTENTS_JS)
        assert at["position"] == "static" and not at["open"] and at["links"] == [], at  # in the flow, closed
        summary = page.locator("nav.wt-toc summary")
        summary.tap()
        assert page.evaluate(CONTENTS_JS)["links"] == ["findings", *SECTIONS]
        page.locator("nav.wt-toc a[href='#sweep']").tap()
        page.wait_for_function("() => location.hash === '#sweep'")
        at = page.evaluate(CONTENTS_JS)
        top = page.evaluate("() => document.getElementById('sweep').getBoundingClientRect().top")
        assert not at["open"] and abs(top) <= 2, (at, top)
        summary.focus()  # the keyboard: Enter opens, Tab reaches a link, Enter jumps and closes; Escape closes
        page.keyboard.press("Enter")
        assert page.evaluate(CONTENTS_JS)["open"]
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => location.hash === '#{SECTIONS[0]}'")
        assert not page.evaluate(CONTENTS_JS)["open"]
        summary.focus()
        page.keyboard.press("Enter")
        page.keyboard.press("Escape")
        assert not page.evaluate(CONTENTS_JS)["open"]
        assert page.evaluate("() => document.activeElement.tagName") == "SUMMARY"
    finally:
        ctx.close()


def test_embed_shows_no_front_and_print_lists_the_contents_once(browser, server):
    ctx, page = recorded(browser, Recorder())
    try:
        page.goto(server.url + "?live=click&embed=sweep", wait_until="load")
        for sel in ("nav.wt-toc", "[data-testid=findings]", "svg[data-testid=idea]"):
            assert not page.locator(sel).is_visible(), sel
        page.goto(server.url + PAUSED, wait_until="load")
        page.emulate_media(media="print")
        at = page.evaluate(CONTENTS_JS)
        assert at["position"] == "static" and at["links"] == ["findings", *SECTIONS], at
        assert page.locator("nav.wt-toc").count() == 1
        assert not page.locator(".wt-idea-switch").is_visible()
    finally:
        ctx.close()
