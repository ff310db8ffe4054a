"""The path-drop section in headless Chromium (embed=pathdrop, one cold load per module).

A link with pathdrop.k=50 and pathdrop.steps=1500 loads those settings; flipping the two toggles
shows 0 / 8 / 64 wrong rows (both / output only / input only), the k-check's exact miss chance is
CPython's to 1e-12, the streamed training ends at CPython's losses (1e-9 relative: same float64
code; the parity test bounds the difference at 1e-12) and Cancel stops a run.
"""
from __future__ import annotations

import pytest

from conftest import live_page
from harness import run_over
from robust import settle
from weighttying import measure, pathdrop
from weighttying import state
from carried_numbers import near
from weighttying.views import pathdrop as pathdrop_view
pytestmark = pytest.mark.browser
LIVE = "#live-pathdrop[data-live=true]"
QUERY = "pathdrop.k=50&pathdrop.steps=1500"


live = live_page(f"embed=pathdrop&{QUERY}")


def toggle(page, name: str) -> None:
    page.locator(f"{LIVE} .wt-ctl-pathdrop-{name} input[type=checkbox]").click()


def wrong_rows(page, expect: int) -> None:
    page.locator(f"{LIVE} [data-testid=pathdrop-wrong][data-value='{expect}']").wait_for(timeout=60_000)


def test_url_setting_and_k_check(live):
    wrong_rows(live, 0)
    st = state.parse_query(QUERY)[0].pathdrop
    r = pathdrop.wrong_rows_table()[1]  # both paths kept: the k-check is about the page's bug
    miss = float(live.locator(f"{LIVE} [data-testid=pathdrop-miss]").get_attribute("data-value"))
    assert st.k == 50 and near(miss, pathdrop.miss_probability(50, r["wrong_entries"], r["entries"]))
    assert "compares 50 random entries" in live.locator(f"{LIVE} [data-testid=pathdrop-kcheck]").text_content()


def test_toggles_give_0_8_64(live):
    wrong_rows(live, 0)
    toggle(live, "input")  # output path only
    wrong_rows(live, 8)
    assert live.locator(f"{LIVE} [data-testid=pathdrop-right]").get_attribute("data-value") == "56"
    toggle(live, "input")
    toggle(live, "output")  # input path only
    wrong_rows(live, 64)
    assert live.locator(f"{LIVE} [data-testid=pathdrop-setting]").text_content() == "input path only"
    toggle(live, "output")
    wrong_rows(live, 0)


def test_training_ends_at_cpythons_losses(live):
    # steps=1500 is not the build's run: the curves wait for Train (nothing trains by itself)
    assert live.locator(f"{LIVE} [data-testid=pathdrop-curves-pending]").count() == 1
    live.locator(f"{LIVE} button", has_text="Train both").click()
    live.locator(f"{LIVE} [data-testid=pathdrop-loss-broken]").wait_for(state="attached", timeout=120_000)  # in the closed "Data and downloads"
    assert live.locator(f"{LIVE} [data-testid=pathdrop-source]").get_attribute("data-source") == "live"
    st = state.parse_query(QUERY)[0].pathdrop
    ref = pathdrop.training_curves(pathdrop_view.config(st), measure.race_task(pathdrop_view.RECIPE), steps=st.steps, lr=st.lr, seed=st.seed,
                                   batch=pathdrop_view.RECIPE.batch)
    for key, name in (("correct", "both paths"), ("broken", "output path only")):
        ours = float(live.locator(f"{LIVE} [data-testid=pathdrop-loss-{key}]").get_attribute("data-value"))
        assert near(ours, ref[name][-1]["eval"]), (key, ours)


def test_cancel_stops_training(live):
    # The module's 1500 steps can end before Cancel lands on a quiet machine; 5000 (the maximum) cannot.
    live.locator(f"{LIVE} .wt-ctl-pathdrop-steps .noUi-handle").press("End")
    live.locator(f"{LIVE} [data-testid=pathdrop-curves-pending]").wait_for()
    live.locator(f"{LIVE} button", has_text="Train both").click()
    status = live.locator(f"{LIVE} .wt-status", has_text="Step")
    status.wait_for(timeout=20_000)
    live.locator(f"{LIVE} button", has_text="Cancel").last.click()
    live.locator(f"{LIVE} .wt-status", has_text="Cancelled.").wait_for(timeout=10_000)
    run_over(live, LIVE)  # the worker confirms the run is over: no step can follow
    settle(live.page)  # a round trip: the worker is idle and every patch it sent is in
    assert live.locator(f"{LIVE} [data-testid=pathdrop-loss-broken]").count() == 0
    assert live.locator(f"{LIVE} .wt-status", has_text="Cancelled.").count() == 1
