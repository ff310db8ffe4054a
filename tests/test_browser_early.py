"""Live answers before Panel (site/early.js, weighttying.early), in headless Chromium.

While the Panel worker still loads (held here: its Panel wheel is not served until the test says so), a setting
off the sweep's playback grid is computed by a numerics worker of the page's pool and shown in the section's
slots, marked live; once Panel takes the section over it shows the same bytes. Back on the grid, the table
answers again and a late live answer for the old setting is not shown.
"""
from __future__ import annotations

import contextlib

import pytest

from harness import Recorder, new_context, until, wait_booted
from test_browser_pool import CORES

pytestmark = pytest.mark.browser
PLAYER = ".wt-player[data-section=sweep]"
OFF_GRID = "0.0123"  # sweep.sigma's grid has 0.01 and 0.0316
SLOTS_JS = """(root) => {  // {slot name: innerHTML} of every .wt-slot under root, through shadow roots
  const out = {};
  const walk = (node) => node.querySelectorAll("*").forEach((el) => {
    if (el.classList.contains("wt-slot") && !(el.dataset.slot in out)) out[el.dataset.slot] = el.innerHTML;
    if (el.shadowRoot) walk(el.shadowRoot);
  });
  walk(root);
  return out;
}"""


def type_sigma(page, value: str) -> None:
    box = page.locator(f"{PLAYER} .wt-pctl[data-key=sigma] input[type=number]")
    box.fill(value)
    box.dispatch_event("change")


@contextlib.contextmanager
def panel_held(browser, url: str, rec: Recorder):
    """A page of URL whose Panel worker cannot finish loading until release() (its Panel wheel held back), four
    cores said; REC records its requests."""
    ctx = new_context(browser, rec, init_js=(CORES,))
    waiting = []
    ctx.route("**/pyodide/panel-*.whl", lambda route: waiting.append(route))
    page = ctx.new_page()
    page.goto(url, wait_until="domcontentloaded")

    def release() -> dict:
        ctx.unroute("**/pyodide/panel-*.whl")
        for route in waiting:
            route.continue_()
        return wait_booted(page)
    try:
        yield page, release
    finally:
        ctx.close()


@pytest.fixture()
def held(browser, server):
    """A page of the sweep whose Panel worker cannot finish loading until release()."""
    with panel_held(browser, f"{server.url}?embed=sweep", Recorder()) as (page, release):
        yield page, release


def test_an_off_grid_setting_is_live_before_panel_and_panel_shows_the_same_bytes(held):
    page, release = held
    page.locator(f"{PLAYER} .wt-player-status", has_text="Computed at build").wait_for()
    type_sigma(page, OFF_GRID)
    page.locator(f"{PLAYER}[data-approx=true]").wait_for()  # the nearest precomputed answer first
    page.locator(f"{PLAYER}[data-early=true]").wait_for(timeout=60_000)
    assert page.evaluate("__wt.status") == "booting", "answered before Panel"
    status = page.locator(f"{PLAYER} .wt-player-status").text_content()
    assert status.startswith("Computed live in your browser"), status
    early = page.evaluate(SLOTS_JS, page.locator("#live-sweep").element_handle())
    assert f'data-value="{OFF_GRID}"' in early["readout"] or OFF_GRID in early["readout"], early["readout"][:300]
    assert not page.locator("#live-sweep .wt-slot.wt-approx").count()
    assert page.evaluate("__wt.early.answered") == 1 and page.evaluate("__wt.pool.started") == 1

    release()
    page.locator("#live-sweep[data-live=true]").wait_for(timeout=60_000)
    live = page.evaluate(SLOTS_JS, page.locator("#live-root-sweep").element_handle())
    assert set(live) == set(early)
    for name in early:
        assert live[name] == early[name], name
    assert "sweep.sigma=0.0123" in page.evaluate("location.search")


def test_back_on_the_grid_the_table_answers_and_a_late_live_answer_is_dropped(held):
    page, _ = held
    page.locator(f"{PLAYER} .wt-player-status", has_text="Computed at build").wait_for()
    type_sigma(page, OFF_GRID)
    type_sigma(page, "0.01")  # on the grid, before the numerics worker has booted
    assert until(lambda: page.evaluate("__wt.early.asked === 1 && __wt.pool.workers.length === 1 && "
                                       "__wt.pool.workers.every((w) => !w.asks.size)"), 60)  # answered, for a setting gone
    assert page.evaluate("__wt.early.answered") == 0
    assert page.locator(f"{PLAYER}[data-approx=false]:not([data-early])").count() == 1
    assert "Computed at build" in page.locator(f"{PLAYER} .wt-player-status").text_content()


@pytest.mark.parametrize("cores", [2, 4])
def test_a_page_opened_off_the_grid_boots_its_numerics_worker_first_on_few_cores(browser, server, cores):
    # On FEW_CORES (site/boot.js) the Panel worker is made once the numerics worker is up, so the early answer does
    # not share two cores with Panel's boot; with more cores both start at once. Panel then shows the same bytes.
    # the memory said too: without it a 4 may be WebKit's clamped count, which numericsFirst counts as few
    said = (f"Object.defineProperty(navigator, 'hardwareConcurrency', {{get: () => {cores}}});"
            "Object.defineProperty(navigator, 'deviceMemory', {get: () => 8});")
    ctx = new_context(browser, Recorder(), init_js=(said,))
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=sweep&sweep.sigma={OFF_GRID}", wait_until="domcontentloaded")
        page.locator(f"{PLAYER}[data-early=true]").wait_for(timeout=60_000)
        early = page.evaluate(SLOTS_JS, page.locator("#live-sweep").element_handle())
        wait_booted(page)
        made, up = page.evaluate("[__wt.timings.panel_started, __wt.pool.boots[0].ready]")
        if cores <= 2:
            assert made >= up, f"the Panel worker was made at {made:.0f} ms, before the numerics worker was up at {up:.0f}"
        else:
            assert made < up, f"with {cores} cores the Panel worker waited for the numerics worker ({made:.0f} >= {up:.0f})"
        page.locator("#live-sweep[data-live=true]").wait_for(timeout=60_000)
        live = page.evaluate(SLOTS_JS, page.locator("#live-root-sweep").element_handle())
        assert live == early
    finally:
        ctx.close()
