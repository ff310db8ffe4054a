"""Data saver (?live=click): no Python until the reader presses "Load the live lab", however long that takes. The
watch's boot silence (site/watch.js, BOOT_SILENCE_MS) counts from that press, never from the page's load: a reader
who read for minutes first gets a lab that boots, not one declared stuck at its first tick."""
from __future__ import annotations

import pytest

from robust import session, wait_boot_over

pytestmark = pytest.mark.browser


def test_a_lab_loaded_long_after_the_page_boots(browser, server):
    with session(browser) as s:
        page = s.page
        page.clock.install()  # the page's clock (not the worker's), so minutes of reading pass in an instant
        page.goto(server.url + "?live=click&embed=savings", wait_until="domcontentloaded")
        go = page.locator("#wt-go")
        go.wait_for()
        page.clock.fast_forward(100_000)  # longer than BOOT_SILENCE_MS (90 s)
        assert page.evaluate("() => window.__wt.status") == "paused"
        go.click()
        assert wait_boot_over(page) == "ready", page.evaluate("() => window.__wt.error")
