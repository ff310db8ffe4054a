"""Phones: every live section fits a 360 px touch screen (and 390 and 414 px) and works by touch.

Chromium's mobile emulation (is_mobile, has_touch, 2x pixels) on the built site: the full page and one
section alone (?embed=<id>; the other embeds before Python) are booted once each and checked at every width by
resizing the viewport (the narrow layout is CSS media queries, which a resize re-applies as a fresh load would).
Checked: nothing that shows text or a figure passes the screen's edge, walking through Panel's shadow
roots (a table or code block may scroll sideways inside a box that fits); figure text is at least
11 px on screen; a touch drag on the sweep's sigma slider moves the readout to CPython's number; the gradient-check
badge covers no control at any scroll position; slider handles and toggles are hit areas of 44 x 44 CSS px
and every other target 24 x 24 (hit-tested, not measured: a hit area may be larger than what is drawn);
per-control help lines fold behind a "?" on every screen (a phone and a desktop), and open in full on a tap.
The fit, targets and help are checked again before Python (?live=click, the full page at 360 px), on the
prerendered sections and the player's native controls; there, too, each formula in a section's prose (its <pre>)
shows whole at 360 px, not merely in a box that scrolls.
"""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

import robust
from harness import ROOT, WALK_JS, Recorder, figure_text_problems, new_context, resize, until, wait_booted
from weighttying import state
from weighttying import sweep
from weighttying.app import store
from weighttying.app.sections import SECTIONS
from carried_numbers import near

pytestmark = pytest.mark.browser

WIDTHS = (360, 390, 414)
HEIGHT = 760
PHONE = {"viewport": {"width": WIDTHS[0], "height": HEIGHT}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
MIN_FONT_PX = 11
PAUSED_JS = "() => window.__wt && window.__wt.status === 'paused'"  # ?live=click: the player, and no Python
SETTLE_S = 150  # sections that train on load (paper, pathdrop) finish well within this on 2 busy cores

# Elements showing text (a text node of their own) or a figure (canvas, svg, img) past the viewport's
# left or right edge. In a table, a pre or the code editor's text (CodeMirror's .cm-content), the nearest
# sideways-scrolling box must fit instead.
OVERFLOW_JS = "(vw) => {" + WALK_JS + """
  const shows = (el) => ['CANVAS', 'IMG', 'VIDEO'].includes(el.tagName) || (el.tagName === 'svg' && !el.ownerSVGElement)
    || (!el.ownerSVGElement && ![...'OPTION STYLE SCRIPT'.split(' ')].includes(el.tagName)
        && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
  const fits = (r) => r.left >= -1 && r.right <= vw + 1;
  const scroller = (el) => {
    for (let a = el; a; a = parentOf(a)) if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return a;
    return null;
  };
  const out = [];
  walk(document, (el) => {
    if (!shows(el) || !shown(el)) return;
    const r = el.getBoundingClientRect();
    if (fits(r)) return;
    const boxed = el.closest('table, pre, .cm-content'), s = boxed && scroller(boxed);
    if (s && fits(s.getBoundingClientRect())) return;
    out.push(`${label(el)} spans x ${Math.round(r.left)}..${Math.round(r.right)}`);
  });
  return out;
}"""

# Controls under the gradient-check badge, scrolling through the page half a screen at a time.
BADGE_JS = "() => {" + WALK_JS + """
  const CONTROL = 'input, select, button, textarea, summary, [role=slider], .noUi-target, a[href]';
  // Scrolling adds or removes no element: the badges and controls are found in one walk, not one per position.
  const badges = [], controls = [];
  walk(document, (el) => { if (el.matches('[data-testid=gradcheck-badge]')) badges.push(el); else if (el.matches(CONTROL)) controls.push(el); });
  const out = [], seen = new Set();
  let positions = 0;
  for (let y = 0; y <= document.documentElement.scrollHeight; y += innerHeight / 2) {
    window.scrollTo(0, y);
    const b = badges.find(shown); if (!b) continue;
    positions += 1;
    const br = b.getBoundingClientRect();
    controls.forEach((el) => {
      if (b.contains(el) || !shown(el)) return;
      const r = el.getBoundingClientRect();
      if (r.right <= br.left || r.left >= br.right || r.bottom <= br.top || r.top >= br.bottom) return;
      const what = label(el); if (!seen.has(what)) { seen.add(what); out.push(`${what} at scroll ${Math.round(y)}`); }
    });
  }
  window.scrollTo(0, 0);
  return {positions, overlaps: out};
}"""

# Hit-tests each target at the edges of a square around its centre: 44 px for slider handles and
# toggles, 24 px for everything else; a point may land on the target, inside it, or on its <label>.
TARGETS_JS = "(section) => {" + WALK_JS + """
  const BIG = '.noUi-handle, input[type=range], input[type=checkbox], .bk-btn-group > .bk-btn:not(:only-child), summary.wt-help-q';
  const ANY = 'button, select, input, textarea, summary, a[href], [role=slider], .bk-description, .bk-tool-overflow';
  const deepAt = (x, y) => { let el = document.elementFromPoint(x, y);
    while (el && el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(x, y); if (!inner || inner === el) break; el = inner; }
    return el; };
  const owns = (t, hit) => { for (let a = hit; a; a = parentOf(a)) if (a === t || (t.labels && [...t.labels].includes(a))) return true; return false; };
  const out = [], counts = {big: 0, other: 0};
  // a live section's root, or (section "page") the page's own header and headings
  const roots = section === 'page' ? [document.querySelector('header'), ...document.querySelectorAll('.wt-section > h2')]
                                   : [document.getElementById(`live-${section}`)];
  for (const root of roots) walk(root, (el) => {
    if (!el.matches(ANY) && !el.matches(BIG)) return;
    if (!shown(el) || el.disabled) return;
    const big = el.matches(BIG), half = (big ? 44 : 24) / 2 - 1;
    counts[big ? 'big' : 'other'] += 1;
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    const r = el.getBoundingClientRect(), cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    const missed = [];
    for (const [dx, dy] of [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [0, 1], [1, 1]]) {
      const x = cx + dx * half, y = cy + dy * half;
      if (x < 0 || x >= innerWidth || y < 0 || y >= innerHeight) continue;
      const hit = deepAt(x, y);
      if (!owns(el, hit)) missed.push(`(${dx},${dy})->${hit ? hit.tagName.toLowerCase() + '.' + String(hit.getAttribute('class') || '').slice(0, 25) : 'nothing'}`);
    }
    if (missed.length) out.push(`${label(el)} ${Math.round(r.width)}x${Math.round(r.height)} needs ${big ? 44 : 24} px: ${missed.join(' ')}`);
  });
  window.scrollTo(0, 0);
  return {counts, misses: out};
}"""

# Per-control help: [control class, help text, shown?, its box fits the viewport?] for each live control
# (.wt-control, its help in its shadow roots) or, before Python, each playback control (.wt-pctl).
HELP_JS = "(vw) => {" + WALK_JS + """
  const out = [];
  walk(document, (el) => {
    if (!el.matches('.wt-control, .wt-pctl') || !shown(el)) return;
    let p = null; walk(el.shadowRoot || el, (e) => { if (!p && e.matches('p.wt-help')) p = e; });
    const ctl = [...el.classList].find((c) => c.startsWith('wt-ctl-'));
    if (!p) { out.push([ctl, null, false, false]); return; }
    const r = p.getBoundingClientRect();
    out.push([ctl, p.textContent, shown(p), r.left >= -1 && r.right <= vw + 1]);
  });
  return out;
}"""

SUMMARIES_JS = "(open) => {" + WALK_JS + """
  let n = 0; walk(document, (el) => { if (el.matches('details.wt-help-box')) { el.open = open; n += 1; } }); return n; }"""

SETTLED_JS = "() => {" + WALK_JS + """
  let busy = false;
  walk(document, (el) => { if (el.matches('.wt-status') && /^(Step|Running)/.test(el.textContent.trim())) busy = true; });
  return !busy; }"""


def settle(page) -> None:
    """Wait (up to SETTLE_S) until no section is still training or checking and the worker is quiet, so its final
    tables are in."""
    until(lambda: page.evaluate(SETTLED_JS), SETTLE_S, every_s=0.2)
    robust.settle(page, timeout_s=SETTLE_S, strict=False)


def at_width(page, width: int) -> None:
    resize(page, width, HEIGHT)


def check_fits(page, name: str) -> None:
    """At each width: nothing past the edge, no sideways page scroll, figure text at least MIN_FONT_PX."""
    problems, figures = [], []
    for width in WIDTHS:
        at_width(page, width)
        problems += [f"{width} px: {p}" for p in page.evaluate(OVERFLOW_JS, width)]
        scroll = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if scroll > 0:
            problems.append(f"{width} px: the page scrolls sideways by {scroll} px")
        figures += [f"{width} px: {p}" for p in figure_text_problems(page, MIN_FONT_PX)]
    at_width(page, WIDTHS[0])
    assert not problems, f"{name}: {len(problems)} element(s) pass the screen's edge:\n" + "\n".join(problems[:40])
    assert not figures, f"{name}: figure text under {MIN_FONT_PX} px, cut off or overlapping:\n" + "\n".join(figures[:40])


@pytest.fixture(scope="module")
def phone(browser):
    ctx = new_context(browser, Recorder(), **PHONE)  # nothing leaves the origin, as in every browser test
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def full(phone, server):
    """The whole page on a phone, booted once and settled."""
    page = phone.new_page()
    page.goto(server.url)
    wait_booted(page)
    settle(page)
    yield page
    page.close()


def test_the_full_page_fits_a_phone(full):
    live = full.evaluate("() => [...document.querySelectorAll('[data-live=true]')].map((e) => e.id.slice(5))")
    assert live == list(SECTIONS), live
    check_fits(full, "the full page")


# Live, an embed shows the full page's Panel documents (checked live above, at the same widths, in the page's
# narrower body: html.wt-embed pads less) inside its shell, which is there before Python. So every embed is
# checked before Python and live only owntext's (the most controls: text, file and Run) and a test-only section's
# (tests/test_browser_probe.py runs this file for it alone, without the full page): eight boots less.
LIVE_EMBEDS = {"owntext", *(s.id for s in state.extra_sections())}


@pytest.mark.parametrize("sid", SECTIONS)
def test_each_embed_fits_a_phone(phone, server, sid):
    page = phone.new_page()
    try:
        if sid in LIVE_EMBEDS:
            page.goto(f"{server.url}?embed={sid}")
            wait_booted(page)
            assert page.locator(f"#live-{sid}[data-live=true]").count() == 1
            settle(page)
        else:
            page.goto(f"{server.url}?embed={sid}&live=click")
            page.wait_for_function(PAUSED_JS, timeout=30_000)
            assert page.locator(f"#live-{sid} .wt-prerender").count() == 1
        check_fits(page, f"?embed={sid}" + ("" if sid in LIVE_EMBEDS else ", before Python"))
    finally:
        page.close()


def touch_drag(page, x0: float, y0: float, x1: float, y1: float, steps: int = 8) -> None:
    """A one-finger drag, as a touch screen sends it (touchstart, touchmoves, touchend)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for i in range(1, steps + 1):
            x, y = x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
            page.wait_for_timeout(30)  # a finger's pace: a drag's moves are apart in time
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def resid(page) -> float:
    return float(page.locator("#live-sweep [data-testid=sweep-resid]").get_attribute("data-value"))


def test_a_touch_drag_on_sigma_moves_the_readout(full):
    at_width(full, WIDTHS[0])
    handle = full.locator("#live-sweep .wt-ctl-sweep-sigma .noUi-handle")
    handle.scroll_into_view_if_needed()
    before, box = resid(full), handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    touch_drag(full, x, y, x + 60, y)
    until(lambda: resid(full) != before, 20, every_s=0.1)
    got = resid(full)
    assert got != before, "a touch drag on the sigma handle did not change the readout"
    st = state.parse_query(urlsplit(full.url).query)[0].sweep
    assert st.sigma > state.State().sweep.sigma  # dragged right: a larger sigma, written to the URL
    assert near(got, sweep.init_scales(st.sigma, st.in_scale)["resid"])


def test_the_badge_covers_no_control(full):
    for width in WIDTHS:
        at_width(full, width)
        seen = full.evaluate(BADGE_JS)
        assert seen["positions"] > 0, f"{width} px: no gradient-check badge on screen at any scroll position"
        assert not seen["overlaps"], f"{width} px: the badge covers controls:\n" + "\n".join(seen["overlaps"])
    at_width(full, WIDTHS[0])


def check_targets(page) -> int:
    """Every target of the page's header and of each section is big enough to touch; returns how many
    targets needing 44 px were found."""
    at_width(page, WIDTHS[0])
    misses, big = [], 0
    for sid in ("page", *SECTIONS):
        seen = page.evaluate(TARGETS_JS, sid)
        misses += seen["misses"]
        big += seen["counts"]["big"]
    assert not misses, f"{len(misses)} target(s) too small to touch:\n" + "\n".join(misses)
    return big


def test_touch_targets(full):
    big = check_targets(full)
    assert big >= 2 * len(SECTIONS), big  # handles, checkboxes, choices and "?" were found


def check_help(page) -> None:
    """Each control's help is folded behind a "?" at 360 px, opens in full within the screen on a tap, and stays
    folded behind its "?" on a desktop too (help paragraphs under every control filled a screen)."""
    helps = {f"wt-ctl-{c.section}-{c.name}": c.help for c in state.CONTROLS}
    helps |= {f"wt-ctl-{sid}-preset": store.PRESET_HELP for sid in state.PRESETS}  # a section's presets: no state
    at_width(page, WIDTHS[0])
    folded = page.evaluate(HELP_JS, WIDTHS[0])
    assert folded and all(text is not None for _, text, _, _ in folded), folded
    assert not [c for c, _, shown, _ in folded if shown], "help lines show on a phone before their ? is tapped"
    # Tapping a "?" shows that control's help in full, under the control and within the screen.
    summary = page.locator("#live-sweep .wt-ctl-sweep-sigma summary.wt-help-q")
    summary.scroll_into_view_if_needed()
    box = summary.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    sigma = next(r for r in page.evaluate(HELP_JS, WIDTHS[0]) if r[0] == "wt-ctl-sweep-sigma")
    assert sigma == ["wt-ctl-sweep-sigma", helps["wt-ctl-sweep-sigma"], True, True], sigma
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # Every help, opened, is the spec's text and fits the screen.
    page.evaluate(SUMMARIES_JS, True)
    opened = page.evaluate(HELP_JS, WIDTHS[0])
    page.evaluate(SUMMARIES_JS, False)
    assert all(shown and fits and text == helps[c] for c, text, shown, fits in opened), opened
    # On a desktop the help stays behind its "?", which is there to press.
    at_width(page, 1280)
    wide = page.evaluate(HELP_JS, 1280)
    assert wide and not [c for c, _, shown, _ in wide if shown], [c for c, _, shown, _ in wide if shown]
    assert page.locator("#live-sweep .wt-ctl-sweep-sigma summary.wt-help-q").first.is_visible()
    at_width(page, WIDTHS[0])


def test_help_folds_behind_a_question_mark_on_a_phone_and_loses_nothing(full):
    check_help(full)


# ---- before Python: the prerendered sections with the player's native controls ----------------------

@pytest.fixture(scope="module")
def played(phone, server):
    """The whole page on a phone before Python: with ?live=click no Python loads, so every section shows its
    prerender and the player's native controls answer from the playback tables."""
    page = phone.new_page()
    page.goto(server.url + "?live=click")
    page.wait_for_function(PAUSED_JS, timeout=30_000)
    yield page
    page.close()


def test_before_python_the_page_fits_a_phone(played):
    assert played.locator(".wt-player .wt-pctl").count() > 0, "no playback controls"
    assert played.locator("[data-live=true]").count() == 0, "a section went live without Python"
    check_fits(played, "the full page before Python")


# The prose's formulas (a section's own <pre>, not the code lab's code): each is the sentence's point, so each shows
# whole on the narrowest phone; a formula that scrolls sideways hides its end, which is where a comparison differs.
FORMULAS_JS = """(vw) => [...document.querySelectorAll('.wt-section > pre')].map((el) => ({
  id: el.closest('.wt-section').id, text: el.textContent.split('\\n')[0], over: el.scrollWidth - el.clientWidth,
  right: Math.round(el.getBoundingClientRect().right - vw)}))"""
WITH_FORMULAS = {s.id for s in state.REGISTRY if "<pre" in (ROOT / s.html).read_text(encoding="utf-8")}


def test_before_python_the_prose_formulas_show_whole(played):
    at_width(played, WIDTHS[0])
    formulas = played.evaluate(FORMULAS_JS, WIDTHS[0])
    assert WITH_FORMULAS and {f["id"] for f in formulas} == WITH_FORMULAS, formulas
    cut = [f for f in formulas if f["over"] > 0 or f["right"] > 0]
    assert not cut, f"{WIDTHS[0]} px: formulas cut at the edge (scroll px, past the screen px):\n{cut}"


def test_before_python_touch_targets(played):
    sliders = played.locator(".wt-player input[type=range]").count()
    boxes = played.locator(".wt-player input[type=checkbox]").count()
    assert sliders and boxes
    assert check_targets(played) >= sliders + boxes


def test_before_python_help_folds_behind_a_question_mark(played):
    check_help(played)
    assert played.evaluate("() => window.__wt.status") == "paused"  # still no Python
