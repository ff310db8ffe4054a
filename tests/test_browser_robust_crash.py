"""Crashed workers: the page notices within 1 s, starts a new worker from the state in the URL, says
what happened, and needs no reload.

Injected, in one page (each a real failure mode of the worker, applied from outside):
  terminate mid-sweep      window.__wt.worker.terminate() right after a slider change was sent
  terminate mid-training   the same while a section's Run (widgets.Runner) is going, for every live
                           section that has one (found generically: a primary button beside Cancel)
  uncaught throw           the worker's JS throws outside any handler (onerror path)
  JS hang                  the worker's thread loops forever in JS (no message can be answered)
  Python hang              Python runs a loop that never returns (the heartbeat is the only witness)
"Noticed" is measured in the page's clock: from the injection to the crash record boot.js makes.
A dead worker (terminated, crashed) must be noticed within 1 s: boot.js waits on a Web Lock the worker
holds (granted the moment the worker ends) and, without Web Locks, on a 650 ms heartbeat. A hung worker
(alive but stuck in one call) is told from a slow one only by time: heartbeat.hung (8 s) with the lock.
"""
from __future__ import annotations

import pytest

from robust import booted, error_box, newest_worker, poll, runner_sections, session, settle, wait_status
from conftest import focus_slider, sweep_readout
from weighttying import state as S
from weighttying import sweep

pytestmark = pytest.mark.browser

NOTICE_MS = 1000
START_QUERY = "sweep.sigma=0.5&sweep.in_scale=2"


def crash_count(page) -> int:
    return page.evaluate("() => window.__wt.crashes.length")


def expect_recovery(s, before_crashes: int, t0: float, what: str, results: list, bound_ms: float = NOTICE_MS) -> None:
    page = s.page
    rec = poll(page, "(n) => window.__wt.crashes.length > n && window.__wt.crashes[n]", before_crashes,
               timeout_s=10, what=f"the page to notice ({what})")
    noticed = rec["at"] - t0
    box = error_box(page)
    assert box["shown"] and box["kind"] == "restarted", box
    assert "could not start" not in box["title"], f"a crash after boot is worded as a boot failure: {box}"
    assert "stopped" in box["title"] and box["message"], box
    assert "Traceback" not in box["message"]
    wait_status(page, "ready")
    box = error_box(page)
    assert "restarted" in box["title"] and not box["retry"], box
    assert page.evaluate("() => window.__wtNoReload") == 1, "the page was reloaded"
    # The state came back from the URL: the readout is CPython's for what the URL says.
    settle(page)
    st, notes = S.parse_query(page.evaluate("() => location.search.slice(1)"))
    assert not notes
    got, want = sweep_readout(page), sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    assert abs(got["resid"] - float(want["resid"])) <= 1e-9 * abs(float(want["resid"])), (got, want)
    results.append((what, round(noticed), rec["reason"]))
    print(f"[crash] {what}: noticed after {noticed:.0f} ms", flush=True)
    assert noticed <= bound_ms, f"{what}: noticed after {noticed:.0f} ms (> {bound_ms} ms): {rec}"
    page.evaluate("() => { window.__wt.crashes = []; }")  # each case starts with a clean crash history


def test_crashes_are_noticed_and_survived(browser, server):
    results = []
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "?" + START_QUERY)
        wait_status(page, "ready")
        page.evaluate("() => { window.__wtNoReload = 1; }")
        settle(page)

        # 1. terminate mid-sweep: a slider change is in flight when the worker goes.
        focus_slider(page, "sweep.sigma")
        page.keyboard.press("ArrowRight")
        t0 = page.evaluate("() => { window.__wt.worker.terminate(); return performance.now(); }")
        expect_recovery(s, 0, t0, "terminate mid-sweep", results)

        # 2. terminate mid-training, in every live section with a Runner.
        for sid in runner_sections(page):
            run = page.locator(f"#live-{sid} .bk-btn-primary").first
            cancel = page.locator(f"#live-{sid} button:has-text('Cancel')").first
            run.click()
            cancel.wait_for(state="visible")
            poll(page, "() => true", timeout_s=1)
            t0 = page.evaluate("() => { window.__wt.worker.terminate(); return performance.now(); }")
            expect_recovery(s, 0, t0, f"terminate mid-training ({sid})", results)

        # 3. the worker's JS throws outside any handler.
        t0 = page.evaluate("() => performance.now()")
        newest_worker(page).evaluate("() => { setTimeout(() => { throw new Error('injected crash'); }, 0); }")
        expect_recovery(s, 0, t0, "uncaught throw in the worker", results)

        # 4. the worker hangs (a runaway synchronous call): only the heartbeat can tell.
        t0 = page.evaluate("() => performance.now()")
        newest_worker(page).evaluate("() => { setTimeout(() => { for (;;) {} }, 0); }")
        hung = page.evaluate("() => window.__wt.worker.lifeline ? window.__wt.heartbeat.hung : window.__wt.heartbeat.dead")
        expect_recovery(s, 0, t0, "hung worker", results, bound_ms=hung + 2 * NOTICE_MS)

        # 5. Python itself runs away (a synchronous loop that never returns to the event loop).
        t0 = page.evaluate("() => performance.now()")
        newest_worker(page).evaluate("() => { setTimeout(() => py.runPython('while True: pass'), 0); }")
        expect_recovery(s, 0, t0, "Python stuck in a runaway call", results, bound_ms=hung + 2 * NOTICE_MS)

        assert not s.rec.page_errors, s.rec.page_errors
        assert not s.watch()["rejections"], s.watch()
        print(f"[crash] {len(results)} crashes injected, all survived; worst time to notice a death: "
              f"{max(ms for what, ms, _ in results if 'hung' not in what and 'runaway' not in what)} ms")


def test_repeated_crashes_stop_at_retry(browser, server):
    """A worker that keeps dying is not restarted forever: after MAX_CRASHES a Retry button is offered."""
    with booted(browser, server, settled=False) as s:
        page = s.page
        # Pretend three crashes happened in the last minute, then crash once more.
        page.evaluate("""() => { const now = performance.now();
            window.__wt.crashes = [1, 2, 3].map((i) => ({reason: 'earlier', at: now - i, noticedAfterMs: 0})); }""")
        page.evaluate("() => window.__wt.worker.terminate()")
        wait_status(page, "failed", timeout_s=5)
        box = error_box(page)
        assert box["shown"] and box["retry"] and "stopped" in box["title"], box
        page.locator("#wt-retry").click()
        wait_status(page, "ready")
        assert not error_box(page)["shown"]
