"""The tasks section in headless Chromium (embed=tasks, one cold load per module).

A link with tasks.seeds=2 and tasks.steps=30 loads those settings; Run fills the excess-loss table with
CPython's numbers for them (1e-9 relative: the same float64 code, the parity test bounds the
difference at 1e-12), per-seed rows included; the parameter shares are both shown; then, with seeds and
steps pushed up by keyboard, Cancel stops a long run.
"""
from __future__ import annotations

import pytest

from conftest import live_page
from harness import run_over
from robust import settle
from test_browser_repeat import press_slider, status, value
from weighttying import tasks
from carried_numbers import near

pytestmark = pytest.mark.browser
LIVE = "#live-tasks[data-live=true]"
QUERY = "tasks.seeds=2&tasks.steps=30"


def close(a: float, b: float) -> bool:
    """A number the page carries (weighttying.precision) against CPython's exact one."""
    return near(a, b)


live = live_page(f"embed=tasks&{QUERY}")


def test_url_setting_loads_and_nothing_is_claimed_before_a_run(live):
    table = live.locator(f"{LIVE} [data-testid=tasks-table]")
    table.wait_for(state="attached")  # the per-seed table sits in the closed "Data and downloads"
    assert "after 30 steps" in table.text_content() and "not run yet" in table.text_content()
    assert "Run trains 8 models of 30 steps" in live.locator(f"{LIVE} [data-testid=tasks-now]").text_content()
    c = tasks.parameter_counts()
    assert close(value(live, LIVE, "tasks-saving"), c["saving"])
    assert close(value(live, LIVE, "tasks-saving-of-tied"), c["saving_of_tied"])


def test_run_fills_the_table_with_cpython_numbers(live):
    live.locator(LIVE).get_by_role("button", name="Run the seeds").click()
    status(live, LIVE, "Done.")
    want = {r["task"].lower(): r for r in tasks.table(seeds=range(2), steps=30)}
    for slug, r in want.items():
        for key, testid in (("tied", "tied"), ("untied", "untied"), ("ratio_min", "rmin"), ("ratio_max", "rmax")):
            assert close(value(live, LIVE, f"tasks-{slug}-{testid}"), r[key]), (slug, key)
        mean_ratio = sum(run["ratio"] for run in r["runs"]) / len(r["runs"])  # the report's: mean of per-seed ratios
        assert close(value(live, LIVE, f"tasks-{slug}-ratio"), mean_ratio)
        for run in r["runs"]:
            assert close(value(live, LIVE, f"tasks-s{run['seed']}-{slug}-ratio"), run["ratio"])
    assert "All 2 seeds done." in live.locator(f"{LIVE} [data-testid=tasks-now]").text_content()


def test_cancel_stops_the_seeds(live):
    press_slider(live, "tasks", "seeds", "End")  # 10 seeds
    press_slider(live, "tasks", "steps", "End")  # 5000 steps each: minutes of work
    live.locator(f"{LIVE} [data-testid=tasks-now]", has_text="Run trains 40 models of 5000 steps").wait_for()
    live.locator(LIVE).get_by_role("button", name="Run the seeds").click()
    live.locator(f"{LIVE} [data-testid=tasks-now]", has_text="Training all 40 models at once").wait_for()
    live.locator(LIVE).get_by_role("button", name="Cancel").click()
    status(live, LIVE, "Cancelled.")
    run_over(live, LIVE)  # the worker confirms the run is over: no step can follow
    now = live.locator(f"{LIVE} [data-testid=tasks-now]").text_content()
    settle(live.page)  # a round trip: the worker is idle and every patch it sent is in
    assert live.locator(f"{LIVE} [data-testid=tasks-now]").text_content() == now
    assert live.locator(f"{LIVE} [data-testid=tasks-aligned-tied]").count() == 0
    assert live.locator(LIVE).get_by_role("button", name="Run the seeds").is_enabled()
