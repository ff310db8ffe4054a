"""The code lab in headless Chromium (embed=codelab).

- Before Python (?live=click): every named bug answers at once from the playback tables with CPython's hooks (wrong
  rows of E, largest relative error, the random check's miss probability, the race's final loss, the verdict), and
  k moves the random check; nothing asks for Python.
- Live (one cold load for the module, at steps the build did not run): choosing a bug shows its checks at once,
  the race waits for Run, which streams it to CPython's losses.
"""
from __future__ import annotations

import dataclasses
import html
import re

import pytest
from playwright.sync_api import expect

from conftest import live_page
from harness import new_context
from weighttying import codelab, codelab_bugs
from weighttying import state as S
from weighttying.views import codelab as V
from weighttying.views import contract, kit

pytestmark = pytest.mark.browser
BOX = "#live-codelab"
LIVE = "#live-codelab[data-live=true]"
HOOKS = ("codelab-wrong-rows", "codelab-max-rel-err", "codelab-random-miss", "codelab-race-final", "codelab-verdict")


def want(bug: str, k: int = S.Codelab().k, steps: int = S.Codelab().steps) -> dict[str, str]:
    """{hook: data-value} the view writes for bug at k with the build's results (what CPython computed)."""
    st = dataclasses.replace(S.Codelab(), bug=bug, k=k, steps=steps)
    text = "".join(V.slots(st, kit.with_results(contract.view("codelab"), st)).values())
    return {k: html.unescape(v) for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', text) if k in HOOKS}


def shown(page, box: str = BOX) -> dict[str, str]:
    return {h: page.locator(f"{box} [data-testid={h}]").get_attribute("data-value")
            for h in HOOKS if page.locator(f"{box} [data-testid={h}]").count()}


def wait_verdict(page, text: str, box: str = BOX) -> None:
    """Until the verdict's data-value is text: whole, since two bugs' verdicts can share every word but the bug's name."""
    expect(page.locator(f"{box} [data-testid=codelab-verdict]")).to_have_attribute("data-value", text, timeout=60_000)


def test_every_named_bug_answers_before_python(browser, server):
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
        for bug in (b.id for b in codelab_bugs.BUGS):
            page.select_option("#wt-p-codelab-bug", bug)
            expected = want(bug)
            wait_verdict(page, expected["codelab-verdict"])
            assert shown(page) == expected, bug
        outcome = codelab.checks(codelab.bug_source("output_only"), k=5)
        page.select_option("#wt-p-codelab-bug", "output_only")
        page.fill("#wt-p-codelab-k-box", "5")
        page.locator("#wt-p-codelab-k-box").dispatch_event("change")
        page.locator(f"{BOX} [data-testid=codelab-random]", has_text="5 random entries").wait_for(timeout=5_000)
        assert shown(page)["codelab-random-miss"] == want("output_only", 5)["codelab-random-miss"]
        assert float(shown(page)["codelab-random-miss"]) == pytest.approx(outcome["random"]["miss_probability"], rel=1e-5)
        assert page.evaluate("() => !window.__wt || window.__wt.status !== 'ready'")  # no Python was asked for
    finally:
        ctx.close()


STEPS = 40  # not the build's race: the race waits for Run
live = live_page(f"embed=codelab&codelab.bug=buffered&codelab.steps={STEPS}")


def test_the_live_section_keeps_the_checks_and_runs_the_race(live):
    wait_verdict(live, want("buffered")["codelab-verdict"], LIVE)
    assert shown(live, LIVE) == want("buffered", steps=STEPS)
    live.locator(f"{LIVE} [data-testid=codelab-race-pending]").wait_for(timeout=30_000)
    live.locator(f"{LIVE} .wt-ctl-codelab-bug button", has_text="in_scale").click()
    wait_verdict(live, want("in_scale")["codelab-verdict"], LIVE)
    assert shown(live, LIVE) == want("in_scale", steps=STEPS)
    live.locator(f"{LIVE} button", has_text="Run the race").click()
    final = live.locator(f"{LIVE} [data-testid=codelab-race-final]")
    final.wait_for(timeout=120_000)
    race = codelab.race(codelab.load(codelab.bug_source("in_scale")), STEPS)
    assert float(final.get_attribute("data-value")) == pytest.approx(race["final"]["yours"], rel=1e-5)
