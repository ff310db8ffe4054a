"""Your own text in Firefox and WebKit (tests/engines.py; Chromium's side is test_browser_owntext.py), served, one
page visit each:

  - before Python, choosing each shipped sample answers at once with CPython's numbers (the playback tables),
    and a move of steps is taken by the live lab once it has loaded;
  - live, a pasted text trains with Run: the hooks change, are finite and are CPython's for that text;
  - a paste too short to train on is named, and the results shown stay;
  - nothing is requested off the origin, from the paste to the end.

One engine alone: `pytest tests/test_engines_owntext.py -k webkit` (or firefox).
"""
from __future__ import annotations

import math
import time

import pytest

import engines
from harness import BOOT_TIMEOUT_S, HELPERS_JS, until
from test_browser_owntext import HOOKS, close, cpython, text_of
from test_browser_player import VALUES_JS, cpython_values, mismatches
from test_engines import BOOT_END_JS, FIND_JS, RESOURCES_JS, engine_fixture

pytestmark = pytest.mark.browser
engine = engine_fixture([e for e in engines.ENGINES if e != "chromium"])
# Off the playback grid (its nearest is shown, marked): WebKit's Pyodide takes ~50 ms a step on this box, so a
# live Run of both models stays a few seconds.
STEPS = 50
# A playback control of the section set as a reader's input would (its change event): the boot's status then.
PLAY_JS = """(id, value) => { const el = document.getElementById(id); el.value = value;
  el.dispatchEvent(new Event('change', {bubbles: true})); return window.__wt && window.__wt.status; }"""
# The live text box given a text as a paste would (Bokeh's TextAreaInput reads its value on change).
PASTE_JS = "(text) => {" + HELPERS_JS + """
  const box = __wtTest.deep(document.getElementById('live-owntext'), 'textarea');
  box.value = text; box.dispatchEvent(new Event('input')); box.dispatchEvent(new Event('change')); }"""


def shown(page) -> dict:
    return page.js(VALUES_JS, "owntext")


def test_samples_before_python_then_a_paste_trains_here(engine, server):
    t0 = time.monotonic()
    page = engine.open(f"{server.url}?embed=owntext")
    try:
        page.wait("() => !!(window.__wt && window.__wt.player && window.__wt.player.loaded.owntext)", timeout=60)
        for name in ("code", "song", "prose"):
            status = page.js(PLAY_JS, "wt-p-owntext-sample", name)
            want = cpython_values("owntext", f"owntext.sample={name}")
            until(lambda: not mismatches(shown(page), want), timeout_s=30)
            bad = mismatches(shown(page), want)
            assert status == "booting" and not bad and "owntext-heldout-tied" in want, (name, status, bad)
        assert page.js(PLAY_JS, "wt-p-owntext-steps-box", str(STEPS)) == "booting"
        end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
        assert end["status"] == "ready", end
        print(f"[{engine.name}] booted in {time.monotonic() - t0:.1f} s")
        assert f"owntext.steps={STEPS}" in page.js("() => location.search")

        before, text = shown(page), text_of(4)
        page.js(PASTE_JS, text)
        page.wait(f"() => !!({FIND_JS})('owntext', '[data-testid=owntext-input]', 'Ready: your pasted text')", timeout=30)
        t = time.monotonic()
        page.click(FIND_JS, "owntext", "button", "Run")
        page.wait(f"() => !!({FIND_JS})('owntext', '.wt-status', 'Done.')", timeout=120)
        print(f"[{engine.name}] a pasted text's run ({2 * STEPS} steps): {time.monotonic() - t:.1f} s")
        got, want = {h: float(v) for h, v in shown(page).items() if h in HOOKS}, cpython(text, STEPS)
        assert all(math.isfinite(x) for x in got.values()) and all(close(got[h], want[h]) for h in HOOKS), (got, want)
        assert got != {h: float(v) for h, v in before.items() if h in HOOKS}

        trained = shown(page)
        page.js(PASTE_JS, "too short " * 5)
        page.wait(f"() => !!({FIND_JS})('owntext', '[data-testid=owntext-input]', 'at least 200 are needed')", timeout=30)
        page.click(FIND_JS, "owntext", "button", "Run")
        page.wait(f"() => !!({FIND_JS})('owntext', '.wt-status.wt-bad', 'at least 200 are needed')", timeout=30)
        assert shown(page) == trained

        assert page.refused() == [], page.refused()
        off = [r for r in page.js(RESOURCES_JS) if not r.startswith((server.url, "blob:", "data:"))]
        assert off == [], off
        assert text[:40] not in page.js("() => location.href")
        print(f"[{engine.name}] the visit: {time.monotonic() - t0:.1f} s")
    finally:
        page.close()
