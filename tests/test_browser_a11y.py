"""Accessibility audit with a real engine: axe-core (npm, pinned in pins/artifacts.json "test_npm") run in
Chromium on the served page: the full page in light and in dark, the full page at a 360 px viewport, and
every ?embed=<id>; each before Python (the prerendered page a reader sees first) and the full pages and one embed
once the live sections are in (Panel's widgets in their shadow roots, which axe walks). Zero serious or critical
violations; a failure lists them by rule (the full pages' all: test-results/axe.json), separately for the page's
own HTML (site/: prose, controls of the page, boot and error UI) and for the sections' content (`#live-<id>`: views/
prerendered HTML and the Panel app's widgets, whose Bokeh handles, spinner buttons and checkboxes boot.js names).

axe-core is injected with page.evaluate (DevTools evaluation, which the page's CSP does not govern), so
the page is audited under its real Content-Security-Policy.
"""
from __future__ import annotations

import hashlib
import json

import pytest

from harness import ROOT, Recorder, new_context, recorded, resize, wait_booted
from robust import settle
from weighttying import state
from weighttying.state import SECTIONS

pytestmark = pytest.mark.browser

BLOCKING = ("serious", "critical")
RUN_AXE_JS = """async () => {
  // Each violation's nodes, split by where they are: inside a section's live slot (#live-<id>) or the page's own.
  const r = await axe.run(document, {resultTypes: ['violations']});
  const inSection = (n) => { const host = document.querySelector([n.target].flat(2)[0]);
    return !!(host && host.closest('[id^="live-"]')); };
  const describe = (n) => [n.target].flat(2).join(' >> ') + ' | ' + (n.failureSummary || '').split('\\n')[1];
  return r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    page: v.nodes.filter((n) => !inSection(n)).map(describe), sections: v.nodes.filter(inSection).map(describe)}));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    """node_modules/axe-core/axe.min.js, once its sha256 is the pinned one."""
    spec = json.loads((ROOT / "pins" / "artifacts.json").read_text())["test_npm"]["axe-core"]
    path = ROOT / "node_modules" / "axe-core" / "axe.min.js"
    assert path.is_file(), f"{path} is missing: run npm ci (package.json devDependencies)"
    version = json.loads((path.parent / "package.json").read_text())["version"]
    assert version == spec["version"], f"node_modules has axe-core {version}, the pin is {spec['version']}: run npm ci"
    got = hashlib.sha256(path.read_bytes()).hexdigest()
    assert got == spec["files"]["axe.min.js"], f"{path} has sha256 {got}, not the pinned one: refusing to run it"
    return path.read_text()


def audit(page, axe_source: str) -> list[dict]:
    """The serious and critical violations axe finds in the page as it is now, each {id, impact, help, page,
    sections}: its nodes in the page's own HTML and inside the #live-<id> slots."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source)
    return [v for v in page.evaluate(RUN_AXE_JS) if v["impact"] in BLOCKING]


def part(found: dict[str, list[dict]], which: str) -> dict[str, list[dict]]:
    """FOUND narrowed to the nodes in WHICH ("page" or "sections"), as {where: [{id, impact, help, nodes}]}."""
    out = {where: [{**v, "nodes": v[which]} for v in vs if v[which]] for where, vs in found.items()}
    return {where: vs for where, vs in out.items() if vs}


def described(found: dict[str, list[dict]]) -> str:
    lines = []
    for where, violations in found.items():
        for v in violations:
            lines.append(f"{where}: {v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
            lines += [f"    {n}" for n in v["nodes"][:4]]
    return "\n".join(lines)


PAGES = [("full page, light", "theme=light", 1280), ("full page, dark", "theme=dark", 1280),
         ("full page, 360 px", "", 360), ("full page, projector", "projector=1", 1280)]
# Live, the pages named here are audited on the light page once its own live audit is done, made into them the way
# their query makes them: the narrow layout is media queries, which a resize re-applies as a fresh load would
# (test_browser_phone.py checks its widths the same way), and projector=1 is one class page.js puts on <html> (no
# Python reads it). Headless Chromium prefers the light scheme. Two boots less; before Python each is a load of its
# own, so the query itself is audited too.
LIVE_HOST = "full page, light"
LIVE_ON = {"full page, projector": True, "full page, 360 px": False}  # page name: whether it has the projector class
PROJECTOR_JS = "(on) => document.documentElement.classList.toggle('wt-projector', on)"
# Live, the embeds' sections are the full page's (the same Panel documents, audited there in light, dark and
# projector); an embed adds only its shell, which is there before Python. So one embed (KEPT) is audited live, and
# each embed before Python in a test of its own (test_each_embed_before_python_has_no_serious_violations, which
# tests/test_browser_probe.py runs for a test-only section alone): no node the live audits miss.
EMBEDS = SECTIONS  # the registry (state.REGISTRY): a test build's sections too (tests/test_browser_probe.py)
KEPT = "gradcheck"  # its embed stays open, live, for test_bokeh_controls_are_named_from_their_titles_and_stay_named


def audit_live(page, axe_source: str) -> list[dict]:
    wait_booted(page)
    settle(page, strict=False)
    return audit(page, axe_source)


@pytest.fixture(scope="module")
def audited(browser, server, axe_source):
    """({"<page>, <state>": violations} over every page this audit covers, before Python and live, each
    loaded once and booted at most once; the ?embed=KEPT page, live)."""
    found, kept, ctxs = {}, None, []
    widths = {name: width for name, _, width in PAGES}
    try:
        for name, query, width in [*PAGES, (f"?embed={KEPT}", f"embed={KEPT}", 1280)]:
            ctx, page = recorded(browser, Recorder(), viewport={"width": width, "height": 900})
            ctxs.append(ctx)
            page.goto(server.url + (f"?{query}" if query else ""), wait_until="domcontentloaded")
            found[f"{name}, before Python"] = audit(page, axe_source)
            if name not in LIVE_ON:
                found[f"{name}, live"] = audit_live(page, axe_source)
                for other, projector in LIVE_ON.items() if name == LIVE_HOST else ():
                    page.evaluate(PROJECTOR_JS, projector)
                    resize(page, widths[other], 900)
                    found[f"{other}, live"] = audit(page, axe_source)
            if name == f"?embed={KEPT}":
                kept = page
            else:
                ctxs.pop().close()
        out = ROOT / "test-results" / "axe.json"  # every finding, for whoever fixes them (git-ignored)
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps({which: part(found, which) for which in ("page", "sections")}, indent=1) + "\n")
        yield found, kept
    finally:
        for ctx in ctxs:
            ctx.close()


@pytest.fixture(scope="module")
def findings(audited) -> dict[str, list]:
    return audited[0]


def test_the_pages_own_html_has_no_serious_violations(findings):
    assert EMBEDS, "no sections found"
    page = part(findings, "page")
    assert not page, "axe-core found serious/critical violations:\n" + described(page)


def test_the_sections_have_no_serious_violations(findings):
    sections = part(findings, "sections")
    assert not sections, "axe-core found serious/critical violations:\n" + described(sections)


@pytest.mark.parametrize("sid", EMBEDS)
def test_each_embed_before_python_has_no_serious_violations(browser, server, axe_source, sid):
    ctx, page = recorded(browser, Recorder())
    try:
        page.goto(f"{server.url}?embed={sid}", wait_until="domcontentloaded")
        found = audit(page, axe_source)
    finally:
        ctx.close()
    assert not found, "axe-core found serious/critical violations:\n" + described({f"?embed={sid}, before Python": found})


def test_the_audit_fails_on_a_page_with_a_violation(browser, axe_source):
    """The audit can fail: an image without alt text and an unlabelled input are reported by rule."""
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.set_content('<html lang="en"><body><main><img src="data:,"><input type="text"></main></body></html>')
        ids = {v["id"] for v in audit(page, axe_source)}
    finally:
        ctx.close()
    assert {"image-alt", "label"} <= ids, ids


# [control class, what, aria-label] for every slider handle, spinner button and checkbox in Bokeh's shadow roots
# (the page's own inputs, such as the player's, are named by their <label>).
BOKEH_NAMES_JS = """() => {
  const control = (el) => { for (let a = el; a; a = __wtTest.parentOf(a))
    for (const c of a.classList || []) if (c.startsWith('wt-ctl-')) return c; return null; };
  const out = [];
  __wtTest.walk(document, (el) => {
    const what = el.matches('[role=slider]') ? 'handle' : el.matches('.bk-spin-btn-up') ? 'up'
      : el.matches('.bk-spin-btn-down') ? 'down' : el.matches('input[type=checkbox]') ? 'checkbox' : null;
    if (what && el.getRootNode() !== document) out.push([control(el), what, el.getAttribute('aria-label')]);
  });
  return out;
}"""

@pytest.fixture(scope="module")
def gradcheck(audited):
    return audited[1]


def expected_name(ctl: str, what: str) -> str:
    """The name boot.js gives a Bokeh part of control CTL (wt-ctl-<section>-<key>): its widget's title."""
    c = next(c for c in state.CONTROLS if f"wt-ctl-{c.section}-{c.name}" == ctl)
    title = f"{c.label} (log scale)" if c.log and what == "handle" else c.label
    return {"up": f"increase {title}", "down": f"decrease {title}"}.get(what, title)


def test_bokeh_controls_are_named_from_their_titles_and_stay_named(gradcheck):
    """Every slider handle, spinner button and checkbox of the gradient check is named after its control,
    also after the reader changed a setting and Python redrew the section."""
    for moment in ("booted", "after a change"):
        found = gradcheck.evaluate(BOKEH_NAMES_JS)
        assert {what for _, what, _ in found} == {"handle", "up", "down", "checkbox"}, found
        wrong = [(ctl, what, name) for ctl, what, name in found if name != expected_name(ctl, what)]
        assert not wrong, f"{moment}: misnamed {wrong}"
        if moment == "booted":
            box = gradcheck.locator(".wt-ctl-gradcheck-tied input[type=checkbox]")
            box.click()
            assert not box.is_checked()
            assert gradcheck.evaluate("() => window.__wt.patchesSent") > 0
            settle(gradcheck)  # Python's answer (the check rerun, every slot redrawn) is in
