"""A Run on the page's pool of numerics workers (site/pool.js, app/pooled.py), in headless Chromium.

The page is told it has 4 cores and 8 GB (so a pool of 3): the tasks Run goes to three workers, fills the table
with the numbers one worker computes (the second page, whose pool cannot start, runs it in the Panel worker and
says so); Cancel stops every part, each worker confirming the last step it took; a numerics worker killed
mid-run, or stuck in one call (no batch within its bound), is replaced, its part run again, the section says so
and the result is still the one-worker result;
and a pooled Run works from the classroom file opened from disk.
"""
from __future__ import annotations

import re
import shutil

import pytest

from carried_numbers import near
from conftest import Live
from harness import Recorder, new_context, until, wait_booted
from test_browser_repeat import press_slider, status

pytestmark = pytest.mark.browser
LIVE = "#live-tasks[data-live=true]"
QUERY = "embed=tasks&tasks.seeds=3&tasks.steps=1000"
CORES = "Object.defineProperty(navigator, 'hardwareConcurrency', {get: () => 4});" \
        "Object.defineProperty(navigator, 'deviceMemory', {get: () => 8});"
# Every Worker after the page's first (the Panel worker) fails to start: a pool that cannot start.
NO_POOL = "(() => { const W = window.Worker; let n = 0; window.Worker = function (...a) {" \
          " if (n++ >= 1) throw new Error('no more workers allowed here'); return new W(...a); }; })();"
VALUES_JS = """() => {  // every hooked number of the section, through Panel's shadow roots: {testid: repr}
  const out = {};
  __wtTest.walk(document.getElementById("live-tasks"), (el) => {
    if (el.dataset && el.dataset.value !== undefined && /^tasks-/.test(el.dataset.testid || "")) out[el.dataset.testid] = el.dataset.value;
  });
  return out;
}"""


def booted(browser, server, init: str):
    ctx = new_context(browser, Recorder(), init_js=(init,))
    page = ctx.new_page()
    page.goto(f"{server.url}?{QUERY}", wait_until="domcontentloaded")
    return ctx, Live(page, Recorder(), server, wait_booted(page))


@pytest.fixture(scope="module")
def pooled(browser, server):
    ctx, live = booted(browser, server, CORES)
    yield live
    ctx.close()


def run(live) -> dict:
    live.locator(LIVE).get_by_role("button", name="Run the seeds").click()
    status(live, LIVE, "Done.")
    return live.evaluate(VALUES_JS)


def test_a_pooled_run_equals_the_one_worker_run(pooled, browser, server):
    assert pooled.evaluate("__wt.pool.size") == 3
    got = run(pooled)
    assert pooled.evaluate("__wt.pool.started") == 3, "three workers, one part each"
    assert got["tasks-s2-misaligned-ratio"] and len([k for k in got if re.match(r"tasks-s\d", k)]) == 3 * 2 * 3
    ctx, alone = booted(browser, server, CORES + NO_POOL)
    try:
        want = run(alone)
        assert "could not start (no more workers allowed here)" in alone.locator(f"{LIVE} .wt-status").text_content()
        assert alone.evaluate("__wt.pool.size") == 0
    finally:
        ctx.close()
    assert got == want  # every number's repr: bit for bit


def test_a_killed_worker_is_replaced_and_the_run_still_equals(pooled):
    want = pooled.evaluate(VALUES_JS)  # the first test's run, for these settings
    pooled.locator(LIVE).get_by_role("button", name="Run the seeds").click()
    pooled.locator(f"{LIVE} .wt-status", has_text="Step").wait_for(timeout=60_000)
    started = pooled.evaluate("__wt.pool.started")  # a pool idle for a minute since the last Run started anew
    pooled.evaluate("__wt.pool.workers.find((w) => w.part).w.terminate()")
    status(pooled, LIVE, "Done.")
    assert "A numerics worker stopped" in pooled.locator(f"{LIVE} .wt-status").text_content()
    # its part runs again in a new worker, or in one whose own part is done by then (a loaded box's timing)
    assert started <= pooled.evaluate("__wt.pool.started") <= started + 1
    assert pooled.evaluate(VALUES_JS) == want


HANG_JS = """() => {  // in a worker: the one running a part gets stuck in one call (no batch, no message, ever)
  if (typeof __wtWorker === "undefined" || !__wtWorker.part) return false;
  setTimeout(() => { for (;;) {} }, 0);
  return true;
}"""


def test_a_hung_worker_is_ended_and_replaced_and_the_run_still_equals(pooled):
    want = pooled.evaluate(VALUES_JS)
    pooled.locator(LIVE).get_by_role("button", name="Run the seeds").click()
    pooled.locator(f"{LIVE} .wt-status", has_text="Step").wait_for(timeout=60_000)
    started = pooled.evaluate("__wt.pool.started")
    assert any(w.evaluate(HANG_JS) for w in pooled.page.workers), "no numerics worker was running a part"
    status(pooled, LIVE, "Done.")
    assert "A numerics worker stopped answering (no batch for" in pooled.locator(f"{LIVE} .wt-status").text_content()
    hung = pooled.evaluate("__wt.pool.hung")
    assert len(hung) == 1 and hung[0]["silentMs"] > hung[0]["boundMs"] >= 8000, hung
    # its part runs again in a new worker, or in one whose own part is done by then (a loaded box's timing)
    assert started <= pooled.evaluate("__wt.pool.started") <= started + 1
    assert pooled.evaluate(VALUES_JS) == want


def test_cancel_stops_every_part_and_each_worker_confirms_its_last_step(pooled):
    press_slider(pooled, "tasks", "steps", "End")  # 5000 steps each: minutes of work
    pooled.locator(f"{LIVE} [data-testid=tasks-now]", has_text="Run trains 12 models of 5000 steps").wait_for()
    pooled.locator(LIVE).get_by_role("button", name="Run the seeds").click()
    pooled.locator(f"{LIVE} .wt-status", has_text="Step").wait_for(timeout=60_000)
    run_id = pooled.evaluate("Math.max(...__wt.pool.runs.keys())")
    pooled.locator(LIVE).get_by_role("button", name="Cancel").click()
    status(pooled, LIVE, "Cancelled.")
    ended = until(lambda: (e := pooled.evaluate(f"__wt.pool.ended.filter((x) => x.run === {run_id})")) and len(e) == 3 and e)
    # a part still waiting for its worker's boot never started: its worker confirms with no last step
    began = [e["part"] for e in ended if e["part"] is not None]
    assert len(began) == len(set(began)) and set(began) <= {0, 1, 2}, ended
    steps = [e["step"] for e in ended if e["step"] is not None]
    assert steps and all(0 < s < 4 * 5000 for s in steps), ended
    assert pooled.evaluate("__wt.pool.workers.every((w) => !w.part) && __wt.pool.runs.size === 0")


def test_a_pooled_run_from_the_classroom_file(browser, dist_dir, tmp_path):
    """The numerics workers of the file opened from disk get the file's own checked bytes, as its Panel worker does."""
    from test_browser_classroom import FileRecorder, assert_stayed_local
    from tools import single_file
    from weighttying import tasks

    path = tmp_path / single_file.NAME
    shutil.copyfile(dist_dir / single_file.NAME, path)
    rec = FileRecorder()
    ctx = new_context(browser, rec, init_js=(CORES,))
    try:
        page = ctx.new_page()
        page.goto(f"{path.as_uri()}?embed=tasks&tasks.seeds=1&tasks.steps=30", wait_until="domcontentloaded")
        wait_booted(page)
        got = run(page)
        assert page.evaluate("__wt.pool.started") == 2, "one worker per (seed, task) pair"
        for r in tasks.table(seeds=range(1), steps=30):
            slug = r["task"].lower()
            assert near(got[f"tasks-{slug}-tied"], r["tied"]), slug  # the page carries its numbers
        assert_stayed_local(rec, path)
        assert not rec.page_errors, rec.page_errors
    finally:
        ctx.close()
