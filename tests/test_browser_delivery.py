"""End to end in headless Chromium against dist/ served by its own serve.py on 127.0.0.1.

One cold page load (fresh context) is shared by the tests of the happy path, in file order:
it boots, the progress bar reaches done, each sweep slider moved by keyboard changes the readout to
what CPython `weighttying.sweep.init_scales` gives for the setting the page now shows (in its URL),
and every request of the page and its worker went to the serving origin. A second load, of a copy
of dist/ with a wheel deleted, must show a readable error on the still-readable page.

Tolerance for the readout: relative 1e-9. The page's value is the repr of Pyodide's float64 (its
data-value), computed by the same code as CPython's; the parity test shows the numerics agree to
1e-12, and 1e-9 leaves room for nothing but summation-order noise, while any wrong setting or stale
readout is off by percent (one slider step is a factor 10**0.01 = 1.023 in sigma or inScale).
"""
from __future__ import annotations

import shutil
from urllib.parse import urlsplit

import pytest

from conftest import live_page
from harness import (BOOT_TIMEOUT_S, Recorder, assert_same_origin, boot_info, move_and_wait_repaint, recorded, serve,
                     sweep_readout, until, wait_boot_end)
from weighttying import state
from weighttying import sweep
import carried_numbers

pytestmark = pytest.mark.browser

REL_TOL = carried_numbers.REL  # a number the page carries (weighttying.precision) beside the exact one here


def expected_scales(query: str) -> tuple[state.State, dict]:
    st, notes = state.parse_query(query)
    assert not notes, f"the page wrote a URL its own parser rejects: {query!r}: {notes}"
    s = sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    return st, {"resid": float(s["resid"]), "logit": float(s["logit"])}


def close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


# Readable before Python: the prose and the prerendered sweep figure are already there.
EARLY_JS = """() => ({status: window.__wt && window.__wt.status,
      prose: document.querySelector('#sweep p') ? document.querySelector('#sweep p').textContent : '',
      figure: !!document.querySelector('#live-sweep .wt-prerender svg'),
      readout: !!document.querySelector('#live-sweep .wt-prerender [data-testid=sweep-readout]')})"""
live = live_page(early_js=EARLY_JS, must_boot=False)  # one cold load, shared by the happy-path tests below


def test_readable_before_python(live):
    early = live.early
    assert early["status"] == "booting", f"expected to catch the page before Python was ready: {early}"
    assert len(early["prose"]) > 100, early
    assert early["figure"] and early["readout"], f"no prerendered sweep figure/readout at DOMContentLoaded: {early}"


def test_boots_and_progress_reaches_done(live):
    info, rec = live.info, live.rec
    assert info["status"] == "ready", f"boot ended {info['status']!r}: {info['error']!r}"
    assert info["progress"] == 1 and info["bar"] == info["barMax"] == 100, info
    assert not info["errorShown"], info["errorText"]
    assert live.page.evaluate("() => document.getElementById('live-sweep').dataset.live") == "true"
    assert rec.workers and any(u.endswith("/worker.js") for u in rec.workers), rec.workers
    # Determinate progress: the boot reported every step's time.
    assert set(info["timings"]) >= {"runtime", "packages", "import", "app"}, info["timings"]


@pytest.mark.parametrize("key,press", [("sweep.sigma", "ArrowRight"), ("sweep.in_scale", "ArrowLeft"),
                                       ("sweep.sigma", "PageDown")])
def test_slider_updates_readout_to_cpython_values(live, key, press):
    page = live.page
    assert live.info["status"] == "ready", "page did not boot"
    before = sweep_readout(page)
    q_before = page.evaluate("() => location.search.slice(1)")
    moved = move_and_wait_repaint(page, key, press)
    assert moved["keydown"] is not None and moved["latency"] >= 0, moved
    # The readout can repaint before the URL write lands (two messages): wait for the URL to move.
    page.wait_for_function("(q) => location.search.slice(1) !== q", arg=q_before, timeout=10_000)
    query = page.evaluate("() => location.search.slice(1)")
    st_before, _ = expected_scales(q_before)
    st, want = expected_scales(query)
    name = key.split(".")[1]
    assert getattr(st.sweep, name) != getattr(st_before.sweep, name), (q_before, query)
    other = "in_scale" if name == "sigma" else "sigma"
    assert getattr(st.sweep, other) == getattr(st_before.sweep, other), f"moving {key} changed {other}: {query}"
    # A later patch may still be on its way: what is shown comes to CPython's for what the URL says.
    got = until(lambda: (g := sweep_readout(page)) and all(close(g[k], want[k]) for k in want) and g, 10) \
        or sweep_readout(page)
    assert got["resid"] != before["resid"] or got["logit"] != before["logit"], (before, got)
    for k in ("resid", "logit"):
        assert close(got[k], want[k]), f"{k} shown {got[k]!r}, CPython {want[k]!r} for {query!r}"


def test_every_request_stays_on_the_serving_origin(live):
    # serve.py's CSP (connect-src 'self') makes Chromium refuse an off-origin fetch before it is
    # sent, so it may never show up as a request; it does show up as a console error ("Refused to
    # connect ..."), which test_no_errors_in_console_or_page fails on.
    rec = live.rec
    assert not rec.aborted, f"off-host requests (aborted): {rec.aborted}"
    assert_same_origin(rec, live.server.origin)
    urls = [u for _, u, _ in rec.requests]
    # The recorder saw the worker's own traffic (runtime and wheels are fetched by the worker).
    for needed in ("/worker.js", "/pyodide/pyodide.asm.wasm", "/pyodide/pyodide-lock.json"):
        assert any(urlsplit(u).path.endswith(needed) for u in urls), f"never saw {needed} in {len(urls)} requests"
    assert any(u.endswith(".whl") for u in urls), "no wheel requests recorded"
    assert set(rec.routed) == set(urls), "routing and request events disagree"


def test_no_errors_in_console_or_page(live):
    rec = live.rec
    assert not rec.page_errors, rec.page_errors
    assert not rec.console_errors, rec.console_errors
    assert not rec.failed, rec.failed


def test_missing_wheel_shows_readable_error(browser, dist_dir, tmp_path):
    """A copy of dist/ without weighttying's wheel: the page says what failed; the text stays."""
    copy = tmp_path / "dist"
    shutil.copytree(dist_dir, copy)
    wheels = sorted((copy / "pyodide").glob("weighttying-*.whl"))
    assert len(wheels) == 1, wheels
    wheels[0].unlink()
    rec = Recorder()
    ctx, page = recorded(browser, rec)
    try:
        with serve(copy, log_dir=tmp_path) as srv:
            page.goto(srv.url)
            info = wait_boot_end(page, BOOT_TIMEOUT_S)
            assert info["status"] == "failed", f"boot should fail without {wheels[0].name}: {info}"
            err = page.locator("#wt-error")
            assert err.is_visible(), "the error box is not visible"
            assert err.get_attribute("role") == "alert"
            msg = page.locator("#wt-error-msg").inner_text().strip()
            assert msg, "the error message is empty"
            assert "weighttying" in msg, f"the message does not name what failed: {msg!r}"
            assert "Traceback" not in msg and "File \"" not in msg and len(msg) < 600, f"raw traceback shown: {msg!r}"
            # Not a blank page: the prose and the prerendered figure are still there and visible.
            assert page.locator("#sweep h2").is_visible()
            assert page.locator("#live-sweep .wt-prerender svg").first.is_visible()
            assert page.locator("#wt-retry").is_visible()
            assert not rec.aborted, rec.aborted
            assert_same_origin(rec, srv.origin)
            assert not rec.page_errors, f"uncaught errors instead of a handled failure: {rec.page_errors}"
        assert boot_info(page)["errorShown"]
    finally:
        ctx.close()


def test_a_host_that_mislabels_the_wasm_still_boots(browser, server):
    """A static host that sends pyodide.asm.wasm as application/octet-stream (no wasm type mapped): Pyodide
    compiles only by instantiateStreaming, which refuses such a body, and has no fallback; the worker hands it
    the checked bytes labelled instead, once, from the one download."""
    rec = Recorder()
    ctx, page = recorded(browser, rec)
    asked = []

    def mislabel(route):
        asked.append(route.request.url)
        r = route.fetch()
        route.fulfill(response=r, headers={**r.headers, "content-type": "application/octet-stream"})

    try:
        ctx.route("**/pyodide.asm.wasm", mislabel)
        page.goto(server.url + "?embed=sweep")  # one section: what is checked is the runtime's start
        info = wait_boot_end(page, BOOT_TIMEOUT_S)
        assert info["status"] == "ready", f"a mislabelled wasm stopped the boot: {info}"
        assert len(asked) == 1, asked  # checked once, never fetched again unchecked
        assert not rec.page_errors, rec.page_errors
    finally:
        ctx.close()


def test_recorder_catches_off_origin_requests_from_a_worker(tmp_path, recorder, page):
    """The harness itself: a worker's fetch and importScripts, and an off-host fetch, are all recorded.

    Guards the same-origin test above against a recorder that silently misses worker traffic.
    """
    site = tmp_path / "site"
    site.mkdir()
    # A plain server without dist's Content-Security-Policy: the browser must be free to try the leak.
    (site / "serve.py").write_text(
        "import argparse, http.server, functools, os\n"
        "ap = argparse.ArgumentParser(); ap.add_argument('--bind'); ap.add_argument('--port', type=int)\n"
        "a = ap.parse_args()\n"
        "h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=os.path.dirname(os.path.abspath(__file__)))\n"
        "http.server.ThreadingHTTPServer((a.bind, a.port), h).serve_forever()\n")
    (site / "index.html").write_text("<!doctype html><div id=out></div><script src=main.js></script>")
    (site / "main.js").write_text("const w = new Worker('w.js');"
                                  "w.onmessage = (e) => { document.getElementById('out').textContent = e.data; };")
    (site / "w.js").write_text("importScripts('imported.js');"
                               "fetch('http://example.invalid/leak').catch(() => {}).then(() => fetch('data.txt'))"
                               ".then((r) => r.text()).then((t) => postMessage('done ' + t));")
    (site / "imported.js").write_text("// imported by the worker\n")
    (site / "data.txt").write_text("ok")
    with serve(site, log_dir=tmp_path) as srv:
        page.goto(srv.url)
        page.wait_for_function("() => document.getElementById('out').textContent === 'done ok'")
        paths = {urlsplit(u).path for _, u, _ in recorder.requests}
        assert {"/w.js", "/imported.js", "/data.txt"} <= paths, paths
        assert recorder.aborted == ["http://example.invalid/leak"], recorder.aborted
        with pytest.raises(AssertionError, match="example.invalid"):
            assert_same_origin(recorder, srv.origin)
