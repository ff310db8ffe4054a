"""The gradient-check section in headless Chromium (embed=gradcheck, one cold load per module).

A link with gradcheck.tied=0 loads untied (every entry agrees: the badge says so); ticking "tied" re-runs the check and the fixed badge and readout show what
CPython weighttying gives; Cancel stops a check. Counts must match exactly; the worst relative
error to 1e-3 relative: it is |a - n| / (|a| + |n|) of two nearly equal numbers, and the numeric
side divides summation-order rounding (different BLAS in the browser) by 2 eps = 2e-4.
"""
from __future__ import annotations

import dataclasses

import pytest

from conftest import live_page
from harness import run_over
from robust import settle
from weighttying import state
from weighttying.views import gradcheck
pytestmark = pytest.mark.browser
LIVE = "#live-gradcheck[data-live=true]"
REL = 1e-3


def expected(**kw) -> dict:
    return gradcheck.summary(gradcheck.check(dataclasses.replace(state.State().gradcheck, **kw)))


def badge_when_done(page, timeout_ms=90_000):
    badge = page.locator(f"{LIVE} [data-testid=gradcheck-badge]")
    badge.and_(page.locator("[data-value]:not([data-value=running])")).wait_for(timeout=timeout_ms)
    return badge


live = live_page("embed=gradcheck&gradcheck.tied=0")


def test_url_loads_untied(live):
    exp = expected(tied=False)
    badge = badge_when_done(live)
    assert int(badge.get_attribute("data-value")) == exp["disagree"] == 0
    assert int(badge.get_attribute("data-entries")) == exp["entries"] == 4176
    assert live.locator(f"{LIVE} .wt-ctl-gradcheck-tied input[type=checkbox]").is_checked() is False


def test_ticking_tied_rechecks(live):
    live.locator(f"{LIVE} .wt-ctl-gradcheck-tied input[type=checkbox]").click()
    exp = expected()
    badge = live.locator(f"{LIVE} [data-testid=gradcheck-badge][data-entries='{exp['entries']}']")
    badge.wait_for(timeout=90_000)
    assert int(badge.get_attribute("data-value")) == exp["disagree"] == 0
    assert badge.text_content() == f"gradient check: all {exp['entries']} entries agree to {gradcheck.TOL:g}"
    worst = float(live.locator(f"{LIVE} [data-testid=gradcheck-worst]").get_attribute("data-value"))
    assert abs(worst - exp["worst"]) <= REL * exp["worst"], (worst, exp["worst"])
    # the badge is fixed to the viewport: still on screen after scrolling to the bottom of the page
    live.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    box = badge.bounding_box()
    assert box and 0 <= box["y"] < 900 and box["height"] > 0


# Clicks Cancel the moment it is enabled: polled in the page, not through Playwright round trips.
CLICK_CANCEL_WHEN_ENABLED_JS = """
async () => {
  const live = document.getElementById('live-gradcheck');
  const deadline = performance.now() + 60000;
  while (performance.now() < deadline) {
    const b = __wtTest.all(live, 'button').find((b) => b.textContent.trim() === 'Cancel');
    if (b && !b.disabled) { b.click(); return true; }
    await new Promise((r) => setTimeout(r, 5));
  }
  return false;
}
"""


def test_cancel_stops_a_check(live):
    # The default check is over in ~0.1 s, less than a click's round trip. Batch 256 (64 distinct
    # tokens, 16 steps) on a 20x slower CPU (the worker's too) keeps a check running for seconds;
    # moving the batch slider starts it, and Cancel is clicked as soon as the page enables it.
    cdp = live.page.context.new_cdp_session(live.page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 20})
    try:
        live.locator(f"{LIVE} .wt-ctl-gradcheck-batch .noUi-handle").press("End")  # the slider's maximum
        assert live.evaluate(CLICK_CANCEL_WHEN_ENABLED_JS), "Cancel never became clickable"
        status = live.locator(f"{LIVE} .wt-status")
        status.filter(has_text="Cancelled.").wait_for(timeout=60_000)
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    run_over(live, LIVE)  # the worker confirms the check is over: nothing can overwrite Cancelled after it
    settle(live.page)  # a round trip: the worker is idle and every patch it sent is in
    assert "Cancelled." in status.text_content()
    assert live.locator(f"{LIVE} [data-testid=gradcheck-badge]").get_attribute("data-value") == "cancelled"
