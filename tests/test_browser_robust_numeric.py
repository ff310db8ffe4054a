"""Numerical extremes and concurrency in the browser.

Extremes: every log-scale control of the page's sections (sigma, inScale, learning rates...) at its
bounds, 1e-8 .. 1e8 for sigma/inScale, set through the URL: one boot with all of them at their lower
bounds, one at their upper bounds (sections without a log control hidden, so not built), and the
sweep's two mixed corners on ?embed=sweep. The page stays live with no error box, every live
section's text is free of tracebacks, and the sweep shows exactly CPython's numbers (overflow/NaN
cells named as such by render.num). Learning rates that diverge: in the upper-bound boot every live
section with a Runner and an lr control is run, one after the other, and must say "Diverged" in its
status line while the other sections' text stays as it was.

Concurrency (on ?embed=sweep): a slider is hammered with key presses faster than the worker answers. The change queue
holds at most one event per (model, attribute) and does not grow with the presses, and when the page settles the URL holds the slider's last
position and the readout equals CPython's value for it (stale results were dropped).
"""
from __future__ import annotations

import math
import re

import pytest

from harness import focus_slider, slider_title, sweep_readout
from robust import booted, error_box, live_sections, poll, runner_sections, section_text, session, settle, wait_status
from weighttying import render
from weighttying import state
from weighttying import sweep
from carried_numbers import near

pytestmark = pytest.mark.browser

PRESSES = 40


def boot_with(page, query: str) -> None:
    page.evaluate("(q) => history.replaceState(null, '', q ? '?' + q : location.pathname)", query)
    page.evaluate("() => { window.__wt.restart(); }")
    wait_status(page, "ready")
    settle(page)


def check_sweep(page, where: str) -> None:
    st, _ = state.parse_query(page.evaluate("() => location.search.slice(1)"))
    want = sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    text = page.locator("#live-sweep [data-testid=sweep-readout]").inner_text()
    for k in ("resid", "logit"):
        assert render.num(float(want[k])) in text, f"{where}: {k} should read {render.num(float(want[k]))}: {text!r}"


def page_sections(page) -> list[str]:
    """Every section of the page that has a live slot, live or not (in page order)."""
    return page.evaluate("() => [...document.querySelectorAll('[id^=\"live-\"]')].map((e) => e.id.slice(5))")


def test_extremes_and_divergence(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url)
        sections = page_sections(page)
        log_controls = [c for c in state.CONTROLS if c.log and c.section in sections]
        assert any(c.key == "sweep.sigma" for c in log_controls), log_controls
        # Sections without a log-scale control have nothing to push to an extreme here: not built.
        hide = ",".join(sid for sid in sections if sid not in {c.section for c in log_controls})
        some = f"hide={hide}" if hide else ""
        # Every section's log controls at their lower bounds at once (sections do not share controls), then
        # at their upper bounds, then the sweep's mixed corners, on the sweep alone.
        sweep_keys = [c for c in log_controls if c.section == "sweep"]
        settings = [(some, {c: "lo" for c in log_controls}), (some, {c: "hi" for c in log_controls}),
                    ("embed=sweep", {sweep_keys[0]: "lo", sweep_keys[1]: "hi"}),
                    ("embed=sweep", {sweep_keys[0]: "hi", sweep_keys[1]: "lo"})]
        tried, diverged = [], []
        for scope, ends in settings:
            query = "&".join([scope] * bool(scope) + [f"{c.key}={state.fmt(getattr(c, end))}" for c, end in ends.items()])
            boot_with(page, query)
            assert not error_box(page)["shown"], (query, error_box(page))
            live = live_sections(page)
            assert set(live) == {c.section for c in ends}, (query, live)
            for sid in live:
                text = section_text(page, sid)
                assert "Traceback" not in text and "Error:" not in text, (query, sid, text[:300])
            check_sweep(page, query)
            tried.append(query)
            if set(ends.values()) == {"hi"}:
                diverged = run_all_diverging(page)
        assert page.evaluate("() => window.__wt.crashes") == []
        assert not s.rec.page_errors and not s.watch()["rejections"], (s.rec.page_errors, s.watch())
        print(f"[extremes] {len(tried)} boots of extreme settings over {sorted({c.key for c in log_controls})}; "
              f"divergence reported in {diverged or 'no live section with a Runner and lr yet'}")


def run_all_diverging(page) -> list[str]:
    """Every live section with a Runner and an lr control (at lr's upper bound) is run, one after the other:
    each must say "Diverged", and no other section's text may change meanwhile."""
    lrs = [state.BY_KEY[f"{sid}.lr"] for sid in runner_sections(page) if f"{sid}.lr" in state.BY_KEY]
    st, _ = state.parse_query(page.evaluate("() => location.search.slice(1)"))
    assert all(state.values(st)[c.key] == c.hi for c in lrs), [(c.key, state.values(st)[c.key]) for c in lrs]
    before = {sid: section_text(page, sid) for sid in live_sections(page)}
    for c in lrs:
        status = run_to_end(page, c.section, c.key)
        assert "Diverged" in status, f"{c.section} at lr={c.hi}: {status!r}"
        for other in live_sections(page):
            if other not in {x.section for x in lrs}:
                assert section_text(page, other) == before[other], f"divergence in {c.section} changed {other}"
    return [c.section for c in lrs]


def run_to_end(page, sid: str, where: str) -> str:
    """Click the section's training Run and wait for its status line to say how the run ended."""
    # a section may have more than one Runner (pathdrop recomputes its central differences too): the one
    # that trains is named Train... or Run...
    page.locator(f"#live-{sid} .bk-btn-primary").filter(has_text=re.compile(r"^\s*(Train|Run)")).first.click()
    text = poll(page, """(sid) => {
        const t = __wtTest.all(document.getElementById('live-' + sid), '.wt-status').map((e) => e.textContent).join(' ');
        return /Diverged|Done|Stopped|Cancelled/.test(t) && t; }""", sid, timeout_s=180, every_s=0.25,
                what=f"{sid}'s run to end ({where})")
    assert "Stopped:" not in text, f"{where}: the run failed: {text!r}"
    return text


def test_sliders_faster_than_the_worker(browser, server):
    with booted(browser, server, query="embed=sweep") as s:
        page = s.page
        sent0 = page.evaluate("() => window.__wt.patchesSent")
        focus_slider(page, "sweep.sigma")
        high = 0
        for i in range(PRESSES):
            page.keyboard.press("ArrowRight")
            if i % 5 == 0:
                q = page.evaluate("""() => window.__wt.lab.schedule.queue.map(({ event: e }) => (e.model && e.model.id) + '.' + e.attr)""")
                assert len(q) == len(set(q)), f"two queued events for one attribute: {q}"
                high = max(high, len(q))
        focus_slider(page, "sweep.in_scale")
        for i in range(PRESSES // 2):
            page.keyboard.press("ArrowLeft")
        settle(page, quiet_s=0.5)
        high = max(high, page.evaluate("() => window.__wt.queueHighWater"))
        sent = page.evaluate("() => window.__wt.patchesSent") - sent0
        # The last setting: what the slider handles show now.
        # The exact slider values in the page's Bokeh document (aria-valuenow is rounded to 0.1).
        pos = page.evaluate("""(titles) => { const out = {};
            for (const doc of Bokeh.documents) for (const m of doc.all_models) {
              const name = titles[m.title];
              if (name && typeof m.value === 'number') out[name] = m.value;
            } return out; }""", {slider_title(f"sweep.{name}"): name for name in ("sigma", "in_scale")})
        st, notes = state.parse_query(page.evaluate("() => location.search.slice(1)"))
        assert not notes
        for name in ("sigma", "in_scale"):
            assert math.isclose(math.log10(getattr(st.sweep, name)), pos[name], abs_tol=0.003), \
                f"the URL's {name}={getattr(st.sweep, name)} is not the slider's last position 10**{pos[name]}"
        # No press was lost: a late echo of an older value must not pull the handle back mid-burst.
        d = state.State().sweep
        for name, start, steps in (("sigma", d.sigma, PRESSES), ("in_scale", d.in_scale, -(PRESSES // 2))):
            want_log = math.log10(start) + 0.01 * steps
            assert abs(math.log10(getattr(st.sweep, name)) - want_log) < 0.03, \
                f"{name} ended at {getattr(st.sweep, name)}, not 10**{want_log:.3f}: key presses were lost"
        got, want = sweep_readout(page), sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
        for k in ("resid", "logit"):
            assert near(got[k], want[k]), (k, got, want)
        # Bounded by the attributes that changed (slider values, and plot sizes when text reflows), not by
        # the presses: one entry per (model, attribute), so it cannot grow with a longer burst.
        assert high < PRESSES // 2, f"the change queue grew to {high} over {PRESSES} presses"
        assert not error_box(page)["shown"], error_box(page)
        print(f"[concurrency] {PRESSES + PRESSES // 2} key presses -> {sent} patches sent; queue high-water {high}; "
              f"final sigma={st.sweep.sigma} in_scale={st.sweep.in_scale} match CPython")
