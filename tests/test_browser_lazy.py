"""Live in view order (site/boot.js, pump): each section is its own Bokeh document, built when Python is free.

- The section the reader has in view goes live first; every other shown section follows.
- While the reader keeps working, Python builds nothing (the playback answers); once the reader pauses, the
  sections near the view are built first, then the rest, and all go live.
- Each section's live time is on window.__wt.timings.live (bench/run.py's first_live_ms and all_live_ms).
"""
from __future__ import annotations

import pytest

from harness import BOOT_TIMEOUT_S, focus_slider
from robust import session, wait_status
from weighttying import state
pytestmark = pytest.mark.browser

TIMINGS_JS = "() => window.__wt.timings"
# The reader's keys, stamped on the page clock as boot.js stamps its own input (a capturing listener).
KEYS_JS = "() => { window.__wtKeys = []; document.addEventListener('keydown', () => window.__wtKeys.push(performance.now()), true); }"
# The test's keys come every ~250-300 ms: a build asked sooner than this after one came while the reader was
# still at work (site/boot.js waits IDLE_MS = 600 after the last input). A pause this long or longer, which a
# loaded machine can make between two keys, may see a build: that is the design.
WORKING_MS = 500


def test_the_section_in_view_goes_live_first(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "#savings")  # far down the page: the top sections are out of view
        wait_status(page, "ready")
        live = page.evaluate(TIMINGS_JS)["live"]
        assert set(live) == set(state.SECTIONS), live
        order = sorted(live, key=live.get)
        print(f"[lazy] order live with #savings in view: {order}")
        assert order[0] == "savings", f"the section in view was not the first live: {order}"
        assert page.locator("[data-live=true]").count() == len(state.SECTIONS)


def test_of_two_sections_in_view_the_one_filling_more_of_it_goes_live_first(browser, server):
    with session(browser) as s:
        page = s.page
        before = state.SECTIONS[state.SECTIONS.index("sweep") - 1]  # the section the page shows above the sweep
        page.goto(server.url + "#sweep")
        # The last 100 px of the block above at the top, sweep's heading, prose and block below it.
        page.evaluate(f"() => window.scrollBy(0, document.getElementById('live-{before}').getBoundingClientRect().bottom - 100)")
        seen = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.wt-live[id^=live-]')].map((el) => {
            const r = el.getBoundingClientRect();
            return [el.id.slice(5), Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0))];
        }).filter(([, px]) => px > 0))""")
        assert seen.get(before, 0) > 0 and seen["sweep"] > seen[before], seen
        wait_status(page, "ready")
        live = page.evaluate(TIMINGS_JS)["live"]
        order = sorted(live, key=live.get)
        print(f"[lazy] in view {seen}; order live: {order}")
        assert order[0] == max(seen, key=seen.get), f"in view {seen}, but live first: {order}"


def test_sections_wait_while_the_reader_works(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "#sweep")
        page.wait_for_selector("#live-sweep[data-live=true]", timeout=BOOT_TIMEOUT_S * 1000)
        page.evaluate(KEYS_JS)
        for i in range(16):  # ~4 s of a reader stepping a live slider (far more often than boot.js's IDLE_MS)
            focus_slider(page, "sweep.sigma")
            page.keyboard.press("ArrowRight" if i % 2 else "ArrowLeft")
            page.wait_for_timeout(250)  # fixed: a reader's pace between keys is the thing under test
        keys = page.evaluate("() => window.__wtKeys")
        near = set(page.evaluate("() => [...window.__wt.near]"))
        timings = page.evaluate(TIMINGS_JS)
        asked = {sid: timings.get(f"asked:{sid}") for sid in state.SECTIONS}
        quiet = {sid: t - max(k for k in keys if k <= t) for sid, t in asked.items() if t is not None and t > keys[0]}
        during = {sid: round(q) for sid, q in quiet.items() if q < WORKING_MS}
        gaps = [b - a for a, b in zip(keys, keys[1:])]
        print(f"[lazy] near #sweep: {sorted(near)}; asked while the reader worked (ms after a key): {during}; "
              f"key gaps {min(gaps):.0f}-{max(gaps):.0f} ms")
        assert len(keys) == 16 and sum(g < WORKING_MS for g in gaps) >= len(gaps) // 2, f"the reader hardly worked: {gaps}"
        assert near and near < set(state.SECTIONS), f"near the viewport: {near}"
        assert not during, f"sections built while the reader was working: {during}"
        assert set(state.SECTIONS) - set(timings["live"]), "every section was live already: nothing was tested"
        wait_status(page, "ready")  # idle now: the rest follow
        assert set(page.evaluate(TIMINGS_JS)["live"]) == set(state.SECTIONS)
