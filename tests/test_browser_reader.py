"""The page as a reader meets it (docs/DESIGN.md "Page layout"), measured on the built site at
1280 x 900, before Python (?live=click: the prerendered page and the player) and once live:
- the page is at most 15,000 px tall, yet every section still has its numbers, its tables and a "Data and
  downloads" box when it has data or downloads (live: opening it shows them);
- a test build's section (tests/sections/) is also checked on its own: every check below over its box, and
  its height against a section's budget;
- no blank stretch taller than 160 px between two blocks of content;
- no table cell whose text runs past 4 lines;
- no control (button, input, select, the "?" of a help line, a slider's handle) overlaps another, and each
  control's "?" sits on its first line, not under it on a line of its own;
- every figure's text is at least 11 px as drawn (pairs side by side included), inside its figure, and
  overlaps none of its other text;
- every figure is at least 460 px wide, has three labelled values on each numeric axis, a heading when it is
  one of a pair (its view's PAIRS) and, a heatmap, a colour scale with a title; at 360 px every
  figure is at least 280 px wide with text of 11 px, and no table is wider than its box (rows are cards there);
  on the build before these fixes they fail, naming each figure (sweep resid: 374 px wide, 0 values on its
  x axis, no heading...) and each table (pathdrop's: 542 px in a box of 324);
- no visible text naming a repository command or file (those are the README's and the report's);
- no progress element on screen while nothing runs;
- the gradient-check badge overlaps no text or control at 1280, 1024, 768, 390 and 360 px, at 12 scroll
  positions each;
- printed (Playwright's page.pdf, print media), the handout carries every section's reproducing link and
  no control; the page count is printed for the README;
- projector mode (?projector=1): the body's computed font size is at least 24 px (its axe audit is in
  tests/test_browser_a11y.py's PAGES).
Geometry, not pixels: a browser update cannot turn these red by antialiasing.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import live_page
from harness import SCOPE_JS, figure_text_problems, recorded, Recorder, resize
from robust import settle
from weighttying import prerender
from weighttying.state import SECTIONS, extra_sections

pytestmark = pytest.mark.browser

MAX_HEIGHT = 21_000  # eight sections took 12,522 px before Python and 12,852 live with stacked, numbered
# figures; the ninth, your own text, brought the page to 14,527 and 14,857; the tenth, the code lab,
# added 1,740 px at 1280 before Python; defining every term where it is first used and saying each
# claim's limits about 1,540 px more, with the limits and sources already folded; the front
# (the opening figure, 442 px with the lede, and the findings, 619) brought it to 19,468 before Python and 20,039
# live; the prose's corrections and sources to 19,917 and 20,487; the page's own words beside the code lab's claim
# (in the claim and the findings) and the caption under the dropped path's training curves to 20,018 and 20,565.
# The contents list beside the article is the way around it.
# A test section's own box gets its share of the page's budget (2,100 px: 21,000 over the ten page sections,
# which measure 946 to 2,037 px each live).
MAX_SECTION = MAX_HEIGHT // (len(SECTIONS) - len(extra_sections()))
MAX_GAP = 160
MAX_LINES = 4
MIN_FIGURE_PX = 11  # as on a phone (test_browser_phone): what a figure's text must stay at as drawn
MIN_FIGURE_WIDTH = {1280: 460, 360: 280}  # a figure as wide as its idea: pairs stack rather than shrink
MIN_TICKS = 3  # labelled values per numeric axis
# Each kind's numeric axes: a bar chart's x names its bins, a strip chart's its groups.
AXES = {"lines": ("x", "y"), "heatmap": ("x", "y", "colour"), "bars": ("x", "y"), "strips": ("y",)}
WIDTHS = (1280, 1024, 768, 390, 360)
SCROLLS = 12
SHOWN = SECTIONS  # the registry (state.REGISTRY): a test build's sections too (tests/test_browser_probe.py)
# Where the checks look: the whole page (None), and each test section's box on its own, so a test build's run
# (tests/test_browser_probe.py, -k probe) holds the test section to the checks without the real page's budgets.
SCOPES = (None, *(s.id for s in extra_sections()))
# What a reader must never be told to run or open: commands and repository paths.
REPO_TEXT = re.compile(r"python -m|\bpip install|\bnpm (ci|install|run)|\./dev\b|\bdocs/|\bsite/|\btests/|"
                       r"\b[\w-]+\.(py|js|json|md|txt)\b")
# A control's text, which a handout must not show.
CONTROL_TEXT = ("Reset section", "Download CSV", "Download JSON", "Download figure", "Copy link", "Check every entry",
                "Recompute central differences", "Train tied + untied", "Run the seeds", "Run again", "Data and downloads",
                "Preset", "Your text (it stays in this browser)", "Or a .txt file", "Prompt for the samples")

WALK_JS = """
const { walk } = __wtTest;
const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.checkVisibility({visibilityProperty: true, opacityProperty: true}); };
const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
const content = (el) => ['svg', 'TABLE', 'INPUT', 'SELECT', 'BUTTON', 'IMG', 'CANVAS', 'PROGRESS', 'SUMMARY'].includes(el.tagName)
  || (!el.ownerSVGElement && !['STYLE', 'SCRIPT', 'OPTION'].includes(el.tagName) && ownText(el));
const label = (el) => `<${el.tagName.toLowerCase()} class="${String(el.getAttribute('class') || '').slice(0, 40)}"> "${(el.textContent || '').trim().slice(0, 50)}"`;
"""

# Vertical stretches of the page (document coordinates) with no content in them, between two blocks.
GAPS_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const spans = [];
  walk(root, (el) => { if (content(el) && shown(el)) { const r = el.getBoundingClientRect();
    spans.push([r.top + scrollY, r.bottom + scrollY, label(el)]); } });
  spans.sort((a, b) => a[0] - b[0]);
  const gaps = []; let reach = spans.length ? spans[0][1] : 0, before = '';
  for (const [top, bottom, what] of spans) {
    if (top - reach > 0) gaps.push([Math.round(top - reach), Math.round(reach), before, what]);
    if (bottom > reach) { reach = bottom; before = what; }
  }
  return gaps.sort((a, b) => b[0] - a[0]).slice(0, 8);
}"""

# Table cells whose text takes more than N lines.
CELLS_JS = "([n, scope]) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => {
    if (!['TD', 'TH'].includes(el.tagName) || !shown(el)) return;
    const s = getComputedStyle(el), line = parseFloat(s.lineHeight) || 1.2 * parseFloat(s.fontSize);
    const lines = (el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)) / line;
    if (lines > n + 0.5) out.push(`${label(el)}: ${lines.toFixed(1)} lines`);
  });
  return out;
}"""

# Visible text (shadow roots too), one string per element with text of its own.
TEXT_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => { if (!el.ownerSVGElement && !['STYLE', 'SCRIPT'].includes(el.tagName) && ownText(el) && shown(el))
    out.push([...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(' ').trim()); });
  return out;
}"""

PROGRESS_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => { if ((el.tagName === 'PROGRESS' || el.getAttribute('role') === 'progressbar') && shown(el))
    out.push(label(el)); });
  return out;
}"""

# What the badge overlaps: text or controls drawn under it (not its own text), at the current scroll.
BADGE_JS = "() => {" + WALK_JS + """
  let badge = null; walk(document, (el) => { if (!badge && el.matches('[data-testid=gradcheck-badge]') && shown(el)) badge = el; });
  if (!badge) return null;
  const b = badge.getBoundingClientRect();
  if (b.bottom < 0 || b.top > innerHeight) return {seen: false, hits: []};
  const hits = [];
  walk(document, (el) => {
    if (!content(el) || !shown(el) || badge.contains(el) || el.contains(badge)) return;
    const r = el.getBoundingClientRect();
    if (Math.min(r.right, b.right) - Math.max(r.left, b.left) > 1 && Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) > 1)
      hits.push(label(el));
  });
  return {seen: true, hits};
}"""

# Per section: figures, tables, hooked numbers, and its data box (a <details> before Python, Panel's card live).
INVENTORY_JS = "(ids) => {" + WALK_JS + """
  const out = {};
  for (const id of ids) {
    const sec = document.getElementById(id), n = {svg: 0, table: 0, hooks: 0, data: 0};
    walk(sec, (el) => { if (el.tagName === 'svg' && !el.ownerSVGElement) n.svg += 1; if (el.tagName === 'TABLE') n.table += 1;
      if (el.hasAttribute('data-testid') && el.hasAttribute('data-value')) n.hooks += 1;
      if (el.matches('details.wt-data, .wt-data')) n.data += 1; });
    out[id] = n;
  }
  return out;
}"""


# Pairs of visible controls whose boxes overlap (one inside the other, as a slider's handle in its track, is
# one control, not an overlap).
OVERLAP_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const controls = [];
  walk(root, (el) => { if (el.matches('input:not([type=hidden]), select, button, summary, .noUi-handle, a[href]') && shown(el)) controls.push(el); });
  const box = controls.map((el) => el.getBoundingClientRect());
  const nested = (a, b) => a.contains(b) || b.contains(a) || (a.getRootNode().host || a).contains(b.getRootNode().host || b);
  const out = [];
  for (let i = 0; i < controls.length; i++) for (let j = i + 1; j < controls.length; j++) {
    const a = box[i], b = box[j];
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 2 && h > 2 && !nested(controls[i], controls[j])) out.push(`${label(controls[i])} and ${label(controls[j])}: ${Math.round(w)} x ${Math.round(h)} px`);
  }
  return out;
}"""


# Controls whose "?" is below their widgets (inputs, selects, slider tracks, button groups), on a line of its
# own, instead of on the control's first line (its name's, or its widget's); and controls with a second "?", a
# widget's own tooltip (Panel's description) beside the help. Before Python a control is a .wt-pctl; live, a
# .wt-control with a shadow root.
HELP_BESIDE_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => {
    if (!el.matches('.wt-control, .wt-pctl') || !shown(el)) return;
    const parts = [];
    walk(el.shadowRoot || el, (e) => parts.push(e));
    if (el.shadowRoot) walk(el, (e) => parts.push(e));
    const q = parts.find((e) => e.matches('summary.wt-help-q') && shown(e));
    const widgets = parts.filter((e) => e.matches('input:not([type=hidden]), select, .noUi-target, .bk-btn-group') && shown(e));
    const name = [...el.classList].find((c) => c.startsWith('wt-ctl-')) || label(el);
    if (parts.some((e) => e.matches('.bk-description') && shown(e))) out.push(`${name}: a second "?", its widget's own`);
    if (!q || !widgets.length) return;
    const r = q.getBoundingClientRect();
    const bottom = Math.max(...widgets.map((w) => w.getBoundingClientRect().bottom));
    if (r.top >= bottom - 2) out.push(`${name}: "?" at y ${Math.round(r.top)}, under its widgets (to y ${Math.round(bottom)})`);
  });
  return out;
}"""


# Each figure (render/'s <svg data-fig>, overlays left out) as drawn: its section and slot, its width in CSS
# px, its tick values per axis (y at the plot's left, x under it, the colour scale's beside it), whether it
# has a heading and a colour-scale title.
FIGURES_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => {
    if (el.tagName !== 'svg' || !el.hasAttribute('data-fig') || !shown(el)) return;
    const fig = JSON.parse(el.dataset.fig), [x0, , x1, y1] = fig.box, n = {y: 0, x: 0, colour: 0};
    for (const t of el.querySelectorAll('text.wt-tick')) {
      const x = parseFloat(t.getAttribute('x')), y = parseFloat(t.getAttribute('y'));
      if (Math.abs(x - (x0 - 5)) < 0.5) n.y += 1; else if (Math.abs(y - (y1 + 5)) < 0.5) n.x += 1; else if (x > x1) n.colour += 1;
    }
    let section = null, slot = null;
    for (let a = el; a; a = a.parentNode || a.host) {
      if (!slot && a.dataset && a.dataset.slot) slot = a.dataset.slot;
      if (a.classList && a.classList.contains('wt-section')) { section = a.id; break; }
    }
    out.push({section, slot, kind: fig.kind, width: el.getBoundingClientRect().width, ticks: n,
              heading: !!el.querySelector('text.wt-head'),
              scaleTitle: [...el.querySelectorAll('text.wt-axis')].some((t) => parseFloat(t.getAttribute('x')) > x1)});
  });
  return out;
}"""

# Tables wider than the box that holds them (a sideways-scrolling region, or the section), and captions cut.
TABLES_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => {
    if (el.tagName !== 'TABLE' || !shown(el)) return;
    let box = el.parentElement || el.getRootNode().host;
    while (box && box !== document.body && getComputedStyle(box).overflowX === 'visible') box = box.parentElement || (box.getRootNode().host);
    const room = box ? box.getBoundingClientRect().width : innerWidth, w = el.getBoundingClientRect().width;
    const cap = el.querySelector('caption');
    if (w > room + 1 || el.scrollWidth > Math.ceil(w) + 1) out.push(`${label(el)}: ${Math.round(Math.max(w, el.scrollWidth))} px in a box of ${Math.round(room)}`);
    if (cap && cap.scrollWidth > cap.clientWidth + 1) out.push(`${label(el)}: its caption is cut (${cap.scrollWidth} px in ${cap.clientWidth})`);
  });
  return out;
}"""


# Scroll to y and resolve once two frames have been drawn there (the sticky controls have moved with it).
SCROLL_JS = "(y) => new Promise((r) => { window.scrollTo(0, y); requestAnimationFrame(() => requestAnimationFrame(r)); })"


played = live_page("live=click", must_boot=False)
live = live_page("")


def reader_checks(page, scope: str | None) -> dict:
    """Every measure of the module's docstring that one page at 1280 px answers, as {name: findings}, over the
    whole page (SCOPE None) or one section's box."""
    resize(page, 1280, 900)
    text = page.evaluate(TEXT_JS, scope)
    height = (f"document.getElementById('{scope}').getBoundingClientRect().height" if scope
              else "document.documentElement.scrollHeight")
    return {"scope": scope, "height": page.evaluate(height),
            "gaps": [g for g in page.evaluate(GAPS_JS, scope) if g[0] > MAX_GAP],
            "cells": page.evaluate(CELLS_JS, [MAX_LINES, scope]),
            "repo": [t for t in text if REPO_TEXT.search(t)],
            "progress": page.evaluate(PROGRESS_JS, scope),
            "figures": figure_text_problems(page, MIN_FIGURE_PX, scope),
            "overlaps": page.evaluate(OVERLAP_JS, scope),
            "help": page.evaluate(HELP_BESIDE_JS, scope),
            "inventory": page.evaluate(INVENTORY_JS, [scope] if scope else SHOWN),
            "axes": figure_problems(page.evaluate(FIGURES_JS, scope), 1280)}


def paired(section: str | None, slot: str | None) -> bool:
    """Whether a section's slot is one of a pair of figures that compare (its view's PAIRS)."""
    if section not in SHOWN:
        return False
    return any(slot in pair for pair in prerender.view(section).PAIRS)


def figure_problems(figures: list[dict], width: int) -> list[str]:
    """Each figure narrower than the least for WIDTH, and (at 1280) with an axis of fewer than MIN_TICKS values,
    a heatmap without its colour scale's title, a panel of a pair without its heading."""
    out = []
    for f in figures:
        name = f"{f['section']} {f['slot']} ({f['kind']})"
        if f["width"] < MIN_FIGURE_WIDTH[width] - 0.5:
            out.append(f"{name}: {f['width']:.0f} px wide at {width} px (at least {MIN_FIGURE_WIDTH[width]})")
        if width != 1280:
            continue
        out += [f"{name}: {f['ticks'][a]} labelled values on its {a} axis (at least {MIN_TICKS})"
                for a in AXES[f["kind"]] if f["ticks"][a] < MIN_TICKS]
        if f["kind"] == "heatmap" and not f["scaleTitle"]:
            out.append(f"{name}: its colour scale says nothing about what the colour means")
        if paired(f["section"], f["slot"]) and not f["heading"]:
            out.append(f"{name}: one of a pair, without a heading")
    return out


def phone_checks(page, scope: str | None) -> dict:
    """At 360 px: figures' widths and text, and tables that fit their boxes (over the page, or SCOPE's box)."""
    resize(page, 360, 760)
    try:
        return {"figures": figure_problems(page.evaluate(FIGURES_JS, scope), 360)
                + figure_text_problems(page, MIN_FIGURE_PX, scope),
                "tables": page.evaluate(TABLES_JS, scope)}
    finally:
        resize(page, 1280, 900)


@pytest.fixture(scope="module")
def before(played) -> dict:
    played.wait_for_selector("html[data-wt-status=paused]", state="attached")
    return {scope: reader_checks(played.page, scope) for scope in SCOPES}


@pytest.fixture(scope="module")
def after(live) -> dict:
    settle(live.page, strict=False)
    return {scope: reader_checks(live.page, scope) for scope in SCOPES}


# The measured fixtures' parameters: when (before Python, live) by scope.
WHEN_SCOPE = [(when, scope) for when in ("before Python", "live") for scope in SCOPES]


def when_scope_id(param: tuple) -> str:
    return f"{param[0]}-{param[1] or 'page'}"


def pick(request, before: str, after: str) -> dict:
    """The findings for the request's (when, scope): the fixture BEFORE's or AFTER's, for that scope."""
    when, scope = request.param
    return request.getfixturevalue(before if when == "before Python" else after)[scope]


@pytest.fixture(params=WHEN_SCOPE, ids=when_scope_id)
def measured(request) -> dict:
    return pick(request, "before", "after")


def boxed(sid: str) -> bool:
    """Whether section sid has a "Data and downloads" box: it has data slots or downloads (views.kit.compose)."""
    return bool(prerender.view(sid).DATA) or prerender.has_downloads(sid)


def test_the_page_is_short_and_everything_is_still_there(measured):
    """The page within its height, a test section within a section's; in each section its numbers, a table when it
    has data slots and a "Data and downloads" box when it has something to put in it."""
    scope, height = measured["scope"], measured["height"]
    print(f"[reader] {scope or 'page'} height {height} px")
    budget = MAX_SECTION if scope else MAX_HEIGHT
    assert height <= budget, f"{scope or 'the page'} is {height} px tall (at most {budget})"
    inv = measured["inventory"]
    assert {s: n["data"] for s, n in inv.items()} == {s: int(boxed(s)) for s in inv}
    assert all(n["hooks"] for n in inv.values()) and all(n["table"] for s, n in inv.items() if prerender.view(s).DATA), inv
    assert scope or sum(n["svg"] for n in inv.values()) >= 8, inv


@pytest.fixture(scope="module")
def phone_before(played, before) -> dict:
    return {scope: phone_checks(played.page, scope) for scope in SCOPES}


@pytest.fixture(scope="module")
def phone_after(live, after) -> dict:
    return {scope: phone_checks(live.page, scope) for scope in SCOPES}


@pytest.fixture(params=WHEN_SCOPE, ids=when_scope_id)
def phone(request) -> dict:
    return pick(request, "phone_before", "phone_after")


def test_figures_have_numbered_axes_titled_panels_and_room(measured):
    """1280 px: three labelled values on every numeric axis, a colour scale's title on every heatmap, a heading on
    every panel of a pair, every figure at least 460 px wide."""
    assert not measured["axes"], f"{len(measured['axes'])} figure problem(s):\n" + "\n".join(measured["axes"][:40])


def test_figures_fit_a_phone_and_tables_show_every_column(phone):
    """360 px: figures at least 280 px wide with text of 11 px, and no table wider than its box (its verdict
    column on screen), captions whole."""
    assert not phone["figures"], f"{len(phone['figures'])} figure problem(s):\n" + "\n".join(phone["figures"][:40])
    assert not phone["tables"], f"{len(phone['tables'])} table(s) past their box:\n" + "\n".join(phone["tables"][:20])


def test_no_blank_stretch(measured):
    assert not measured["gaps"], "blank stretches (px, at y, after, before):\n" + "\n".join(map(str, measured["gaps"]))


def test_no_control_covers_another(measured):
    assert not measured["overlaps"], "overlapping controls:\n" + "\n".join(measured["overlaps"][:20])


def test_each_help_sits_beside_its_control_and_is_its_only_one(measured):
    assert not measured["help"], "a help \"?\" under its control, or a second one:\n" + "\n".join(measured["help"][:20])


def test_figure_text_is_readable_inside_its_figure(measured):
    problems = measured["figures"]
    assert not problems, f"{len(problems)} figure text(s):\n" + "\n".join(problems[:40])


def test_no_table_cell_runs_past_four_lines(measured):
    assert not measured["cells"], "\n".join(measured["cells"][:12])


def test_no_text_names_a_command_or_a_file(measured):
    assert not measured["repo"], measured["repo"][:8]


def test_no_progress_shows_while_nothing_runs(measured):
    assert not measured["progress"], measured["progress"]


def test_every_download_is_one_click_away(live):
    """Live, each section's "Data and downloads" card opens to its CSV/JSON/SVG downloads."""
    found = {}
    for sid in filter(boxed, SHOWN):
        head = live.locator(f"#live-{sid} .wt-data .card-header").first
        head.scroll_into_view_if_needed()
        head.click()
        buttons = live.locator(f"#live-{sid} .wt-data .bk-btn", has_text="Download")
        buttons.first.wait_for(state="visible")
        found[sid] = buttons.count()
        head.click()
    assert all(n >= 1 for n in found.values()), found


def test_the_badge_covers_nothing_at_any_width_or_scroll(live):
    page = live.page
    try:
        for width in WIDTHS:
            resize(page, width, 900)
            height = page.evaluate("document.documentElement.scrollHeight")
            seen = 0
            for i in range(SCROLLS):
                page.evaluate(SCROLL_JS, int(i * (height - 900) / (SCROLLS - 1)))
                got = page.evaluate(BADGE_JS)
                assert got is not None, f"{width} px: no gradient-check badge"
                assert not got["hits"], f"{width} px, scroll {i}: the badge covers {got['hits'][:5]}"
                seen += got["seen"]
            # the badge sits in its section, so some scroll positions show it
            page.locator("[data-testid=gradcheck-badge]").first.scroll_into_view_if_needed()
            assert not page.evaluate(BADGE_JS)["hits"]
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def pdf_text(pdf: bytes) -> str | None:
    """The text of a PDF by poppler's pdftotext, or None on a machine without it."""
    if not shutil.which("pdftotext"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "p.pdf").write_bytes(pdf)
        return subprocess.run(["pdftotext", "-layout", "p.pdf", "-"], cwd=tmp, capture_output=True, text=True,
                              check=True).stdout


def test_print_is_a_clean_handout(browser, server):
    """The live page printed to PDF: every section's reproducing link (the link text, and a link annotation:
    Chromium makes a link to the page's own address an internal one, /Dest /<id>), no control, and the page
    count for the README."""
    rec = Recorder()
    ctx, page = recorded(browser, rec)
    try:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(server.url + "?sweep.grid=fine", wait_until="domcontentloaded")
        page.wait_for_selector("html[data-wt-status=ready]", state="attached", timeout=240_000)
        settle(page, strict=False)
        pdf = page.pdf(format="A4", margin={"top": "1cm", "bottom": "1cm", "left": "1cm", "right": "1cm"})
        pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
        print(f"[reader] printed: {pages} A4 pages, {len(pdf) // 1000} kB")
        dests = set(re.findall(rb"/Dest\s*/([\w-]+)", pdf))
        assert {sid.encode() for sid in SHOWN} <= dests, dests
        text = pdf_text(pdf)
        if text is not None:  # poppler-utils installed: read the handout itself
            flat = re.sub(r"\s+", "", text)
            for sid in SHOWN:
                assert f"?sweep.grid=fine#{sid}" in flat, sid
            assert not [c for c in CONTROL_TEXT if c in text], [c for c in CONTROL_TEXT if c in text]
        page.emulate_media(media="print")  # and as laid out for print, in the DOM
        shown = page.evaluate(TEXT_JS)
        assert not [t for t in shown if any(c in t for c in CONTROL_TEXT)], [t for t in shown if any(c in t for c in CONTROL_TEXT)]
        assert not page.evaluate(PROGRESS_JS)
        links = page.evaluate("[...document.querySelectorAll('.wt-repro a')].filter((a) => a.checkVisibility())"
                              ".map((a) => a.href)")
        assert sorted(links) == sorted(f"{server.url}?sweep.grid=fine#{sid}" for sid in SHOWN), links
        assert 5 <= pages <= 60
    finally:
        ctx.close()


def test_projector_mode_reads_from_the_back_of_the_room(browser, server):
    rec = Recorder()
    ctx, page = recorded(browser, rec)
    try:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(server.url + "?projector=1&hide=prose&live=click", wait_until="domcontentloaded")
        size = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
        assert size >= 24, size
        assert page.evaluate("document.documentElement.classList.contains('wt-projector')")
        # the copy-link carries it (and the teacher's hide=)
        page.evaluate("document.getElementById('wt-copy').click()")
        shared = page.locator("[data-testid=share-url]").input_value()
        assert "projector=1" in shared and "hide=prose" in shared, shared
        page.goto(server.url + "?projector=maybe&live=click", wait_until="domcontentloaded")
        assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") < 24  # not a valid on/off
    finally:
        ctx.close()
