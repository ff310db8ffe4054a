"""Sections tying, savings and paper in headless Chromium, one page load for all three.

The link sets tying.V=100 and a short paper study (one seed, 40 steps): the page must load those
settings. Then a control changes in each section and the displayed numbers must equal CPython
`weighttying` for the state the page's URL now holds (relative 1e-9: same float64 code, only
summation order may differ; any wrong setting is off by percent). Finally a paper run is cancelled.
"""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from conftest import live_page
from harness import assert_same_origin, run_over, until
from robust import settle
from weighttying import paper, savings
from weighttying import state
from weighttying.views import tying as tying_view
import carried_numbers

pytestmark = pytest.mark.browser

REL_TOL = carried_numbers.REL  # a number the page carries (weighttying.precision) beside the exact one here
QUERY = "tying.V=100&paper.seeds=1&paper.steps=40"


def close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def hook(page, section: str, testid: str) -> str | None:
    loc = page.locator(f'#live-{section}[data-live=true] [data-testid="{testid}"]')
    return loc.first.get_attribute("data-value") if loc.count() else None


def wait_value(page, section: str, testid: str, want: float, timeout: float = 60.0) -> float:
    """Poll until the hook shows `want` (within REL_TOL); return what it last showed."""
    def shown() -> float | None:
        raw = hook(page, section, testid)
        return float(raw) if raw is not None else None
    until(lambda: (got := shown()) is not None and close(got, want), timeout, every_s=0.2)
    return shown()


def page_state(page) -> state.State:
    # location.href, not page.url: Playwright updates page.url from events only while a call of its runs,
    # so a poll that sleeps between looks (harness.until) would read the same URL each time
    st, notes = state.parse_query(urlsplit(page.evaluate("location.href")).query)
    assert not notes, notes
    return st


def number_input(page, section: str, label: str):
    return page.locator(f"#live-{section}[data-live=true]").get_by_label(label, exact=True)


live = live_page(QUERY)


def test_tying_link_loads_V_and_a_changed_d_gives_cpython_counts(live):
    page = live.page
    assert wait_value(page, "tying", "tying-saved", 100 * 16) == 1600  # tying.V=100 from the link
    box = number_input(page, "tying", "d")
    box.fill("7")
    box.press("Enter")
    assert wait_value(page, "tying", "tying-saved", 700) == 700
    st = page_state(page)
    want = tying_view.count(st.tying.V, st.tying.d)
    assert (st.tying.V, st.tying.d) == (100, 7)
    assert float(hook(page, "tying", "tying-tied")) == want["tied"]
    assert close(float(hook(page, "tying", "tying-share")), want["share"])


def test_savings_preset_fills_fields_and_editing_makes_custom(live):
    page = live.page
    live_savings = page.locator("#live-savings[data-live=true]")
    live_savings.get_by_role("button", name="char-model", exact=True).click()
    want = savings.tying_saving(**savings.PRESETS["char-model"])
    assert close(wait_value(page, "savings", "savings-share", want["share"]), want["share"])
    box = number_input(page, "savings", "V")
    # the field and the figure reach the page in separate document patches: the figure can land first
    assert until(lambda: box.input_value() in ("65", "65.0"), 10, every_s=0.1), box.input_value()
    box.fill("1000")
    box.press("Enter")
    want = savings.tying_saving(V=1000, d=256, n_layers=4, d_ff=1024, context=256)
    assert close(wait_value(page, "savings", "savings-share", want["share"]), want["share"])
    st = page_state(page)
    assert st.savings.preset == "custom" and st.savings.V == 1000 and st.savings.d == 256
    assert float(hook(page, "savings", "savings-untied")) == want["untied"]


def test_paper_short_study_from_the_link_then_a_new_seed_match_cpython(live):
    page = live.page
    page.locator("#paper").scroll_into_view_if_needed()
    run = page.locator("#live-paper[data-live=true]").get_by_role("button", name="Run again")
    # settings the build did not run wait for the reader: nothing heavy starts by itself
    run.click()
    want = paper.study(1.0, 40, 0, 1, 0.5)
    assert close(wait_value(page, "paper", "paper-cka-u", want["align"]["cka_with_U"], 120), want["align"]["cka_with_U"])
    assert close(float(hook(page, "paper", "paper-ratio")), want["norms"]["mean_ratio"])
    assert close(float(hook(page, "paper", "paper-lens-drop-tied")), want["lens"]["tied_loss_drop"])
    box = number_input(page, "paper", "seed")
    box.fill("3")
    box.press("Enter")
    run.click()
    want = paper.study(1.0, 40, 3, 1, 0.5)
    assert close(wait_value(page, "paper", "paper-cka-u", want["align"]["cka_with_U"], 120), want["align"]["cka_with_U"])
    assert page_state(page).paper.seed == 3
    assert close(float(hook(page, "paper", "paper-bias")), want["align"]["cka_with_U"] - want["align"]["cka_with_E"])
    assert close(float(hook(page, "paper", "paper-lens-norm-untied")), want["lens"]["untied_norm_share"])


def test_paper_cancel_stops_a_run(live):
    page = live.page
    section = page.locator("#live-paper[data-live=true]")
    # The module's 40 steps can end before Cancel lands (seen under a second test process's load); 5000 cannot.
    section.locator(".wt-ctl-paper-steps .noUi-handle").press("End")
    assert until(lambda: page_state(page).paper.steps == 5000, 30), "the steps slider did not reach 5000"
    section.get_by_role("button", name="Run again").click()
    status = section.locator(".wt-status")
    status.filter(has_text="Step").first.wait_for(state="attached", timeout=30_000)
    section.get_by_role("button", name="Cancel").click()
    status.filter(has_text="Cancelled.").first.wait_for(state="attached", timeout=30_000)
    run_over(page, "#live-paper")  # the worker confirms the study is over: no step can follow
    phase = section.locator('[data-testid="paper-phase"]').first
    before = phase.text_content()
    settle(page)  # a round trip: the worker is idle and every patch it sent is in
    assert "Cancelled." in status.first.text_content()  # not overwritten by a later step or "Done."
    assert phase.text_content() == before != "Now: done."  # the study stopped mid-way and stays stopped
    assert_same_origin(live.rec, live.server.origin)
