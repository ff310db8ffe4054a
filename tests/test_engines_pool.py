"""The pool of numerics workers in every engine of the matrix (tests/engines.py), served: an off-grid setting
is answered by a numerics worker with the bytes the Panel section then shows. Not in test_engines.py's shared
boot, which checks a playback press against the grid: this page opens off it. (A pooled Run is checked on that
shared boot, served and from the file.)

One engine alone: `pytest tests/test_engines_pool.py -k webkit` (or firefox, chromium).
"""
from __future__ import annotations

import pytest

from harness import BOOT_TIMEOUT_S
from test_engines import BOOT_END_JS, engine  # noqa: F401  (the module-scoped engine fixture)

pytestmark = pytest.mark.browser
OFF_GRID = "sweep.sigma=0.0123"
# The pool's answer for a query, each slot parsed by this engine, against the live section's slots (shadow roots).
SAME_JS = """async (query) => {
  const answer = JSON.parse(await __wt.pool.ask({section: 'sweep', query})), live = {};
  const walk = (root) => root.querySelectorAll('*').forEach((el) => {
    if (el.classList.contains('wt-slot') && !(el.dataset.slot in live)) live[el.dataset.slot] = el.innerHTML;
    if (el.shadowRoot) walk(el.shadowRoot);
  });
  walk(document.getElementById('live-sweep'));
  const parsed = (html) => { const d = document.createElement('div'); d.innerHTML = html; return d.innerHTML; };
  const names = Object.keys(answer);
  return {names, differ: names.filter((n) => parsed(answer[n]) !== live[n])};
}"""


def test_an_off_grid_answer_is_the_live_sections_bytes(engine, server):  # noqa: F811  (the fixture imported above)
    """The page asks a numerics worker for the off-grid setting it opens at; whether that answer is shown before
    Panel is a race under load (Chromium holds Panel back to test it: test_browser_early.py). Once live, the
    worker's answer for the setting, parsed by this engine, is what the Panel section shows, slot for slot."""
    page = engine.open(f"{server.url}?embed=sweep&{OFF_GRID}")
    try:
        end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
        assert end["status"] == "ready", end
        assert page.js("() => __wt.early.asked") >= 1
        print(f"[{engine.name}] early answer shown before Panel: {page.js('() => __wt.early.answered') > 0}")
        got = page.js(SAME_JS, OFF_GRID)
        assert got["names"] and not got["differ"], got
    finally:
        page.close()
