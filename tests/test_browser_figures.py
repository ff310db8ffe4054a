"""Figures in Chromium: sweep's ring at the current setting sits exactly over its heatmap, before Python
(prerender) and live; a live figure downloads as an SVG file carrying the link that reproduces it."""
from __future__ import annotations

import pytest

from harness import until, wait_booted
from robust import session

pytestmark = pytest.mark.browser

# Bounding boxes of the figure slot's SVG and of its overlay's, inside #live-sweep (shadow roots walked).
BOXES_JS = """([base, over]) => { const out = {};
  for (const name of [base, over]) {
    const svg = __wtTest.deep(document.getElementById('live-sweep'), `.wt-slot[data-slot="${name}"] svg`);
    if (svg) { const r = svg.getBoundingClientRect(); out[name] = [r.x, r.y, r.width, r.height]; }
  }
  return out; }"""


def boxes(page) -> dict:
    return page.evaluate(BOXES_JS, ["resid", "resid_at"])


def same_place(b: dict) -> bool:
    return len(b) == 2 and b["resid"][2] > 100 and all(abs(x - y) <= 1 for x, y in zip(b["resid"], b["resid_at"]))


def test_ring_over_the_heatmap_before_and_after_python_and_the_figure_downloads(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "?embed=sweep&sweep.sigma=0.5", wait_until="domcontentloaded")
        page.locator("#live-sweep .wt-prerender .wt-stack").first.wait_for()
        assert same_place(boxes(page)), boxes(page)
        wait_booted(page)
        page.locator("#live-sweep[data-live=true] [data-slot=resid_at] circle").wait_for()
        assert until(lambda: same_place(boxes(page)), 10), boxes(page)  # once layout settles after the hand-over
        page.locator("#live-sweep .wt-data .card-header").first.click()  # downloads live in "Data and downloads"
        with page.expect_download() as info:
            page.locator("#live-sweep").get_by_role("button", name="Download figure (SVG)").first.click()
        svg = open(info.value.path()).read()
        assert info.value.suggested_filename == "sweep-resid.svg"
        assert svg.startswith("<svg") and 'class="wt-at"' in svg and "?sweep.sigma=0.5" in svg and "#sweep</text>" in svg
