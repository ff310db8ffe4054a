"""The browser the tests and benches drive does nothing of its own beside the page: a new context (a new window, with
harness.CHROMIUM_ARGS) loads no page of Chromium's own UI, which would share this box's two cores with a cold page
and be counted in its times (the omnibox popup's WebUI did, before CHROMIUM_ARGS turned it off)."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

SETTLE_MS = 1500  # Chromium's own pages of a new window were asked for within 0.3 s of it opening


def browser_ui_requests(trace: bytes) -> list[str]:
    """The URLs of Chromium's own pages (chrome://) asked for in a trace."""
    events = json.loads(trace)["traceEvents"]
    return sorted({e["args"]["data"]["url"] for e in events if e.get("name") == "ResourceSendRequest"
                   and e["args"]["data"]["url"].startswith("chrome://")})


def test_a_new_context_loads_no_page_of_chromiums_own(browser):
    browser.start_tracing(categories=["devtools.timeline"])
    try:
        context = browser.new_context()
        context.new_page().goto("data:text/html,<p>a page")
        context.new_page().wait_for_timeout(SETTLE_MS)
        context.close()
    finally:
        trace = browser.stop_tracing()
    asked = browser_ui_requests(trace)
    assert not asked, f"a new window loaded {len(asked)} of Chromium's own files, e.g. {asked[:3]}"
