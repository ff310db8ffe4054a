"""Your own text in Firefox and WebKit (tests/engines.py; Chromium's side is test_browser_owntext.py), served, one
page visit each:

  - before Python (?live=click), choosing each shipped sample answers at once with CPython's numbers (the
    playback tables); a move of steps, and a file chosen (read there, by Python's rule), are taken by the live lab
    once the reader starts it;
  - live, a pasted text trains with Run: the hooks change, are finite and are CPython's for that text;
  - every text and file the section refuses is named, and the results shown stay; a file dropped on the
    section is read, one dropped outside it is taken in place;
  - Cancel stops a long run, and nothing then claims to be trained;
  - nothing is requested off the origin, from the paste to the end.

One engine alone: `pytest tests/test_engines_owntext.py -k webkit` (or firefox).
"""
from __future__ import annotations

import math
import time

import pytest

import engines
from harness import BOOT_TIMEOUT_S, HELPERS_JS, until
from test_browser_owntext import BAD_FILES, BAD_PASTES, FILE_JS, HOOKS, close, cpython, text_of
from test_browser_player import VALUES_JS, cpython_values, mismatches
from test_browser_repeat import FOCUS_JS
from test_engines import BOOT_END_JS, FIND_JS, RESOURCES_JS, engine_fixture
from weighttying import state
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
FOCUS_SLIDER_JS = "(args) => {" + HELPERS_JS + "return (" + FOCUS_JS + ")(args); }"
# What the playback's file box said of the file chosen in it, once it is TEXT.
CHOSEN_JS = "(text) => { const s = document.querySelector('#live-owntext .wt-player .wt-file-said'); return !!s && s.textContent === text; }"


def shown(page) -> dict:
    return page.js(VALUES_JS, "owntext")


def said(page, selector: str, text: str, timeout: float = 30) -> None:
    """Wait until an element of the live section matching SELECTOR says TEXT."""
    page.wait(f"(sel, text) => !!({FIND_JS})('owntext', sel, text)", selector, text, timeout=timeout)


def refusals_keep_the_results(page) -> None:
    """Every bad paste and bad file is named and changes no result shown; then a good file dropped is read."""
    trained = shown(page)
    for raw, message in BAD_PASTES:
        page.js(PASTE_JS, raw)
        said(page, "[data-testid=owntext-input]", message)
        page.click(FIND_JS, "owntext", "button", "Run")
        said(page, ".wt-status.wt-bad", message)
        assert shown(page) == trained, message
    for name, run, times, message in BAD_FILES:
        page.js(FILE_JS, [name, list(run), times, "choose"])
        said(page, "[role=alert]", message)
        assert shown(page) == trained, message
    text = text_of(2)
    assert page.js(FILE_JS, ["elsewhere.txt", list(b"x"), 300, "drop-page"])  # taken in place, and nowhere
    assert page.js(FILE_JS, ["mine.txt", list(text.encode()), 1, "drop"])
    said(page, "[role=status]", f"Read mine.txt: {len(text):,} characters")
    said(page, "[data-testid=owntext-input]", "Ready: the file you chose")


def cancel_stops_a_long_run(page) -> None:
    """The steps slider to its end (5000 a model), Run, Cancel: the run says so, and no result claims training."""
    assert page.js(FOCUS_SLIDER_JS, ["owntext", "steps"]) is None
    page.press("End")
    assert until(lambda: "owntext-heldout-tied" not in shown(page), timeout_s=30), "the new steps kept the old run"
    page.click(FIND_JS, "owntext", "button", "Run")
    said(page, ".wt-status", f"of {2 * 5000}", timeout=120)  # both models' steps
    page.click(FIND_JS, "owntext", "button", "Cancel")
    said(page, ".wt-status", "Cancelled.", timeout=60)
    assert "owntext-heldout-tied" not in shown(page)


def test_samples_before_python_then_a_paste_trains_here(engine, server):
    t0 = time.monotonic()
    page = engine.open(f"{server.url}?embed=owntext&live=click")  # Python waits for the reader's go
    try:
        page.wait("() => !!(window.__wt && window.__wt.player && window.__wt.player.loaded.owntext"
                  " && document.getElementById('wt-p-owntext-sample'))", timeout=60)  # its table asked, its body parsed
        for name in ("code", "song", "prose"):
            status = page.js(PLAY_JS, "wt-p-owntext-sample", name)
            want = cpython_values("owntext", f"owntext.sample={name}")
            until(lambda: not mismatches(shown(page), want), timeout_s=30)
            bad = mismatches(shown(page), want)
            assert status == "paused" and not bad and "owntext-heldout-tied" in want, (name, status, bad)
        assert page.js(PLAY_JS, "wt-p-owntext-steps-box", str(STEPS)) == "paused"
        chosen = text_of(6) + "é ✓ 𝄞\n"  # read here by Python's rule: characters are code points
        assert page.js(FILE_JS, ["chosen.txt", list(chosen.encode()), 1, "choose"])
        page.wait(CHOSEN_JS, state.FILE_SAYS["read"].format(name="chosen.txt", chars=f"{len(chosen):,}"), timeout=30)
        page.click("() => document.getElementById('wt-go')")
        end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
        assert end["status"] == "ready", end
        print(f"[{engine.name}] booted in {time.monotonic() - t0:.1f} s")
        assert f"owntext.steps={STEPS}" in page.js("() => location.search")
        said(page, "[data-testid=owntext-input]", f"Ready: the file you chose ({len(chosen):,} characters)")

        before, text = shown(page), text_of(4)
        page.js(PASTE_JS, text)
        said(page, "[data-testid=owntext-input]", "Ready: your pasted text")
        t = time.monotonic()
        page.click(FIND_JS, "owntext", "button", "Run")
        said(page, ".wt-status", "Done.", timeout=120)
        print(f"[{engine.name}] a pasted text's run ({2 * STEPS} steps): {time.monotonic() - t:.1f} s")
        got, want = {h: float(v) for h, v in shown(page).items() if h in HOOKS}, cpython(text, STEPS)
        assert all(math.isfinite(x) for x in got.values()) and all(close(got[h], want[h]) for h in HOOKS), (got, want)
        assert got != {h: float(v) for h, v in before.items() if h in HOOKS}

        refusals_keep_the_results(page)
        cancel_stops_a_long_run(page)

        assert page.refused() == [], page.refused()
        off = [r for r in page.js(RESOURCES_JS) if not r.startswith((server.url, "blob:", "data:"))]
        assert off == [], off
        assert text[:40] not in page.js("() => location.href")
        print(f"[{engine.name}] the visit: {time.monotonic() - t0:.1f} s")
    finally:
        page.close()
