"""Crashed workers: the page notices within 1 s, starts a new worker from the state in the URL, says
what happened, and needs no reload.

Injected, in one page (each a real failure mode of the worker, applied from outside):
  terminate mid-training   window.__wt.worker.terminate() while every live section with a Run
                           (widgets.Runner, found generically: a primary button beside Cancel) is running
  terminate mid-sweep      the same right after a slider change was sent
  uncaught throw           the worker's JS throws outside any handler (onerror path)
  JS hang                  the worker's thread loops forever in JS (no message can be answered)
  Python hang              Python runs a loop that never returns (the heartbeat is the only witness)
"Noticed" is measured in the page's clock: from the injection to the crash record boot.js makes.
A dead worker (terminated, crashed) must be noticed within 1 s: boot.js waits on a Web Lock the worker
holds (granted the moment the worker ends) and, without Web Locks, on a 650 ms heartbeat. A hung worker
(alive but stuck in one call) is told from a slow one only by time: heartbeat.hung (8 s) with the lock,
counted from the page's own last hold-up (boot.js does not judge the worker across one).
After the mid-training case (full page) the address is narrowed to ?embed=sweep, so the other restarts
boot one section; each restart must show the URL's state (the sweep's readout is CPython's for it).
"""
from __future__ import annotations


import pytest

from robust import booted, error_box, live_sections, newest_worker, poll, runner_sections, session, settle, wait_status
from harness import focus_slider, sweep_readout, until
from weighttying import state
from weighttying import sweep
from carried_numbers import near

pytestmark = pytest.mark.browser

NOTICE_MS = 1000
START_QUERY = "sweep.sigma=0.5&sweep.in_scale=2"
SWEEP_ONLY = "embed=sweep"


def sweep_is_urls(page) -> bool:
    """The sweep readout is CPython's for the state in the address (the state came back from the URL)."""
    st, notes = state.parse_query(page.evaluate("() => location.search.slice(1)"))
    assert not notes
    got, want = sweep_readout(page), sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    return got["resid"] is not None and near(got["resid"], want["resid"])


def expect_recovery(s, t0: float, what: str, results: list, hang: bool = False) -> None:
    """The crash injected at page time T0 is noticed within NOTICE_MS (a hang: within the hang limit of
    silence, counted from T0 or the page's own last hold-up, plus NOTICE_MS), the page says so, a new
    worker boots with the URL's state, and the page was not reloaded."""
    page = s.page
    limit = page.evaluate("() => window.__wt.lab.watch.lifeline ? window.__wt.heartbeat.hung : window.__wt.heartbeat.dead")
    rec = poll(page, "() => window.__wt.crashes.length > 0 && window.__wt.crashes[0]",
               timeout_s=(limit / 1000 + 30) if hang else 10, what=f"the page to notice ({what})")
    noticed = rec["at"] - t0
    if hang:
        since = max([t0] + [end for _, end in s.watch()["stalls"] if end < rec["at"]])
        bound_ms = since - t0 + limit + NOTICE_MS
    else:
        bound_ms = NOTICE_MS
    box = error_box(page)
    assert box["shown"] and box["kind"] == "restarted", box
    assert "could not start" not in box["title"], f"a crash after boot is worded as a boot failure: {box}"
    assert "stopped" in box["title"] and box["message"], box
    assert "Traceback" not in box["message"]
    wait_status(page, "ready")
    box = error_box(page)
    assert "restarted" in box["title"] and not box["retry"], box
    assert page.evaluate("() => window.__wtNoReload") == 1, "the page was reloaded"
    assert until(lambda: sweep_is_urls(page), 60, 0.1), \
        f"{what}: the sweep never showed the URL's state: {sweep_readout(page)}"
    results.append((what, round(noticed), rec["reason"]))
    print(f"[crash] {what}: noticed after {noticed:.0f} ms (bound {bound_ms:.0f} ms)", flush=True)
    assert noticed <= bound_ms, f"{what}: noticed after {noticed:.0f} ms (> {bound_ms:.0f} ms): {rec}"
    page.evaluate("() => { window.__wt.crashes.length = 0; }")  # each case starts with a clean crash history


TERMINATE_RUNNING_JS = """(sids) => {
  // The sections whose Cancel button is showing (a run is going), then terminate the worker.
  const running = sids.filter((sid) => __wtTest.all(document.getElementById('live-' + sid), 'button')
    .some((b) => b.textContent.includes('Cancel') && b.checkVisibility()));
  window.__wt.worker.terminate();
  return [performance.now(), running]; }"""


# The pool holds no Run and none of its workers runs a part.
POOL_IDLE_JS = "() => window.__wt.pool.runs.size === 0 && window.__wt.pool.workers.every((w) => !w.part)"


def terminate(page) -> float:
    return page.evaluate("() => { window.__wt.worker.terminate(); return performance.now(); }")


def in_worker(page, js: str) -> float:
    """Run JS in the current worker; return the page time just before."""
    t0 = page.evaluate("() => performance.now()")
    newest_worker(page).evaluate(js)
    return t0


def test_crashes_are_noticed_and_survived(browser, server):
    results = []
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "?" + START_QUERY)
        wait_status(page, "ready")
        page.evaluate("() => { window.__wtNoReload = 1; }")
        settle(page)

        # 1. terminate mid-training: every live section with a Runner is running when the worker goes.
        running = runner_sections(page)
        assert running, "no live section with a Run/Cancel strip"
        for sid in running:
            page.locator(f"#live-{sid} .bk-btn-primary").first.click()
            page.locator(f"#live-{sid} button:has-text('Cancel')").first.wait_for(state="visible")
        pooled = page.evaluate("() => [...window.__wt.pool.runs.keys()]")
        assert pooled, "no Run was on the pool of numerics workers"
        t0, still = page.evaluate(TERMINATE_RUNNING_JS, running)
        assert still == running, f"runs of {sorted(set(running) - set(still))} ended before the worker was terminated"
        # the dead worker's Runs on the pool end with it: nobody is left to hear their batches
        poll(page, "() => window.__wt.crashes.length > 0", timeout_s=10, what="the page to notice the crash")
        assert page.evaluate(POOL_IDLE_JS), f"the pool still runs {pooled} for a worker that is gone"
        expect_recovery(s, t0, f"terminate mid-training ({', '.join(running)})", results)

        # The rest on one section: the address says ?embed=sweep (as an embedded sweep's would), so each
        # restart from the URL boots that section alone, in half the time of the full page.
        # A new page load, not a history.replaceState: the live worker writes the URL from its own State
        # after every change, so an address edited under it was overwritten by the next change's write.
        page.goto(server.url + "?" + SWEEP_ONLY + "&" + START_QUERY)
        wait_status(page, "ready")
        page.evaluate("() => { window.__wtNoReload = 1; }")
        settle(page)

        # 2. terminate mid-sweep: a slider change is in flight when the worker goes.
        focus_slider(page, "sweep.sigma")
        page.keyboard.press("ArrowRight")
        expect_recovery(s, terminate(page), "terminate mid-sweep", results)
        assert live_sections(page) == ["sweep"], f"the restart did not use the URL's {SWEEP_ONLY}: {live_sections(page)}"

        # 3. the worker's JS throws outside any handler.
        t0 = in_worker(page, "() => { setTimeout(() => { throw new Error('injected crash'); }, 0); }")
        expect_recovery(s, t0, "uncaught throw in the worker", results)

        # 4. the worker hangs (a runaway synchronous call): only the heartbeat can tell.
        t0 = in_worker(page, "() => { setTimeout(() => { for (;;) {} }, 0); }")
        expect_recovery(s, t0, "hung worker", results, hang=True)

        # 5. Python itself runs away (a synchronous loop that never returns to the event loop).
        t0 = in_worker(page, "() => { setTimeout(() => __wtWorker.py.runPython('while True: pass'), 0); }")
        expect_recovery(s, t0, "Python stuck in a runaway call", results, hang=True)

        assert not s.rec.page_errors, s.rec.page_errors
        assert not s.watch()["rejections"], s.watch()
        print(f"[crash] {len(results)} crashes injected, all survived; worst time to notice a death: "
              f"{max(ms for what, ms, _ in results if 'hung' not in what and 'runaway' not in what)} ms; "
              f"page hold-ups seen: {[round(b - a) for a, b in s.watch()['stalls']]} ms")


def test_repeated_crashes_stop_at_retry(browser, server):
    """A worker that keeps dying is not restarted forever: after MAX_CRASHES a Retry button is offered."""
    with booted(browser, server, settled=False, query=SWEEP_ONLY) as s:
        page = s.page
        # Pretend three crashes happened in the last minute, then crash once more.
        page.evaluate("""() => { const now = performance.now();
            window.__wt.crashes.push(...[1, 2, 3].map((i) => ({reason: 'earlier', at: now - i, noticedAfterMs: 0}))); }""")
        page.evaluate("() => window.__wt.worker.terminate()")
        wait_status(page, "failed", timeout_s=5)
        box = error_box(page)
        assert box["shown"] and box["retry"] and "stopped" in box["title"], box
        page.locator("#wt-retry").click()
        wait_status(page, "ready")
        assert not error_box(page)["shown"]
