"""The pool of numerics workers in every engine of the matrix (tests/engines.py), served: an off-grid setting
is answered live by a numerics worker before the Panel section goes live, and a pooled Run gives CPython's
numbers. Not in test_engines.py's shared boot: each needs a page of its own (two boots per engine).

One engine alone: `pytest tests/test_engines_pool.py -k webkit` (or firefox, chromium).
"""
from __future__ import annotations

import pytest

from harness import BOOT_TIMEOUT_S
from test_engines import BOOT_END_JS, engine  # noqa: F401  (the module-scoped engine fixture)
from weighttying import tasks

pytestmark = pytest.mark.browser
# The button or status line under #live-tasks, through Panel's shadow roots, holding a text.
FIND_JS = """(sel, text) => { const find = (root) => {
        for (const e of root.querySelectorAll(sel)) if (e.textContent.includes(text)) return e;
        for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { const f = find(e.shadowRoot); if (f) return f; }
        return null; }; return find(document.getElementById('live-tasks')); }"""
VALUES_JS = """() => { const out = {};
  const walk = (root) => root.querySelectorAll('*').forEach((el) => {
    if (el.dataset && el.dataset.value !== undefined && /^tasks-/.test(el.dataset.testid || '')) out[el.dataset.testid] = el.dataset.value;
    if (el.shadowRoot) walk(el.shadowRoot);
  });
  walk(document.getElementById('live-tasks'));
  return out; }"""


def test_an_off_grid_setting_is_live_before_panel(engine, server):  # noqa: F811
    page = engine.open(f"{server.url}?embed=sweep&sweep.sigma=0.0123")
    try:
        page.wait("() => window.__wt && window.__wt.early && window.__wt.early.answered > 0", timeout=BOOT_TIMEOUT_S * 2)
        end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
        assert end["status"] == "ready", end
        got = page.js("() => ({early: __wt.early.shown.sweep.at, live: __wt.timings.live.sweep})")
        assert got["early"] < got["live"], got
    finally:
        page.close()


def test_a_pooled_run_gives_cpythons_numbers(engine, server):  # noqa: F811
    page = engine.open(f"{server.url}?embed=tasks&tasks.seeds=1&tasks.steps=30")
    try:
        end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
        assert end["status"] == "ready", end
        page.click(FIND_JS, "button", "Run the seeds")
        page.wait(f"() => !!({FIND_JS})('.wt-status', 'Done.')", timeout=120)
        assert page.js("() => __wt.pool.started") >= 1
        got = page.js(VALUES_JS)
        for r in tasks.table(seeds=range(1), steps=30):
            slug = r["task"].lower()
            assert abs(float(got[f"tasks-{slug}-tied"]) - r["tied"]) <= 1e-9 * max(1.0, abs(r["tied"])), slug
    finally:
        page.close()

