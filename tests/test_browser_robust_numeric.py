"""Numerical extremes and concurrency in the browser.

Extremes: every log-scale control of the live sections (sigma, inScale, learning rates...) at its
bounds, 1e-8 .. 1e8 for sigma/inScale, set through the URL (one boot sets all of a section's log
controls at once). The page stays live with no error box, every live section's text is free of
tracebacks, the sweep shows exactly CPython's numbers (overflow/NaN cells named as such by
render.num), and the other sections show what they show at the default state. Learning rates that
diverge: every live section with a Runner and an lr control is run at lr's upper bound and must say
"Diverged" in its status line.

Concurrency: a slider is hammered with key presses faster than the worker answers. The per-attribute
queue never holds more than a few events, and when the page settles the URL holds the slider's last
position and the readout equals CPython's value for it (stale results were dropped).
"""
from __future__ import annotations

import math

import pytest

from conftest import focus_slider, sweep_readout
from robust import error_box, live_sections, poll, runner_sections, section_text, session, settle, wait_status
from weighttying import render as R
from weighttying import state as S
from weighttying import sweep

pytestmark = pytest.mark.browser

PRESSES = 40


def boot_with(page, query: str) -> None:
    page.evaluate("(q) => history.replaceState(null, '', q ? '?' + q : location.pathname)", query)
    page.evaluate("() => { window.__wt.restart(); }")
    wait_status(page, "ready")
    settle(page)


def check_sweep(page, where: str) -> None:
    st, _ = S.parse_query(page.evaluate("() => location.search.slice(1)"))
    want = sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    text = page.locator("#live-sweep [data-testid=sweep-readout]").inner_text()
    for k in ("resid", "logit"):
        assert R.num(float(want[k])) in text, f"{where}: {k} should read {R.num(float(want[k]))}: {text!r}"


def test_extremes_and_divergence(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url)
        wait_status(page, "ready")
        settle(page)
        live = live_sections(page)
        default_text = {sid: section_text(page, sid) for sid in live}
        log_controls = [c for c in S.CONTROLS if c.log and c.section in live]
        assert any(c.key == "sweep.sigma" for c in log_controls), log_controls
        tried = []
        for section in sorted({c.section for c in log_controls}):
            mine = [c for c in log_controls if c.section == section]
            corners = [("lo", "lo"), ("hi", "hi"), ("lo", "hi"), ("hi", "lo")] if len(mine) == 2 else [("lo",), ("hi",)]
            for corner in corners:
                query = "&".join(f"{c.key}={S.fmt(getattr(c, end))}" for c, end in zip(mine, corner * len(mine)))
                boot_with(page, query)
                where = f"{query}"
                assert not error_box(page)["shown"], (where, error_box(page))
                for sid in live_sections(page):
                    text = section_text(page, sid)
                    assert "Traceback" not in text and "Error:" not in text, (where, sid, text[:300])
                    if sid != section:
                        assert text == default_text[sid], f"{where}: section {sid} changed"
                if section == "sweep":
                    check_sweep(page, where)
                for sid in runner_sections(page):
                    if sid == section:
                        run_to_end(page, sid, where)
                tried.append(query)
        # Learning rates that diverge.
        diverged = []
        for sid in runner_sections(page):
            lr = S.BY_KEY.get(f"{sid}.lr")
            if lr is None:
                continue
            boot_with(page, f"{lr.key}={S.fmt(lr.hi)}")
            status = run_to_end(page, sid, lr.key)
            assert "Diverged" in status, f"{sid} at lr={lr.hi}: {status!r}"
            for other in live_sections(page):
                if other != sid:
                    assert section_text(page, other) == default_text[other], f"divergence in {sid} changed {other}"
            diverged.append(sid)
        assert page.evaluate("() => window.__wt.crashes") == []
        assert not s.rec.page_errors and not s.watch()["rejections"], (s.rec.page_errors, s.watch())
        print(f"[extremes] {len(tried)} extreme settings over {sorted({c.key for c in log_controls})}; "
              f"divergence reported in {diverged or 'no live section with a Runner and lr yet'}")


def run_to_end(page, sid: str, where: str) -> str:
    """Click the section's Run and wait for its status line to say how the run ended."""
    page.locator(f"#live-{sid} .bk-btn-primary").first.click()
    text = poll(page, """(sid) => { const parts = [];
        (function walk(r) { for (const e of r.querySelectorAll('.wt-status')) parts.push(e.textContent);
          for (const e of r.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot); })(document.getElementById('live-' + sid));
        const t = parts.join(' ');
        return /Diverged|Done|Stopped|Cancelled/.test(t) && t; }""", sid, timeout_s=180, every_s=0.25,
                what=f"{sid}'s run to end ({where})")
    assert "Stopped:" not in text, f"{where}: the run failed: {text!r}"
    return text


def test_sliders_faster_than_the_worker(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url)
        wait_status(page, "ready")
        settle(page)
        sent0 = page.evaluate("() => window.__wt.patchesSent")
        focus_slider(page, "sweep.sigma")
        high = 0
        for i in range(PRESSES):
            page.keyboard.press("ArrowRight")
            if i % 5 == 0:
                high = max(high, page.evaluate("() => window.__wt.worker.queue.length"))
        focus_slider(page, "sweep.in_scale")
        for i in range(PRESSES // 2):
            page.keyboard.press("ArrowLeft")
        settle(page, quiet_s=0.5)
        high = max(high, page.evaluate("() => window.__wt.queueHighWater"))
        sent = page.evaluate("() => window.__wt.patchesSent") - sent0
        # The last setting: what the slider handles show now.
        # The exact slider values in the page's Bokeh document (aria-valuenow is rounded to 0.1).
        pos = page.evaluate("""() => { const out = {};
            for (const doc of Bokeh.documents) for (const m of doc.all_models) {
              const t = m.title;
              if (typeof t === 'string' && t.endsWith(' (log scale)') && typeof m.value === 'number') out[t.split(' ')[0]] = m.value;
            } return out; }""")
        st, notes = S.parse_query(page.evaluate("() => location.search.slice(1)"))
        assert not notes
        for name in ("sigma", "in_scale"):
            assert math.isclose(math.log10(getattr(st.sweep, name)), pos[name], abs_tol=0.003), \
                f"the URL's {name}={getattr(st.sweep, name)} is not the slider's last position 10**{pos[name]}"
        got, want = sweep_readout(page), sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
        for k in ("resid", "logit"):
            assert abs(got[k] - float(want[k])) <= 1e-9 * abs(float(want[k])), (k, got, want)
        assert high <= 4, f"the change queue grew to {high}"
        assert not error_box(page)["shown"], error_box(page)
        print(f"[concurrency] {PRESSES + PRESSES // 2} key presses -> {sent} patches sent; queue high-water {high}; "
              f"final sigma={st.sweep.sigma} in_scale={st.sweep.in_scale} match CPython")
