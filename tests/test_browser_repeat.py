"""The repeat section in headless Chromium (embed=repeat, one cold load per module).

A link with repeat.sigma=0.5, repeat.seed=3 and repeat.steps=2000 loads those settings (the rank table
is CPython's for sigma 0.5, seeds 3..7); unticking `tied` moves the readout to CPython's untied number;
Train + Cancel stops a 2000-step run part-way; with steps moved down by keyboard a full run ends at
CPython's ranks. Ranks are means of half-integers over 64 tokens: exact in any float64 arithmetic, so
the browser must agree to 1e-12.
"""
from __future__ import annotations

import re

import pytest

from conftest import live_page
from harness import run_over
from robust import settle
from carried_numbers import carried, near
from weighttying import measure, model, repeat
from weighttying.views import repeat as repeat_view
pytestmark = pytest.mark.browser
LIVE = "#live-repeat[data-live=true]"
QUERY = "repeat.sigma=0.5&repeat.seed=3&repeat.steps=2000"

FOCUS_JS = """
([section, title]) => {
  // Focus the noUiSlider handle of the Bokeh slider titled TITLE inside #live-SECTION (shadow roots pierced).
  const found = __wtTest.all(document.getElementById('live-' + section), '.bk-slider-title')
    .filter((t) => t.textContent.trim().startsWith(title))
    .map((t) => t.getRootNode().querySelector('.noUi-handle')).filter((h) => h);
  if (found.length !== 1) return `expected one slider titled ${title}, found ${found.length}`;
  found[0].focus();
  return null;
}
"""


def value(page, live: str, testid: str, timeout: float = 60_000) -> float:
    """The exact number behind a hooked readout/table cell (waits until it exists)."""
    loc = page.locator(f"{live} [data-testid={testid}]")
    loc.wait_for(state="attached", timeout=timeout)  # it may sit in the closed "Data and downloads"
    return float(loc.get_attribute("data-value"))


def press_slider(page, section: str, title: str, *keys: str) -> None:
    """Keyboard on a slider's handle: the way a reader without a mouse moves it."""
    err = page.evaluate(FOCUS_JS, [section, title])
    assert err is None, err
    for k in keys:
        page.keyboard.press(k)


def status(page, live: str, text: str, timeout: float = 120_000) -> None:
    page.locator(f"{live} .wt-status", has_text=text).wait_for(timeout=timeout)


live = live_page(f"embed=repeat&{QUERY}")


def test_url_setting_loads_cpython_rank_table(live):
    want = repeat.init_table(sigma=0.5, seeds=range(3, 8))
    for slug, row in zip(("tied-res1", "untied", "chance", "tied-res0"), want):
        assert near(value(live, LIVE, f"repeat-rank-{slug}"), row["mean_rank"])
    assert "σ = 0.5, seed 3" in live.locator(f"{LIVE} [data-testid=repeat-readout]").text_content()
    assert "page says" in live.locator(f"{LIVE} [data-testid=repeat-init-table]").text_content()


def test_untying_moves_the_readout_to_cpython(live):
    cfg = model.Config(tied=False, res=1.0, sigma=0.5, seed=3)
    want = float(repeat.self_ranks(model.init_params(cfg), cfg).mean())
    live.locator(LIVE).get_by_role("checkbox").click()  # the only one: tied (Bokeh gives it no accessible name)
    live.locator(f"{LIVE} [data-testid=repeat-current][data-value='{carried(want)!r}']").wait_for(timeout=60_000)
    live.locator(LIVE).get_by_role("checkbox").click()  # the only one: tied (Bokeh gives it no accessible name)
    cfg = model.Config(tied=True, res=1.0, sigma=0.5, seed=3)
    want = float(repeat.self_ranks(model.init_params(cfg), cfg).mean())
    live.locator(f"{LIVE} [data-testid=repeat-current][data-value='{carried(want)!r}']").wait_for(timeout=60_000)


def trained_step(page) -> int:
    text = page.locator(f"{LIVE} [data-testid=repeat-trained-table] caption").text_content()
    return int(re.search(r"after (\d+) of", text).group(1))


def test_cancel_stops_a_training_run(live):
    live.locator(LIVE).get_by_role("button", name="Train tied + untied").click()
    value(live, LIVE, "repeat-trained-tied")  # the first curve point arrived
    live.locator(LIVE).get_by_role("button", name="Cancel").click()
    status(live, LIVE, "Cancelled.")
    last = run_over(live, LIVE)  # the worker confirms the run is over: no step follows `last`
    stopped = trained_step(live)
    settle(live.page)  # a round trip: the worker is idle and every patch it sent is in
    assert trained_step(live) == stopped <= last < 2000
    assert live.locator(LIVE).get_by_role("button", name="Train tied + untied").is_enabled()


def test_full_run_ends_at_cpython_ranks(live):
    press_slider(live, "repeat", "steps", "Home", "PageUp", "PageUp")  # 2000 -> 0 -> a few steps
    live.locator(f"{LIVE} [data-testid=repeat-curve-text]", has_text="Not trained yet").wait_for()
    settle(live.page)  # "Not trained yet" shows from Home on: Python must have the PageUps before the Run
    live.locator(LIVE).get_by_role("button", name="Train tied + untied").click()
    status(live, LIVE, "Done.")
    steps = trained_step(live)
    assert 0 < steps < 2000
    want = repeat.trained_table(sigma=0.5, steps=steps, seeds=[3], lr=repeat_view.RECIPE.lr, task=measure.race_task(repeat_view.RECIPE),
                                batch=repeat_view.RECIPE.batch)
    assert near(value(live, LIVE, "repeat-trained-tied"), want[0]["mean_rank"])
    assert near(value(live, LIVE, "repeat-trained-untied"), want[1]["mean_rank"])
    assert f"after {steps} of {steps} steps" in live.locator(f"{LIVE} [data-testid=repeat-trained-table]").text_content()
