"""The code lab's Run before Panel (site/earlyrun.js, weighttying.early.Run), in headless Chromium.

While the Panel worker still loads (held: its Panel wheel is not served until the test says so), the editor's Run
checks the reader's code on a numerics worker, which draws the section's slots; the page puts them in only through
inert.js. When Panel takes the section over it shows the same bytes, with no "Not checked yet" between. Its
failures: code that draws what the page never draws is refused whole, and nothing of it runs or loads; an endless
loop is ended at the quiet limit, the reader's edit kept; with the data saver on, Run says what to press and starts
nothing; on two cores the numerics worker boots first for an embedded code lab, and the Panel worker waits for a
Run pressed meanwhile to show its answer.
"""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

import contextlib
import shutil

from harness import Recorder, assert_same_origin, new_context, serve, until, wait_booted
from test_browser_robust_assets import tamper
from test_browser_early import SLOTS_JS, panel_held
from weighttying import codelab

pytestmark = pytest.mark.browser
PRE = "#live-codelab .wt-prerender"
SAID = "[data-testid=codelab-run-said]"
# The page's verdict while the live root is swapped in, seen by a MutationObserver: what the first live frame shows
WATCH_JS = """() => {
  const el = document.getElementById('live-codelab');
  window.__handed = null;
  new MutationObserver(() => {
    if (window.__handed === null && el.dataset.live === 'true') {
      const v = __wtTest.deep(document.getElementById('live-root-codelab'), '[data-testid=codelab-verdict]');
      window.__handed = v ? v.dataset.value : '';
    }
  }).observe(el, {attributes: true});
}"""


def put(page, text: str) -> None:
    """TEXT in the editor, as a paste over its whole text."""
    page.locator(".wt-codelab-editor .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)


def verdict(page, scope: str = PRE) -> str:
    return page.locator(f"{scope} [data-testid=codelab-verdict]").get_attribute("data-value") or ""


@pytest.fixture()
def held(browser, server):
    """An embedded code lab whose Panel worker cannot finish loading until release(), and its requests."""
    rec = Recorder()
    with panel_held(browser, f"{server.url}?embed=codelab", rec) as (page, release):
        yield page, release, rec


def test_the_code_is_checked_before_panel_and_panel_takes_it_over_with_the_same_bytes(held):
    page, release, _ = held
    code = codelab.bug_source("output_only") + "# mine\n"
    want = codelab.checks(code)["verdict"]
    put(page, code)
    page.get_by_test_id("codelab-run").click()
    page.locator(f"{PRE} [data-testid=codelab-verdict][data-value='{want}']").wait_for(timeout=90_000)
    page.locator(SAID, has_text="Done.").wait_for(timeout=60_000)
    assert page.locator(SAID).text_content().startswith(want), "the verdict is said under Run too"
    assert page.evaluate("__wt.status") == "booting", "checked before Panel"
    assert page.locator(f"{PRE} .wt-slot[data-slot=verdict][data-frag=live]").count() == 1
    assert page.evaluate("__wt.runs.shown") >= 1 and page.evaluate("__wt.runs.refusals.length") == 0
    early = page.evaluate(SLOTS_JS, page.locator("#live-codelab").element_handle())
    assert "Computed live" in early["race"], "the race says where it comes from"
    player = page.locator("#live-codelab .wt-player-status").text_content()
    assert player.startswith("Checked live in your browser"), player

    page.evaluate(WATCH_JS)
    release()
    page.locator("#live-codelab[data-live=true]").wait_for(timeout=60_000)
    assert page.evaluate("window.__handed") == want, "the first live frame showed another verdict"
    live = page.evaluate(SLOTS_JS, page.locator("#live-root-codelab").element_handle())
    for name in early:
        assert live[name] == early[name], name
    # Run again, live: the line under Run speaks of this Run (the same verdict), not of the one before the live lab
    page.get_by_test_id("codelab-run").click()
    expect(page.locator(SAID)).to_have_text(want, timeout=30_000)


def test_code_that_draws_what_the_page_never_draws_is_refused_whole(held):
    page, release, rec = held
    hostile = ("import weighttying.views.codelab as drawn\n"
               "drawn.verdict_html = lambda *drawn_with: "
               "'<img src=\"https://example.com/x.png\" onerror=\"window.__pwned=1\">'\n"
               + codelab.original_source())
    put(page, hostile)
    page.get_by_test_id("codelab-run").click()
    page.locator(SAID, has_text="was not shown").wait_for(timeout=90_000)
    said = page.locator(SAID).text_content()
    assert "<img>" in said and "nothing of that answer was put in the page" in said, said
    assert page.locator(f"{PRE} .wt-slot[data-frag=live]").count() == 0, "no slot of the refused answer was put in"
    assert page.locator("#live-codelab img").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("__wt.runs.refusals.length") == 1
    release()
    page.locator("#live-codelab[data-live=true]").wait_for(timeout=60_000)
    assert_same_origin(rec.requests, page.evaluate("location.origin"))
    assert page.evaluate("window.__pwned") is None
    assert page.locator(".wt-codelab-editor .cm-content").text_content().startswith("import weighttying"), \
        "the reader's edit is kept"


def test_an_endless_loop_before_panel_is_ended_at_the_quiet_limit(held):
    page, _, _ = held
    looping = codelab.original_source().replace('    """Gradients', "    while True:\n        pass\n    \"\"\"Gradients", 1)
    assert looping != codelab.original_source()
    put(page, looping)
    page.get_by_test_id("codelab-run").click()
    page.locator(SAID, has_text="Stopped:").wait_for(timeout=120_000)
    assert "without finishing a step" in page.locator(SAID).text_content()
    assert page.evaluate("__wt.pool.hung.length") == 1
    assert "while True" in page.locator(".wt-codelab-editor .cm-content").text_content(), "the edit is kept"
    put(page, codelab.original_source() + "# again\n")  # a new worker for the next Run
    page.get_by_test_id("codelab-run").click()
    page.locator(SAID, has_text="Done.").wait_for(timeout=120_000)
    assert verdict(page).startswith("Exact")


def test_with_the_data_saver_run_says_what_to_press_and_starts_nothing(browser, server):
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
        put(page, codelab.original_source() + "# mine\n")
        page.get_by_test_id("codelab-run").click()
        assert "Load the live lab" in page.locator(SAID).text_content()
        assert page.evaluate("__wt.pool.started") == 0 and page.evaluate("__wt.status") == "paused"
    finally:
        ctx.close()


TWO_CORES = ("Object.defineProperty(navigator, 'hardwareConcurrency', {get: () => 2});"
             "Object.defineProperty(navigator, 'deviceMemory', {get: () => 8});")
# When the Run's first answer is put into the prerender (its verdict slot drawn live), on the page's clock
SHOWN_JS = """() => {
  const slot = document.querySelector('#live-codelab .wt-prerender [data-slot=verdict]');
  window.__shownAt = null;
  new MutationObserver(() => {
    if (window.__shownAt === null && slot.dataset.frag === 'live') window.__shownAt = performance.now();
  }).observe(slot, {attributes: true});
}"""


@contextlib.contextmanager
def two_core_code_lab(browser, server):
    """A fresh page of ?embed=codelab in a browser that says it has two cores, as soon as its document is parsed."""
    ctx = new_context(browser, init_js=(TWO_CORES,))
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=codelab", wait_until="domcontentloaded")
        yield page
    finally:
        ctx.close()


def test_an_embedded_code_lab_boots_its_numerics_worker_first_on_two_cores(browser, server):
    with two_core_code_lab(browser, server) as page:
        wait_booted(page)
        made, up = page.evaluate("[__wt.timings.panel_started, __wt.pool.boots[0].ready]")
        assert made >= up, f"the Panel worker was made at {made:.0f} ms, before the numerics worker was up at {up:.0f}"


# How many central differences the code lab's view keeps in a numerics worker (1: computed), or null for a worker
# that is not one of the pool's, booted: only those are sealed off the network (worker_numerics.js)
PREPARED_JS = """() => {
  const sealed = Object.getOwnPropertyDescriptor(self, 'fetch');
  if (!sealed || !sealed.get) return null;
  return __wtWorker.py.runPython('from weighttying.views import codelab\\ncodelab.numeric.cache_info().currsize');
}"""


def test_an_embedded_code_labs_worker_prepares_for_the_run_before_it_is_pressed(browser, server):
    # the reader reads their code first: the Run they press then does not compute the central differences
    with two_core_code_lab(browser, server) as page:
        page.wait_for_function("() => __wt.pool.boots.length > 0 && __wt.pool.boots[0].ready > 0", timeout=90_000)
        assert until(lambda: 1 in [w.evaluate(PREPARED_JS) for w in page.workers], 30, 0.1), \
            f"no numerics worker computed the central differences before the Run: {[w.evaluate(PREPARED_JS) for w in page.workers]}"


def test_on_two_cores_a_run_pressed_while_python_starts_is_answered_before_panel_boots(browser, server):
    # the Panel worker's boot would share the two cores with the Run: it is made once the Run has its answer
    with two_core_code_lab(browser, server) as page:
        page.evaluate(SHOWN_JS)
        put(page, codelab.original_source() + "# mine\n")
        page.get_by_test_id("codelab-run").click()
        wait_booted(page)
        made, up, shown = page.evaluate("[__wt.timings.panel_started, __wt.pool.boots[0].ready, window.__shownAt]")
        assert shown is not None and made >= shown > up, \
            f"the Panel worker was made at {made:.0f} ms; the numerics worker up at {up:.0f}, the answer shown at {shown}"


def test_run_pressed_again_while_the_worker_boots_keeps_that_boot(held):
    page, _, _ = held
    put(page, codelab.original_source() + "# mine\n")
    page.get_by_test_id("codelab-run").click()
    page.get_by_test_id("codelab-run").click()  # again, before the worker is up
    page.locator(SAID, has_text="Done.").wait_for(timeout=90_000)
    assert page.evaluate("__wt.pool.started") == 1, "the second Run ended the first one's boot"


def test_a_setting_moved_during_the_run_stops_it(held):
    page, _, _ = held
    put(page, codelab.original_source() + "# mine\n")
    page.get_by_test_id("codelab-run").click()
    box = page.locator(".wt-player[data-section=codelab] .wt-pctl[data-key=k] input[type=number]")
    box.fill("50")
    box.dispatch_event("change")
    page.locator(SAID, has_text="Settings changed").wait_for(timeout=90_000)
    assert page.locator(f"{PRE} .wt-slot[data-frag=live]").count() == 0, "nothing of the old setting's Run shown"
    page.get_by_test_id("codelab-run").click()
    page.locator(SAID, has_text="Done.").wait_for(timeout=90_000)
    assert page.locator(f"{PRE} .wt-slot[data-slot=random][data-frag=live]").text_content().startswith("50 random")


def test_a_run_whose_worker_cannot_start_names_the_file_and_keeps_the_edit(browser, dist_dir, tmp_path):
    # NumPy's wheel modified: the numerics worker refuses it, and the Run says so in that failure's words
    copy = tmp_path / "dist"
    shutil.copytree(dist_dir, copy)
    wheel = next((copy / "pyodide").glob("numpy-*.whl"))
    tamper(wheel)
    with serve(copy, log_dir=tmp_path) as srv:
        ctx = new_context(browser)
        try:
            page = ctx.new_page()
            page.goto(f"{srv.url}?embed=codelab", wait_until="domcontentloaded")
            mine = codelab.original_source() + "# mine\n"
            put(page, mine)
            page.get_by_test_id("codelab-run").click()
            said = page.locator(SAID, has_text="could not start")
            said.wait_for(timeout=90_000)
            text = said.inner_text()
            assert wheel.name in text and "modified" in text and "Panel" not in text, text
            assert "# mine" in page.locator(".wt-codelab-editor .cm-content").inner_text(), "the edit was lost"
        finally:
            ctx.close()
