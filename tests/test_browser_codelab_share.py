"""The code lab's "Share this code" (site/share_code.js) in headless Chromium (embed=codelab).

- Share: the link in the clipboard (and in the bar, selected where copying is refused) is this page with its query
  and the editor's code in the fragment only, in the format share_code.js states (decoded here by zlib, not by the
  page); a browser without CompressionStream shares it uncompressed and says so.
- Opening such a link: the editor shows the link's code with a line saying so, the fragment leaves the address bar,
  and nothing runs: before Python nothing asks for Python, live no numerics worker runs it until Run, which then
  checks exactly that code. The reader's kept edit is untouched: a reload brings it back, "Back to my edit" too.
- A damaged, cut, oversized or unknown-format fragment, or one this browser cannot decompress: the bar says why and
  the editor, the bug chosen and the verdict stay as they were.
"""
from __future__ import annotations

import base64
import re
import zlib
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from conftest import live_page
from harness import new_context, until
from robust import settle
from test_browser_a11y import BLOCKING, axe_source  # noqa: F401  (axe_source: a fixture)
from test_browser_codelab import EDITOR, LIVE, LIVE_BOX_JS, editor_text, type_at_end, want
from weighttying import codelab
from weighttying import state

pytestmark = pytest.mark.browser
MAX = state.BY_KEY["codelab.code"].spec.max_chars
SHARED = codelab.bug_source("output_only") + "# shared with you\n"
NOTE = "[data-testid=codelab-restored]"
KEPT_JS = "() => Object.entries(localStorage).filter(([k]) => k.startsWith('weighttying.codelab.')).map(([, v]) => v)"
NO_CLIPBOARD = "Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });"
NO_STREAMS = "delete window.CompressionStream; delete window.DecompressionStream;"


def fnv(text: str) -> str:
    """FNV-1a over text's UTF-16 code units, 8 hex digits (share_code.js's check)."""
    h, units = 0x811C9DC5, text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        h = ((h ^ int.from_bytes(units[i:i + 2], "little")) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def fragment_of(code: str, zipped: bool = True) -> str:
    """A shared code's fragment as share_code.js's header states the format."""
    data = code.encode()
    if zipped:
        packer = zlib.compressobj(wbits=-15)  # deflate-raw
        data = packer.compress(data) + packer.flush()
    return f"code={'z1' if zipped else 't1'}.{fnv(code)}.{base64.urlsafe_b64encode(data).rstrip(b'=').decode()}"


def code_of(fragment: str) -> str:
    """The code a fragment carries, checked against its hash."""
    name, _, rest = fragment.partition("=")
    fmt, check, payload = rest.split(".")
    assert name == "code" and fmt in ("z1", "t1"), fragment[:40]
    data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    text = (zlib.decompress(data, wbits=-15) if fmt == "z1" else data).decode()
    assert fnv(text) == check
    return text


def opened(page, url: str) -> None:
    """A full load of url (never a same-page hash change), the editor mounted and any link's code read."""
    page.goto("about:blank")
    page.goto(url, wait_until="domcontentloaded")
    page.locator(EDITOR).wait_for(timeout=10_000)


@contextmanager
def fresh_page(browser, url: str, **options):
    """A page of a fresh context (new_context's OPTIONS) on url, opened; the context closed after."""
    ctx = new_context(browser, **options)
    try:
        page = ctx.new_page()
        opened(page, url)
        yield page
    finally:
        ctx.close()


def note(page) -> str:
    return page.locator(NOTE).text_content()


def test_share_puts_the_code_in_the_fragment_and_nowhere_else(browser, server):
    url = f"{server.url}?embed=codelab&live=click&codelab.k=5"
    with fresh_page(browser, url, permissions=["clipboard-read", "clipboard-write"]) as page:
        type_at_end(page, "\n# mine to share")
        page.locator("[data-testid=codelab-share]").click()
        expect(page.locator("[data-testid=codelab-share-said]")).to_contain_text("copied", timeout=10_000)
        link = page.locator("[data-testid=codelab-share-link]")
        url = link.input_value()
        assert link.is_visible() and page.evaluate("navigator.clipboard.readText()") == url
        parts = urlsplit(url)
        assert parse_qs(parts.query) == {"live": ["click"], "codelab.k": ["5"], "codelab.bug": ["yours"]}  # no embed
        assert code_of(parts.fragment) == editor_text(page) and editor_text(page).endswith("# mine to share")
        assert "mine" not in parts.query and "mine" not in page.url and "#" not in page.url


def test_without_clipboard_or_compression_the_link_is_plain_and_shown_selected(browser, server):
    with fresh_page(browser, f"{server.url}?embed=codelab&live=click", init_js=(NO_CLIPBOARD, NO_STREAMS)) as page:
        page.locator("[data-testid=codelab-share]").click()
        said = page.locator("[data-testid=codelab-share-said]")
        expect(said).to_contain_text("Copying was not allowed", timeout=10_000)
        assert "not compressed" in said.text_content()
        url = page.locator("[data-testid=codelab-share-link]").input_value()
        assert urlsplit(url).fragment.startswith("code=t1.") and code_of(urlsplit(url).fragment) == editor_text(page)
        assert page.evaluate("""() => { const f = document.activeElement;
          return f.dataset.testid === 'codelab-share-link' && f.selectionStart === 0 && f.selectionEnd === f.value.length; }""")
        opened(page, f"{server.url}?embed=codelab&live=click#{fragment_of(SHARED)}")  # a compressed link here
        expect(page.locator(NOTE)).to_contain_text("cannot decompress it", timeout=10_000)
        assert editor_text(page).rstrip("\n") == codelab.original_source().rstrip("\n")


def test_a_bad_link_says_why_and_changes_nothing(browser, server):
    good = fragment_of(SHARED)
    head, check, payload = good.split(".")
    flipped = payload[:30] + ("A" if payload[30] != "A" else "B") + payload[31:]
    bad = {
        "edited": (f"{head}.{check}.{flipped}", "damaged|check|UTF-8"),
        "cut short": (good[:-12], "damaged|check"),
        "oversized": (fragment_of("#" * (MAX + 1)), f"{MAX + 1} characters, more than the editor takes \\({MAX}\\)"),
        "another format": (f"code=z7.{check}.{payload}", "format this page does not read"),
    }
    plain = f"{server.url}?embed=codelab&live=click"
    with fresh_page(browser, plain) as page:
        verdict = page.locator("[data-testid=codelab-verdict]").get_attribute("data-value")
        for what, (fragment, why) in bad.items():
            opened(page, f"{plain}#{fragment}")
            expect(page.locator(NOTE)).to_contain_text("could not read", timeout=10_000)
            expect(page.locator(NOTE)).to_contain_text(re.compile(why))
            assert "Nothing was changed" in note(page), what
            assert editor_text(page).rstrip("\n") == codelab.original_source().rstrip("\n"), what
            assert page.input_value("#wt-p-codelab-bug") == state.Codelab().bug, what
            assert page.locator("[data-testid=codelab-verdict]").get_attribute("data-value") == verdict, what
            assert page.evaluate(KEPT_JS) == [], what  # nothing kept either


def test_a_link_never_replaces_the_readers_kept_edit(browser, server):
    plain = f"{server.url}?embed=codelab&live=click"
    with fresh_page(browser, plain) as page:
        type_at_end(page, "\n# my own edit")
        mine = editor_text(page)
        until(lambda: page.evaluate(KEPT_JS) == [mine])
        opened(page, f"{plain}&codelab.k=7#{fragment_of(SHARED)}")
        expect(page.locator(NOTE)).to_contain_text("Code from the link you opened", timeout=10_000)
        assert "your own edit is kept" in note(page) and page.locator("[data-testid=codelab-back]").is_visible()
        assert editor_text(page).rstrip("\n") == SHARED.rstrip("\n")
        assert "#" not in page.url and "codelab.k=7" in page.url  # the fragment left the address bar, the query stayed
        assert page.input_value("#wt-p-codelab-bug") == "yours"  # as typing selects it, and nothing ran:
        page.locator("#live-codelab [data-testid=codelab-not-run]").wait_for(timeout=10_000)
        assert page.evaluate("() => !window.__wt || window.__wt.status !== 'ready'")  # no Python was asked for
        held = page.locator(".wt-codelab-editor").get_attribute("data-held") or "0"
        type_at_end(page, "\n# trying the link's code")
        until(lambda: int(page.locator(".wt-codelab-editor").get_attribute("data-held") or 0) > int(held))
        assert page.evaluate(KEPT_JS) == [mine]  # the edit passed by, held: no keeping timer was set
        page.reload(wait_until="domcontentloaded")  # the link's code is not applied again
        page.locator(EDITOR).wait_for(timeout=10_000)
        assert editor_text(page) == mine and "Restored your edit" in note(page)
        page.evaluate("(f) => { location.hash = f; }", fragment_of(SHARED))  # pasted into this tab: a hash change
        expect(page.locator(NOTE)).to_contain_text("Code from the link you opened", timeout=10_000)
        assert editor_text(page).rstrip("\n") == SHARED.rstrip("\n")
        page.locator("[data-testid=codelab-back]").click()
        assert editor_text(page) == mine and "Your own edit is back" in note(page)
        page.keyboard.press("Control+z")  # Undo shows the link's code again
        until(lambda: editor_text(page).rstrip("\n") == SHARED.rstrip("\n"))


def test_the_editor_and_its_bar_saying_all_they_can_pass_axe(browser, server, axe_source):  # noqa: F811  (the fixture imported above)
    # the editor and its bar at their fullest, audited alone (axe-core, as test_browser_a11y runs it): a link's code,
    # longer than the editor's box (so it scrolls), over the reader's edit, then Share
    plain = f"{server.url}?embed=codelab&live=click"
    with fresh_page(browser, plain, init_js=(NO_CLIPBOARD,)) as page:
        type_at_end(page, "\n# my own edit")
        page.evaluate("(f) => { location.hash = f; }", fragment_of(SHARED))
        page.locator("[data-testid=codelab-back]").wait_for(timeout=10_000)
        page.locator("[data-testid=codelab-share]").click()
        page.locator("[data-testid=codelab-share-link]").wait_for(timeout=10_000)
        page.evaluate(axe_source)
        assert page.evaluate("() => { const s = document.querySelector('.wt-codelab-editor .cm-scroller');"
                             " return s.scrollHeight > s.clientHeight; }"), "the code scrolls in its box"
        found = page.evaluate("""async () => (await axe.run('.wt-codelab-editor', {resultTypes: ['violations']})).violations
          .map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' '))}))""")
        assert not [v for v in found if v["impact"] in BLOCKING], found


live = live_page(f"embed=codelab#{fragment_of(SHARED)}")


def test_a_link_opened_live_runs_nothing_until_run(live):
    page = live.page
    page.locator(LIVE).wait_for(timeout=120_000)
    assert editor_text(page).rstrip("\n") == SHARED.rstrip("\n") and "Code from the link you opened" in note(page)
    assert "#" not in page.url
    until(lambda: page.evaluate(LIVE_BOX_JS) == SHARED)  # the live section has the link's code
    page.locator(f"{LIVE} [data-testid=codelab-not-run]").wait_for(timeout=30_000)
    settle(page)  # Python idle, nothing queued: a Run the hand-over started would be under way by now
    assert page.evaluate("() => __wt.pool.runs.size === 0 && !__wt.pool.workers.some((w) => w.tainted)")
    page.locator(f"{LIVE} button", has_text="Run").click()  # only now does it run: the link's code, checked
    rows = page.locator(f"{LIVE} [data-testid=codelab-wrong-rows]")
    rows.wait_for(timeout=120_000)
    assert rows.get_attribute("data-value") == want("output_only")["codelab-wrong-rows"]
    assert page.evaluate("() => __wt.pool.workers.some((w) => w.tainted)")  # what the check above saw none of
