"""The browser the tests and benches drive does nothing of its own beside the page: a new context (a new window, with
harness.CHROMIUM_ARGS) holds no page of Chromium's own UI, which would share this box's two cores with a cold page
and be counted in its times (the omnibox popup's WebUI did, before CHROMIUM_ARGS turned it off). Chromium makes such
pages with the window, so they are among its targets by the time the window's first page has loaded."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def chromium_pages(cdp) -> list[str]:
    """The URLs of the browser's targets that are Chromium's own UI (every target type: the filter's empty entry)."""
    infos = cdp.send("Target.getTargets", {"filter": [{}]})["targetInfos"]
    return sorted({t["url"] for t in infos if t["type"] == "browser_ui" or t["url"].startswith("chrome://")})


def test_a_new_context_holds_no_page_of_chromiums_own(browser):
    cdp = browser.new_browser_cdp_session()
    context = browser.new_context()
    try:
        context.new_page().goto("data:text/html,<p>a page")
        ui = chromium_pages(cdp)
    finally:
        context.close()
        cdp.detach()
    assert not ui, f"a new window holds {len(ui)} pages of Chromium's own: {ui}"
