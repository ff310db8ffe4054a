"""The reader's endless loop, on the whole page (headless Chromium, served): Run starts it on a numerics worker of
its own; another section (tying's d) still answers while it loops; after the view's QUIET_S the page ends that
worker and the Run's status line says so, with the code still in the editor and the results of the code that ran
before it still shown; run again and
cancelled, the looping worker is ended at once; the next Run, on a new worker, checks the page's own code exactly.
"""
from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from conftest import live_page
from harness import until
from test_browser_codelab import EDITOR, LIVE, LIVE_BOX_JS, editor_text, shown
from weighttying import codelab
from weighttying.views import codelab as codelab_view
from weighttying.views import tying as tying_view

pytestmark = pytest.mark.browser
LOOP = """def lesson_backward(params, cfg, inputs, cache, dlogits):
    while True:
        pass
"""
V = 100  # tying's V from the link, so d's answer is a number the defaults do not show
whole = live_page(f"tying.V={V}")


def put_code(page, text: str) -> None:
    page.locator(EDITOR).click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    until(lambda: page.evaluate(LIVE_BOX_JS) == text)


def saved(page) -> str | None:
    hook = page.locator("#live-tying[data-live=true] [data-testid=tying-saved]")
    return hook.get_attribute("data-value") if hook.count() else None


def test_an_endless_loop_is_ended_while_the_page_keeps_answering(whole):
    page = whole.page
    page.locator(LIVE).wait_for(timeout=120_000)
    status = page.locator(f"{LIVE} [data-testid=run-status]")
    put_code(page, codelab.original_source() + "# ran before the loop\n")  # results for the loop's Run to leave shown
    page.keyboard.press("Control+Enter")
    page.locator(f"{LIVE} [data-testid=codelab-race-final]").wait_for(timeout=120_000)
    expect(status).to_have_attribute("data-run", "over", timeout=30_000)
    before = shown(page, LIVE)
    put_code(page, LOOP)
    page.keyboard.press("Control+Enter")
    expect(status).to_have_attribute("data-run", "going", timeout=30_000)
    until(lambda: page.evaluate("__wt.pool.workers.some((w) => w.tainted && w.part)"), 60)
    looping = time.monotonic()
    d = page.locator("#live-tying[data-live=true]").get_by_label("d", exact=True)
    d.fill("7")
    d.press("Enter")
    until(lambda: saved(page) == str(tying_view.count(V, 7)["saved"]), 30)
    answered = time.monotonic() - looping
    expect(status).to_contain_text("without finishing a step", timeout=60_000)
    ended = time.monotonic() - looping
    assert answered < codelab_view.QUIET_S <= ended + 1, (answered, ended)  # tying answered while the code looped
    assert page.evaluate("__wt.pool.hung.length") == 1 and not page.evaluate("__wt.pool.workers.some((w) => w.part)")
    assert editor_text(page).rstrip("\n") == LOOP.rstrip("\n"), "the reader's code stays"
    assert shown(page, LIVE) == before, "the results of the code that ran before the loop stay"
    # Run it again and Cancel: the looping worker cannot read a cancel, so it is ended at once, not left to loop
    released = page.evaluate("__wt.pool.released")
    page.locator(EDITOR).click()
    page.keyboard.press("Control+Enter")
    until(lambda: page.evaluate("__wt.pool.workers.some((w) => w.tainted && w.part)"), 60)
    page.locator(f"{LIVE} button", has_text="Cancel").click()
    assert until(lambda: page.evaluate(f"__wt.pool.released > {released} && !__wt.pool.workers.some((w) => w.part)"), 10)
    page.locator("[data-testid=codelab-reset]").click()
    page.locator(EDITOR).click()
    page.keyboard.press("Control+Enter")
    verdict = page.locator(f"{LIVE} [data-testid=codelab-verdict]")
    exact = codelab.checks(codelab.original_source())["verdict"]
    expect(verdict).to_have_attribute("data-value", exact, timeout=120_000)
