"""Helpers shared by the robustness tests (tests/test_browser_robust_*.py, tests/test_soak.py).

Everything here drives the built site through its contract (docs/DESIGN.md, "Page and worker"):
`window.__wt`, `<html data-wt-status>`, `#wt-error*`, `#wt-notes*`, `#live-<id>`. Waits use
selectors or Python-side polling of page.evaluate, never eval'd strings (the page's CSP forbids eval).
"""
from __future__ import annotations

import contextlib
import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness import BOOT_TIMEOUT_S, Recorder, recorded, until

# Installed before any page script: what the page itself would otherwise swallow.
WATCH_JS = """
window.__wtWatch = {rejections: [], csp: [], errors: []};
window.addEventListener('unhandledrejection', (e) => window.__wtWatch.rejections.push(String(e.reason && (e.reason.stack || e.reason))));
window.addEventListener('error', (e) => window.__wtWatch.errors.push(String(e.message)));
document.addEventListener('securitypolicyviolation', (e) => window.__wtWatch.csp.push(e.effectiveDirective + ' ' + e.blockedURI));
window.__wtPwned = [];
// Hold-ups of this page's own thread (a timer 150+ ms late): boot.js's heartbeat does not judge the worker
// across one (its clock restarts), so the time to notice a hung worker is counted from the last one.
window.__wtWatch.stalls = [];
(() => { let last = performance.now();
  setInterval(() => { const now = performance.now(); if (now - last > 150) window.__wtWatch.stalls.push([last, now]); last = now; }, 50);
})();
"""

CSP_CONSOLE = ("Content Security Policy", "Refused to")


def live_sections(page) -> list[str]:
    """Section ids the served page made live (`#live-<id>[data-live=true]`), in page order."""
    return page.evaluate("""() => [...document.querySelectorAll('[id^="live-"][data-live="true"]')]
        .map((e) => e.id.slice(5))""")


def runner_sections(page) -> list[str]:
    """Live sections with a widgets.Runner strip (a Cancel button beside a primary Run button)."""
    return [sid for sid in live_sections(page) if page.locator(f"#live-{sid} button:has-text('Cancel')").count()]


@dataclass
class Session:
    """One browser context + page with a request recorder, dialog and console watch."""
    ctx: object
    page: object
    rec: Recorder
    dialogs: list = field(default_factory=list)
    console: list = field(default_factory=list)  # (type, text) of every console message

    def watch(self) -> dict:
        return self.page.evaluate("() => window.__wtWatch")

    def console_errors(self) -> list[str]:
        return [t for k, t in self.console if k == "error"]

    def csp_console(self) -> list[str]:
        return [t for _, t in self.console if any(m in t for m in CSP_CONSOLE)]


@contextlib.contextmanager
def session(browser, viewport=(1280, 900)):
    rec = Recorder()
    ctx, page = recorded(browser, rec, init_js=(WATCH_JS,), viewport={"width": viewport[0], "height": viewport[1]})
    s = Session(ctx, page, rec)
    page.on("dialog", lambda d: (s.dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: s.console.append((m.type, m.text)))
    try:
        yield s
    finally:
        ctx.close()


@contextlib.contextmanager
def booted(browser, server, settled: bool = True, query: str = ""):
    """A session whose page has booted the site at ?QUERY (default: the full page) and, unless
    settled=False, gone quiet."""
    with session(browser) as s:
        s.page.goto(server.url + (f"?{query}" if query else ""))
        wait_status(s.page, "ready")
        if settled:
            settle(s.page)
        yield s


def wait_status(page, status: str, timeout_s: float = BOOT_TIMEOUT_S) -> None:
    page.wait_for_selector(f"html[data-wt-status={status}]", state="attached", timeout=timeout_s * 1000)


def wait_boot_over(page, timeout_s: float = BOOT_TIMEOUT_S) -> str:
    """'ready' or 'failed', whichever the boot ends in."""
    page.wait_for_selector("html[data-wt-status=ready], html[data-wt-status=failed]", state="attached",
                           timeout=timeout_s * 1000)
    return page.evaluate("() => window.__wt.status")


def poll(page, js: str, arg=None, timeout_s: float = 30, every_s: float = 0.05, what: str = ""):
    """Evaluate JS (a function) until it returns something truthy (harness.until); return that."""
    got = until(lambda: page.evaluate(js, arg), timeout_s, every_s)
    if not got:
        raise AssertionError(f"timed out after {timeout_s}s waiting for {what or js}")
    return got


SETTLED_JS = """() => { const lab = window.__wt.lab;
  return window.__wt.status === 'ready' && lab && lab.phase === 'free' && lab.schedule.queue.length === 0; }"""


def settle(page, quiet_s: float = 0.3, timeout_s: float = 60, strict: bool = True) -> bool:
    """Wait until no patch is in flight or queued, and nothing arrived for quiet_s. strict=False: give up
    quietly after timeout_s (a section may stream a long run the link asked for) and return False."""
    if not strict:
        try:
            settle(page, quiet_s, timeout_s)
            return True
        except AssertionError:
            return False
    deadline = time.monotonic() + timeout_s
    while True:
        poll(page, SETTLED_JS, timeout_s=max(1, deadline - time.monotonic()), what="the worker to go idle")
        before = page.evaluate("() => [window.__wt.patchesReceived, window.__wt.patchesSent]")
        time.sleep(quiet_s)
        if page.evaluate(SETTLED_JS) and page.evaluate("() => [window.__wt.patchesReceived, window.__wt.patchesSent]") == before:
            return
        if time.monotonic() > deadline:
            raise AssertionError("the page never settled")


def section_text(page, sid: str) -> str:
    """The visible text of #live-SID including every shadow root under it."""
    return page.evaluate("(id) => __wtTest.text(document.getElementById('live-' + id))", sid)


# Elements that only a successful injection would create, searched in the document and every shadow root.
INJECTED_JS = """() => __wtTest.all(document,
    '[data-wt-injected], img[src="x"], iframe, object, embed, svg[onload], marquee, script:not([src])')
  // the page's own JSON config and data blocks
  .filter((e) => e.id !== 'wt-build' && !(e.tagName === 'SCRIPT' && e.type === 'application/json'))
  .map((e) => e.outerHTML.slice(0, 120))"""


def injected(page) -> list[str]:
    return page.evaluate(INJECTED_JS)


def notes_shown(page) -> list[str]:
    """The notes list as the reader sees it (text of each item), [] when the box is hidden."""
    return page.evaluate("""() => document.getElementById('wt-notes').hidden ? [] :
        [...document.querySelectorAll('#wt-notes-list li')].map((li) => li.textContent)""")


def error_box(page) -> dict:
    return page.evaluate("""() => ({shown: !document.getElementById('wt-error').hidden,
        kind: document.getElementById('wt-error').dataset.kind || '',
        title: document.querySelector('#wt-error strong').textContent,
        message: document.getElementById('wt-error-msg').textContent,
        retry: !document.getElementById('wt-retry').hidden})""")


def newest_worker(page):
    ws = page.workers
    assert ws, "no worker"
    return ws[-1]


def worker_memory(page) -> dict:
    """The worker's wasm linear memory (bytes; it never shrinks) and Python's live object count."""
    w = newest_worker(page)
    return w.evaluate("""() => ({wasm: __wtWorker.py._module.HEAP8.buffer.byteLength,
        objects: __wtWorker.py.runPython('import gc; gc.collect(); len(gc.get_objects())')})""")


def have_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def dist_copy(dist_dir: Path, dest: Path) -> Path:
    import shutil
    shutil.copytree(dist_dir, dest)
    return dest
