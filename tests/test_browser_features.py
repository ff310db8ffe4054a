"""Reader features in real Chromium: bad links, theme, 360 px, copy link, presets, exports that
reproduce themselves, embed mode (with embed.js on a host page of another origin) and teacher mode.

Five page boots in all (about 20 s each on two shared cores); every test asserts on the built site.
"""
from __future__ import annotations

import contextlib
import csv
import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from harness import move_and_wait_repaint, recorded, sweep_readout, until, wait_booted
from weighttying import state
from weighttying import sweep
from carried_numbers import near

pytestmark = pytest.mark.browser

MARKUP = "<img src=x onerror=window.__pwned=1>"
BAD_QUERY = ("sweep.sigma=abc&sweep.in_scale=1e999&sweep.band=7&bogus=1&sweep.grid=" + "x" * 10_000
             + "&hide=" + MARKUP + "&" + MARKUP + "=1&sweep.sigma=%3Cscript%3Ealert(1)%3C/script%3E")

DEEP_VISIBLE_JS = """(sel) => {
  const el = __wtTest.deep(document, sel);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}"""


def overflow(page) -> int:
    """How far the page body scrolls sideways (0 = none)."""
    return page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")


def test_bad_link_notes_are_text_the_page_works_dark_at_360px(browser, server, recorder):
    ctx, page = recorded(browser, recorder, viewport={"width": 360, "height": 800}, color_scheme="dark")
    try:
        page.goto(server.url + "?" + BAD_QUERY, wait_until="domcontentloaded")
        # Before Python: the dark scheme is applied and nothing scrolls sideways.
        assert page.evaluate("() => document.documentElement.dataset.wtScheme") == "dark"
        bg = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert sum(int(x) for x in bg[bg.index("(") + 1:-1].split(",")[:3]) < 150, bg
        assert overflow(page) == 0
        wait_booted(page)

        notes = page.locator("#wt-notes")
        assert notes.is_visible()
        items = page.locator("#wt-notes-list li").all_text_contents()
        text = "\n".join(items)
        for key in ("sweep.sigma", "sweep.in_scale", "sweep.band", "bogus", "sweep.grid", "hide"):
            assert key in text, f"no note names {key}: {items}"
        assert "too long" in text and "clamped" in text and "<img" in text  # markup shown as text
        assert page.locator("#wt-notes img, #wt-notes script").count() == 0
        assert page.evaluate("() => document.querySelectorAll('img[src=x]').length") == 0
        assert page.evaluate("() => window.__pwned") is None
        # The page went on with what it could use (band clamped to 1) and wrote that into the URL.
        page_state, _ = state.parse_query(urlsplit(page.url).query)
        assert page_state.sweep.band == 1.0 and page_state.sweep.sigma == state.State().sweep.sigma
        assert len(page.url) < 500

        # Fully working: a slider moves the live numbers, which equal CPython's.
        move_and_wait_repaint(page, "sweep.sigma")
        got = sweep_readout(page)
        sigma = state.parse_query(urlsplit(page.url).query)[0].sweep.sigma
        assert sigma != state.State().sweep.sigma
        want = sweep.init_scales(sigma, 1.0)
        assert near(got["resid"], want["resid"])

        # Notes are dismissible.
        page.locator("#wt-notes-dismiss").click()
        assert not notes.is_visible()

        # 360 px, live: the body never scrolls sideways; focus is visible on a Panel widget too.
        assert overflow(page) == 0, "the page body scrolls sideways at 360 px"
        page.locator("#wt-copy").focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
        select = page.locator("#live-sweep select").first
        select.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        outline = page.evaluate("() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement)"
                                " a = a.shadowRoot.activeElement; return [a.tagName, getComputedStyle(a).outlineStyle]; }")
        assert outline == ["SELECT", "solid"], outline
        assert not recorder.page_errors, recorder.page_errors

        # theme=light wins over a dark system (checked before Python loads).
        light = ctx.new_page()
        light.goto(server.url + "?theme=light", wait_until="domcontentloaded")
        assert light.evaluate("() => document.documentElement.dataset.wtScheme") == "light"
        bg = light.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert sum(int(x) for x in bg[bg.index("(") + 1:-1].split(",")[:3]) > 600, bg
        light.close()
    finally:
        ctx.close()


def read_csv(path) -> tuple[str, list[dict]]:
    """(the stamped URL, rows as dicts) of an exported CSV."""
    text = open(path, encoding="utf-8").read()
    first, rest = text.split("\n", 1)
    assert first.startswith("# reproduce: "), first
    return first[len("# reproduce: "):], list(csv.DictReader(io.StringIO(rest)))


# What the copy-link test reads: the page's header and the sweep. A hidden section is never built (state.Page.hide),
# so both of its boots are of one section; the export's link carries the hide list, and reproduces the page as it was.
SWEEP_ONLY = "hide=" + ",".join(sid for sid in state.SECTIONS if sid != "sweep")


def test_copy_link_presets_and_an_export_that_reproduces_itself(context, page, server, tmp_path):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.origin)
    page.goto(server.url + "?sweep.band=0.2&" + SWEEP_ONLY)
    wait_booted(page)

    # A preset is applied through the store: the URL holds it (and drops what the preset resets).
    page.locator("#live-sweep select").first.select_option(label="both near 1")
    page.wait_for_url("**sweep.grid=fine**")
    assert state.parse_query(urlsplit(page.url).query)[0].sweep == state.from_values(
        {f"sweep.{k}": v for k, v in state.preset_values("sweep", "both near 1").items()}).sweep
    want = float(sweep.init_scales(0.227, 4.5)["resid"])
    assert until(lambda: near(sweep_readout(page)["resid"] or 0, want))

    # Copy link (header): the clipboard holds this page's URL with the current state.
    page.locator("#wt-copy").click()
    page.locator("#wt-share-box[data-mode=copied]").wait_for()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.url.split("#")[0]
    assert state.parse_query(urlsplit(copied).query)[0] == state.parse_query(urlsplit(page.url).query)[0]
    # Each section's link (keyboard: focus it, press Enter) copies the link to that section.
    page.locator("#sweep h2 .wt-anchor").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__wt.page.copied.endsWith('#sweep')")
    assert page.evaluate("() => navigator.clipboard.readText()") == copied + "#sweep"
    # Clipboard refused: the link is shown selected in a text field instead.
    page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('no', 'NotAllowedError')); }")
    page.locator("#wt-copy").click()
    page.locator("#wt-share-box[data-mode=select]").wait_for()
    field = page.locator("#wt-share-box input")
    assert field.is_visible() and field.input_value() == copied
    assert page.evaluate("() => [document.activeElement.value.length, document.activeElement.selectionStart,"
                         " document.activeElement.selectionEnd]") == [len(copied), 0, len(copied)]

    # Export: the CSV is stamped with a URL that, opened fresh, shows the same numbers.
    page.locator("#live-sweep .wt-data .card-header").first.click()  # the downloads' card, closed by default
    with page.expect_download(timeout=60_000) as dl:
        page.locator("#live-sweep").get_by_text("Download CSV").click()
    path = tmp_path / "sweep.csv"
    dl.value.save_as(path)
    url, rows = read_csv(path)
    assert url.startswith(server.url) and url.endswith("#sweep")
    current = rows[0]
    assert current["setting"] == "current" and float(current["sigma"]) == 0.227
    assert len(rows) == 1 + 41 * 41

    fresh = context.new_page()
    fresh.goto(url)
    wait_booted(fresh)
    again = sweep_readout(fresh)
    assert again["resid"] == float(current["resid"]) and again["logit"] == float(current["logit"])
    hits = fresh.evaluate("() => Number(__wtTest.deep(document.getElementById('live-sweep'),"
                          " '[data-testid=\"sweep-hits\"]').dataset.value)")
    assert hits == sum(int(r["both_in_band"]) for r in rows[1:])
    fresh.close()


HOST = """<!doctype html><meta charset="utf-8"><title>a blog</title>
<p>Some blog text above the embed.</p>
<iframe id="f" src="{src}" title="Weight tying: the sweep" style="width:100%;border:0" loading="eager"></iframe>
<p>After.</p>
<script src="{embed_js}"></script>"""


@contextlib.contextmanager
def blog(html: str):
    """A host page on another origin (its own port), as a blog embedding the explainer would be."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/blog.html"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_embed_sizes_itself_on_another_origin_and_hides_the_rest(page, server):
    src = server.url + "?embed=sweep&hide=prose,sweep.band"
    with blog(HOST.format(src=src, embed_js=server.url + "embed.js")) as host_url:
        page.goto(host_url)
        check_embed(page, server)


def check_embed(page, server):
    frame = page.frame_locator("#f")
    frame.locator("html[data-wt-status=ready]").wait_for(state="attached", timeout=180_000)
    inner = next(f for f in page.frames if f.url.startswith(server.url))

    # Only that section, compact: no header text, footer, other sections or prose; heading stays.
    assert inner.evaluate("() => [...document.querySelectorAll('[data-live=true]')].map(e => e.id)") == ["live-sweep"]
    for sel in (".wt-header h1", ".wt-footer", "#wt-copy", "#sweep > p"):
        assert not frame.locator(sel).first.is_visible(), sel
    others = inner.evaluate("() => [...document.querySelectorAll('section.wt-section')].filter(s => s.id !== 'sweep')"
                            ".map(s => getComputedStyle(s).display)")
    assert all(d == "none" for d in others), others
    assert frame.locator("#sweep h2").is_visible()
    # Teacher mode inside the embed: the band control is hidden by Python (and the presets with it), sigma stays.
    assert inner.evaluate(DEEP_VISIBLE_JS, ".wt-ctl-sweep-sigma") is True
    assert inner.evaluate(DEEP_VISIBLE_JS, ".wt-ctl-sweep-preset") is False
    titles = inner.evaluate("""() => __wtTest.all(document, '.bk-slider-title')
        .filter((t) => t.getBoundingClientRect().width > 0).map((t) => t.textContent.trim())""")
    sigma, band = state.BY_KEY["sweep.sigma"].label, state.BY_KEY["sweep.band"].label
    assert any(t.startswith(sigma) for t in titles) and not any(t.startswith(band) for t in titles), titles

    # embed.js sized the iframe to the content: no inner scrollbar, no big gap.
    page.wait_for_function("() => document.getElementById('f').dataset.wtHeight !== undefined")

    def sizes():
        return (page.evaluate("() => document.getElementById('f').getBoundingClientRect().height"),
                inner.evaluate("() => Math.ceil(document.body.getBoundingClientRect().height)"))

    # the content's last reflow reaches the host a message later
    frame_h, content = until(lambda: (s := sizes())[1] > 300 and abs(s[0] - s[1]) <= 2 and s, 10) or sizes()
    assert content > 300 and abs(frame_h - content) <= 2, (frame_h, content)
    # A height message from another origin is ignored; from the iframe's own origin it is used.
    forged = """([origin, h]) => { const f = document.getElementById('f');
        window.dispatchEvent(new MessageEvent('message', {data: {type: 'wt-embed-height', height: h},
                                                          origin, source: f.contentWindow}));
        return f.getBoundingClientRect().height; }"""
    assert page.evaluate(forged, ["http://evil.example", 77]) == frame_h
    assert page.evaluate(forged, [server.origin, 77]) == 77


def test_teacher_link_hides_prose_sections_and_controls(page, server):
    page.goto(server.url + "?hide=prose,controls,tying", wait_until="domcontentloaded")
    # Before Python: prose and the tying section are already hidden, headings stay.
    assert not page.locator("#sweep > p").first.is_visible()
    assert page.locator("#sweep h2").is_visible()
    assert not page.locator(".wt-header > p").first.is_visible()
    assert not page.locator("#live-sweep .wt-pctls").is_visible()  # the playback controls are locked too
    if page.locator("#tying").count():
        assert not page.locator("#tying").is_visible()
    wait_booted(page)
    live = page.evaluate("() => [...document.querySelectorAll('[data-live=true]')].map(e => e.id)")
    assert "live-sweep" in live and "live-tying" not in live
    # Python hid every control (and the presets with them); the readout is still there.
    assert page.evaluate(DEEP_VISIBLE_JS, ".wt-controls") in (False, None)
    assert not page.locator("#live-sweep select").first.is_visible()
    assert near(sweep_readout(page)["resid"], sweep.init_scales(0.25, 1.0)["resid"])
