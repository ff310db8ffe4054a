"""Results at once, in Chromium: before Python, every run section's prerender already shows the build's
default results (said to be computed at build); at hand-over the live sections show the same numbers
and nothing runs by itself; a modified or missing results.json is named and the section computes live."""
from __future__ import annotations

import shutil

import pytest

from harness import serve, wait_booted
from robust import notes_shown, session, settle
from test_browser_robust_assets import tamper
from weighttying import prebuilt

pytestmark = pytest.mark.browser
RUN_SECTIONS = prebuilt.RUN_SECTIONS

# {section: {"hooks": [[testid, data-value]], "sources": [data-source]}} from the section's content,
# walking shadow roots (the live panes); `sel` picks the prerendered or the live copy.
SHOWN_JS = """([sids, sel]) => { const out = {};
  for (const sid of sids) {
    const top = document.querySelector(sel.replace('ID', sid));
    if (!top) { out[sid] = null; continue; }
    out[sid] = {hooks: __wtTest.all(top, '[data-testid][data-value]').map((e) => [e.dataset.testid, e.dataset.value]),
                sources: __wtTest.all(top, '[data-source]').map((e) => e.dataset.source)};
  } return out; }"""


def shown(page, sel: str) -> dict:
    return page.evaluate(SHOWN_JS, [list(RUN_SECTIONS), sel])


def test_default_results_before_python_and_the_same_at_hand_over(browser, server):
    with session(browser) as s:
        s.page.goto(server.url, wait_until="domcontentloaded")
        before = shown(s.page, "#live-ID .wt-prerender")
        assert s.page.evaluate("() => window.__wt.status") == "booting"  # Python is not up yet
        for sid in RUN_SECTIONS:
            assert before[sid]["sources"] == ["build"], (sid, before[sid])
            assert len(before[sid]["hooks"]) >= 4, (sid, before[sid])
        assert "tasks-aligned-tied" in dict(before["tasks"]["hooks"])
        assert "repeat-trained-tied" in dict(before["repeat"]["hooks"])
        assert "pathdrop-loss-broken" in dict(before["pathdrop"]["hooks"])
        assert "paper-cka-u" in dict(before["paper"]["hooks"])
        wait_booted(s.page)
        settle(s.page, quiet_s=1.5)  # anything that started by itself would be streaming by now: nothing is
        after = shown(s.page, "#live-ID[data-live=true]")
        for sid in RUN_SECTIONS:
            hooks = [h for h in after[sid]["hooks"] if h[0] != "gradcheck-badge" or h[1] != "running"]
            assert sorted(hooks) == sorted(before[sid]["hooks"]), sid
            assert after[sid]["sources"] == ["build"], (sid, after[sid])
        running = s.page.locator("[id^=live-] .wt-status", has_text="Step")
        assert running.count() == 0, running.all_text_contents()
        assert any(u.endswith("/results.json") for _, u, _ in s.rec.requests)
        assert notes_shown(s.page) == []


@pytest.mark.parametrize("how", ["modified", "missing"])
def test_a_bad_results_file_is_named_and_the_section_computes_live(browser, dist_dir, tmp_path, how):
    copy = tmp_path / "dist"
    shutil.copytree(dist_dir, copy)
    if how == "modified":
        tamper(copy / "results.json")
    else:
        for f in copy.glob("results.json*"):
            f.unlink()
    with serve(copy, log_dir=tmp_path) as srv, session(browser) as s:
        s.page.goto(srv.url + "?embed=repeat", wait_until="domcontentloaded")
        wait_booted(s.page)
        notes = " ".join(notes_shown(s.page))
        assert "results.json" in notes and ("was modified" if how == "modified" else "could not load") in notes, notes
        assert "live in your browser" in notes
        # the race the build would have shipped is trained live instead, and says so
        s.page.locator("#live-repeat[data-live=true] [data-source=live]").wait_for(state="attached", timeout=180_000)  # the source line may sit in the closed "Data and downloads"
        assert s.page.locator("#live-repeat[data-live=true] [data-source=build]").count() == 0
