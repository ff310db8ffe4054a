"""The classroom file: dist/weighttying.html alone, copied into an empty folder and opened from file://
in Chromium with every http(s) request refused, runs the whole explainer: readable at once, every section
live, sliders answer with CPython's numbers, links point at the file with its query, `?embed=` works, and
nothing but the file itself, blob: and data: URLs is ever requested. A copy with one byte of one embedded
file flipped, or cut short, says which part was damaged and stops the live lab cleanly: the text still reads.

Tolerance of the readout as in test_browser_delivery (relative 1e-9: the same code computes both sides).
"""
from __future__ import annotations

import json
import re
import shutil
import sys
from urllib.parse import urlsplit

import pytest

from harness import (BOOT_TIMEOUT_S, ROOT, Recorder, move_and_wait_repaint, recorded, sweep_readout,
                     until, wait_boot_end)
from weighttying import prebuilt
from weighttying import state
from weighttying import sweep
import carried_numbers

sys.path.insert(0, str(ROOT))
from tools import single_file

pytestmark = pytest.mark.browser

REL_TOL = carried_numbers.REL  # a number the page carries (weighttying.precision) beside the exact one here
LOCAL = ("file", "blob", "data")


class FileRecorder(Recorder):
    """Recorder for a page opened from disk: file:, blob: and data: go through, any other URL is refused."""

    def _route(self, route) -> None:
        url = route.request.url
        self.routed.append(url)
        if url.split(":", 1)[0].lower() in LOCAL:
            route.continue_()
        else:
            self.aborted.append(url)
            route.abort("blockedbyclient")


@pytest.fixture(scope="module")
def classroom(dist_dir, tmp_path_factory):
    """dist/weighttying.html, alone in an empty folder."""
    src = dist_dir / single_file.NAME
    assert src.is_file(), f"build.py did not write {src}"
    folder = tmp_path_factory.mktemp("usb-stick")
    shutil.copyfile(src, folder / single_file.NAME)
    return folder / single_file.NAME


def open_file(browser, path, query: str = ""):
    """(context, page, recorder) with PATH?QUERY loaded from file:// (domcontentloaded)."""
    rec = FileRecorder()
    ctx, page = recorded(browser, rec)
    page.goto(path.as_uri() + (f"?{query}" if query else ""), wait_until="domcontentloaded")
    return ctx, page, rec


def assert_stayed_local(rec: FileRecorder, path) -> None:
    """Nothing left the file: no refused request, and the only file: URL read is the page itself."""
    urls = rec.urls()
    assert urls, "no requests were recorded at all: the recorder is not attached"
    assert not rec.aborted, f"requests other than file:, blob:, data: (refused): {rec.aborted}"
    other = sorted({u for u in urls if u.split(":", 1)[0].lower() not in LOCAL})
    assert not other, other
    files = {u.split("?")[0].split("#")[0] for u in urls if u.startswith("file:")}
    assert files == {path.as_uri()}, f"files read besides the page itself: {files}"


@pytest.fixture(scope="module")
def live(browser, classroom):
    ctx, page, rec = open_file(browser, classroom)
    try:
        early = page.evaluate("""() => ({status: window.__wt && window.__wt.status,
              prose: document.querySelector('#sweep p') ? document.querySelector('#sweep p').textContent : '',
              figure: !!document.querySelector('#live-sweep .wt-prerender svg')})""")
        info = wait_boot_end(page)
        yield {"page": page, "rec": rec, "early": early, "info": info}
    finally:
        ctx.close()


def test_readable_at_once_from_disk(live):
    early = live["early"]
    assert early["status"] == "booting", early
    assert len(early["prose"]) > 100 and early["figure"], early
    # The page is read as windows-1252 and written in ASCII: the prose's non-ASCII letters survive.
    assert "·" in live["page"].locator("header").inner_text(), "a character reference did not come back"


def test_every_section_goes_live(live):
    page, info = live["page"], live["info"]
    assert info["status"] == "ready", f"boot ended {info['status']!r}: {info['error']!r}"
    sections = page.evaluate("() => [...document.querySelectorAll('section.wt-section[id]')].map((s) => s.id)")
    live_ids = page.evaluate("() => [...document.querySelectorAll('[data-live=true]')].map((e) => e.id)")
    assert sections and sorted(live_ids) == sorted(f"live-{s}" for s in sections), (sections, live_ids)
    assert not info["errorShown"], info["errorText"]


def test_the_builds_results_reach_the_live_sections_from_the_file(live):
    page = live["page"]
    assert page.evaluate("() => window.__wt.notes") == []  # results.json was found among the checked members
    for sid in prebuilt.RUN_SECTIONS:
        assert page.locator(f"#live-{sid}[data-live=true] [data-source=build]").count() == 1, sid


def test_slider_answers_with_cpython_values_and_the_link_points_at_the_file(live, classroom):
    page = live["page"]
    assert live["info"]["status"] == "ready", "page did not boot"
    before = sweep_readout(page)
    q_before = page.evaluate("() => location.search.slice(1)")
    move_and_wait_repaint(page, "sweep.sigma", "ArrowRight")
    page.wait_for_function("(q) => location.search.slice(1) !== q", arg=q_before, timeout=10_000)
    assert page.url.startswith(classroom.as_uri() + "?"), page.url
    query = urlsplit(page.url).query
    st, notes = state.parse_query(query)
    assert not notes, (query, notes)
    want = sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    def close(g):
        return all(abs(g[k] - float(want[k])) <= REL_TOL * abs(float(want[k])) for k in ("resid", "logit"))
    got = until(lambda: (g := sweep_readout(page)) and close(g) and g, 10) or sweep_readout(page)  # a later patch may be on its way
    assert got["resid"] != before["resid"], (before, got)
    for k in ("resid", "logit"):
        assert abs(got[k] - float(want[k])) <= REL_TOL * abs(float(want[k])), (k, got[k], want[k], query)
    # Copy link: the file with its current query, whether the clipboard is allowed here or not (then the
    # link is selected in a field with a plain note).
    page.locator("#wt-copy").click()
    page.locator("#wt-share-box:not([hidden])").wait_for()
    assert page.evaluate("() => window.__wt.page.copied") == f"{classroom.as_uri()}?{query}"
    assert page.locator("#wt-share-box .wt-share-status").inner_text().strip()


def test_an_export_is_stamped_with_the_file_and_its_query(live, classroom, tmp_path):
    page = live["page"]
    assert live["info"]["status"] == "ready", "page did not boot"
    page.locator("#live-sweep .wt-data .card-header").first.click()  # the downloads' card, closed by default
    with page.expect_download(timeout=60_000) as dl:
        page.locator("#live-sweep").get_by_text("Download CSV").click()
    path = tmp_path / "sweep.csv"
    dl.value.save_as(path)
    first = path.read_text().splitlines()[0]
    assert first == f"# reproduce: {page.url.split('#')[0]}#sweep", (first, page.url)
    assert first.startswith(f"# reproduce: {classroom.as_uri()}?"), first


def test_the_notices_link_opens_the_copy_inside_the_file(live):
    page = live["page"]
    href = page.locator('a[href^="blob:"]', has_text="third-party notices").get_attribute("href")
    assert href and href.startswith("blob:"), href
    text = page.evaluate("async (u) => (await fetch(u)).text()", href)
    assert "Mozilla Public License" in text and "numpy" in text.lower(), text[:200]


def test_nothing_but_the_file_blob_and_data(live, classroom):
    assert_stayed_local(live["rec"], classroom)


def test_no_errors_in_console_or_page(live):
    rec, page = live["rec"], live["page"]
    assert not rec.page_errors, rec.page_errors
    assert not rec.console_errors, rec.console_errors
    assert page.evaluate("() => window.__wt.cspViolations") == []


def test_retry_starts_a_new_worker_from_the_same_file_without_a_reload(live):
    """Retry and crash restarts: the page posts the new worker the bytes it kept; the settings come back."""
    page, rec = live["page"], live["rec"]
    query = page.evaluate("() => window.__wt.query")
    page.evaluate("() => { window.__wtSameDocument = true; return window.__wt.restart(); }")
    assert page.evaluate("() => window.__wt.status") == "ready"
    assert page.evaluate("() => window.__wtSameDocument") is True, "the page was reloaded"
    assert page.evaluate("() => window.__wt.query") == query
    assert page.evaluate("() => document.querySelectorAll('[data-live=true]').length") == \
        page.evaluate("() => document.querySelectorAll('section.wt-section[id]').length")
    move_and_wait_repaint(page, "sweep.sigma", "ArrowLeft")
    assert not rec.page_errors and not rec.console_errors, (rec.page_errors, rec.console_errors)


def test_embed_works_on_the_file(browser, classroom):
    ctx, page, rec = open_file(browser, classroom, "embed=sweep")
    try:
        info = wait_boot_end(page)
        assert info["status"] == "ready", info
        shown = page.evaluate("""() => [...document.querySelectorAll('section.wt-section')]
                                   .filter((s) => s.offsetParent !== null).map((s) => s.id)""")
        assert shown == ["sweep"], shown
        assert page.evaluate("() => document.getElementById('live-sweep').dataset.live") == "true"
        # The embed's way out opens the full explainer: this file, without embed=.
        href = page.locator("#sweep h2 a.wt-anchor").get_attribute("href")
        assert href.startswith(classroom.as_uri()) and "embed=" not in href, href
        assert_stayed_local(rec, classroom)
        assert not rec.page_errors, rec.page_errors
    finally:
        ctx.close()


def test_teacher_link_works_on_the_file(browser, classroom):
    ctx, page, rec = open_file(browser, classroom, "hide=prose,tying")
    try:
        assert wait_boot_end(page)["status"] == "ready"
        assert not page.locator("#tying").is_visible() and page.locator("#sweep").is_visible()
        assert page.evaluate("() => document.documentElement.classList.contains('wt-hide-prose')")
        assert page.evaluate("() => document.getElementById('live-sweep').dataset.live") == "true"
        assert page.evaluate("() => document.getElementById('live-tying').dataset.live") is None, "a hidden section was built"
        assert_stayed_local(rec, classroom)
        assert not rec.page_errors, rec.page_errors
    finally:
        ctx.close()


# ------------------------------------------------------------------------------------------------
# Damage
# ------------------------------------------------------------------------------------------------
def manifest(data: bytes) -> list[dict]:
    config = re.search(rb'<script id="wt-build" type="application/json">(.*?)</script>', data, re.S)[1]
    return json.loads(config)["classroom"]["members"]


def flip_byte_of(data: bytes, member: dict) -> bytes:
    """DATA with one byte in the middle of MEMBER's stored bytes changed, the encoding kept valid."""
    esc, unsafe = single_file.ESC, {0x00, 0x0D, 0x3C, single_file.ESC}
    middle = member["offset"] + member["length"] // 2  # a decoded position inside the member
    start = single_file.spans(data)[middle // single_file.CHUNK][0]  # the block holding it
    target = middle % single_file.CHUNK
    p = start + target
    while (n := p - start - data.count(bytes([esc]), start, p)) < target:
        p += target - n
    while data[p] == esc or data[p - 1] == esc:  # a plain byte, not part of an escape pair
        p += 1
    new = next(data[p] ^ bit for bit in (1, 2, 4) if data[p] ^ bit not in unsafe)
    return data[:p] + bytes([new]) + data[p + 1:]


def assert_stopped_naming(page, rec, *names) -> str:
    info = wait_boot_end(page, BOOT_TIMEOUT_S)
    assert info["status"] == "failed", info
    msg = page.locator("#wt-error-msg").inner_text().strip()
    assert any(n in msg for n in names), f"the message does not name {names}: {msg!r}"
    assert "Traceback" not in msg and len(msg) < 600, msg
    assert page.locator("#wt-error").is_visible()
    # The text still reads: prose and prerendered figures are there, nothing went live.
    assert page.locator("#sweep h2").is_visible()
    assert page.locator("#live-sweep .wt-prerender svg").first.is_visible()
    assert not page.evaluate("() => document.querySelectorAll('[data-live=true]').length")
    assert not rec.page_errors, f"uncaught errors instead of a handled failure: {rec.page_errors}"
    return msg


@pytest.mark.parametrize("which", ["pyodide/numpy-", "static/bokeh/bokeh.min.js"])
def test_a_flipped_byte_names_the_modified_part(browser, classroom, tmp_path, which):
    """numpy's wheel is checked by the worker (brotli), BokehJS by the page (gzip)."""
    data = classroom.read_bytes()
    member = next(m for m in manifest(data) if m["path"].startswith(which))
    damaged = tmp_path / single_file.NAME
    damaged.write_bytes(flip_byte_of(data, member))
    ctx, page, rec = open_file(browser, damaged)
    try:
        msg = assert_stopped_naming(page, rec, member["path"])
        assert "modified" in msg, msg
        assert_stayed_local(rec, damaged)
    finally:
        ctx.close()


@pytest.mark.parametrize("start", ["// weighttying: the page's script", "// weighttying: the classroom file's guard"])
def test_an_edited_page_script_is_refused_and_named(browser, classroom, tmp_path, start):
    """The page's script (wt.js) edited: nothing of the lab can run, the guard says why; the guard edited: the
    page's script stops the lab."""
    data = classroom.read_bytes()
    at = data.index(start.encode())
    assert data.count(start.encode()) == 1, start
    edited = tmp_path / single_file.NAME
    edited.write_bytes(data[:at + 3] + b"m" + data[at + 4:])  # "weighttying" -> "meighttying"
    ctx, page, rec = open_file(browser, edited)
    try:
        page.locator("#wt-error:not([hidden])").wait_for(timeout=BOOT_TIMEOUT_S * 1000)
        msg = page.locator("#wt-error-msg").inner_text()
        assert "modified or damaged" in msg and start[4:36] in msg, msg  # the browser quotes its first 40 characters
        assert page.locator("#sweep h2").is_visible()
        assert page.locator("#live-sweep .wt-prerender svg").first.is_visible()
        assert not page.evaluate("() => document.querySelectorAll('[data-live=true]').length")
        assert not rec.page_errors, rec.page_errors
    finally:
        ctx.close()


def test_a_file_cut_short_says_it_is_damaged(browser, classroom, tmp_path):
    data = classroom.read_bytes()
    cut = tmp_path / single_file.NAME
    cut.write_bytes(data[: len(data) * 2 // 3])  # a copy that stopped two thirds of the way
    ctx, page, rec = open_file(browser, cut)
    try:
        msg = assert_stopped_naming(page, rec, "damaged", "incomplete")
        assert "copying" in msg or "bytes" in msg, msg
    finally:
        ctx.close()


def test_a_browser_that_refuses_locks_and_the_address_change_degrades_quietly(browser, classroom):
    """Some browsers refuse a file:// page Web Locks and a new query: the lab still works (the heartbeat alone
    watches the worker) and copied links carry the current settings."""
    rec = FileRecorder()
    ctx, page = recorded(browser, rec, init_js=(
        "history.replaceState = () => { throw new DOMException('refused', 'SecurityError'); };"
        # (a new tab's first about:blank, which the recorder hears too, has no navigator.locks)
        "if (navigator.locks) navigator.locks.request = () => Promise.reject(new DOMException('refused', 'SecurityError'));",))
    try:
        page.goto(classroom.as_uri())
        assert wait_boot_end(page)["status"] == "ready"
        assert page.evaluate("() => window.__wt.lab.watch.lifeline") is False
        move_and_wait_repaint(page, "sweep.in_scale", "ArrowLeft")
        page.wait_for_function("() => window.__wt.query !== ''")
        query = page.evaluate("() => window.__wt.query")
        assert page.url == classroom.as_uri(), "the address changed although the browser refused it"
        page.locator("#wt-copy").click()
        assert page.evaluate("() => window.__wt.page.copied") == f"{classroom.as_uri()}?{query}"
        assert state.parse_query(query)[0].sweep.in_scale != state.parse_query("")[0].sweep.in_scale
        assert not rec.page_errors and not rec.console_errors, (rec.page_errors, rec.console_errors)
    finally:
        ctx.close()
