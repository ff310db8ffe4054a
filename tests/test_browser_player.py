"""Playback before Python (site/player.js over weighttying.playback's tables), in real Chromium.

- ?live=click: no Python file is requested; every playable section's controls exist from the first parse;
  a slider press changes its section's slots at once, to exactly what CPython's views.<id>.slots says;
  sampled grid points play back the values CPython computes, and after the button the live lab shows
  the same values (1e-12 relative) for the same points.
- An off-grid value is marked approximate (the nearest grid answer), then the live lab shows the exact one.
- The hand-over from playback to live moves nothing (Chromium's layout-shift entries, summed).
- A playback table that is missing or modified is named in its section, which falls back to live.
"""
from __future__ import annotations

import functools
import html
import math
import re
from urllib.parse import urlsplit

import numpy as np
import pytest

from harness import BOOT_TIMEOUT_S, HELPERS_JS, STATUS_FIRST_JS, type_played, until
from robust import session, settle, wait_status
from weighttying import state
from weighttying.prerender import view
from weighttying.views import kit
import carried_numbers

pytestmark = pytest.mark.browser

PLAYABLE = [sid for sid in state.SECTIONS if view(sid) is not None]
SAMPLES = 3  # random grid points per section, besides the default
# Both sides are carried numbers (weighttying.precision): the browser's and CPython's differ at most in the last
# carried digit, where their last bits put them on two sides of a rounding edge.
REL = carried_numbers.REL
HOOK = re.compile(r'data-testid="([^"]+)" data-value="([^"]*)"')

VALUES_JS = """(sid) => {""" + HELPERS_JS + """
  // (carries the helpers itself: test_engines.py runs it in engines whose pages have no test init script)
  // {testid: data-value} of every hook in #live-SID, shadow roots included (the first of each id counts).
  const out = {};
  for (const e of __wtTest.all(document.getElementById(`live-${sid}`), '[data-testid][data-value]'))
    if (!(e.dataset.testid in out)) out[e.dataset.testid] = e.dataset.value;
  return out; }"""
SLOTS_JS = """(sid) => Object.fromEntries([...document.querySelectorAll(`#live-${sid} .wt-slot[data-slot]`)]
  .map((e) => [e.dataset.slot, e.innerHTML]))"""
CLS_JS = """window.__wtShifts = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__wtShifts.push(
  {value: e.value, input: e.hadRecentInput, t: e.startTime}); }).observe({type: 'layout-shift', buffered: true});"""


@functools.lru_cache(maxsize=None)
def cpython_values(sid: str, query: str) -> dict[str, str]:
    """{testid: data-value} of a section at the state of a URL query, computed here in CPython as the build
    does (views.<sid>.slots with the run results that state shows)."""
    st = getattr(state.parse_query(query)[0], sid)
    v = view(sid)
    return {k: html.unescape(x) for frag in v.slots(st, kit.with_results(v, st)).values() for k, x in HOOK.findall(frag)}


def mismatches(got: dict, want: dict, common: bool = False) -> list[str]:
    """Hooks of want missing from got (unless common: only hooks both have count) or differing beyond REL
    (numbers) / exactly (anything else)."""
    bad = []
    for k, w in want.items():
        g = got.get(k)
        if g is None and common:
            continue
        try:
            same = g is not None and math.isclose(float(g), float(w), rel_tol=REL, abs_tol=0) or \
                (g is not None and math.isnan(float(g)) and math.isnan(float(w)))
        except ValueError:
            same = g == w
        if not same:
            bad.append(f"{k}: got {g!r}, want {w!r}")
    return bad


def python_requests(rec) -> list[str]:
    """Requests of the live lab's files: the worker, the Python runtime and wheels, BokehJS and Panel."""
    paths = [urlsplit(u).path for u in rec.urls()]
    return sorted({p for p in paths if p == "/worker.js" or p.startswith(("/pyodide/", "/static/"))})


# Savings' preset and numbers are one state (views.savings.settled): a preset with numbers of another
# model is no state the section holds, so its sampled points keep the preset at "custom".
PINNED = {"savings": {"preset": "custom"}}


def sample_queries(table: dict, n: int, seed: int) -> list[str]:
    """n random grid points of a table (and the default, as the empty query), as URL queries."""
    rng = np.random.default_rng(seed)
    sid = table["section"]
    pinned = PINNED.get(sid, {})
    out = [""]
    for _ in range(n):
        parts = [f"{sid}.{k}={pinned.get(k, state.fmt(values[rng.integers(len(values))]))}"
                 for k, values in zip(table["keys"], table["values"])]
        out.append("&".join(parts))
    return out


def play(page, query: str) -> None:
    """Move every playback control to a URL query's state, as a link opened with it would."""
    page.evaluate("(q) => { history.replaceState(null, '', '?' + q); window.__wt.player.sync(); }", query)


def wait_live_values(page, sid: str, want: dict, timeout_s: float = 60, common: bool = False) -> list[str]:
    """Poll until the live section shows want's values (common: those of want's hooks it shows, at least
    one) and still does once the page has settled; the mismatches left at the timeout. (A section redraws more
    than once for one state: the gradient check's badge has been seen back at "running" just after it matched.)"""
    def bad() -> list[str]:
        got = page.evaluate(VALUES_JS, sid)
        return mismatches(got, want, common) or ([] if set(got) & set(want) or not want else ["no hook in common"])

    def steady() -> bool:
        return not bad() and settle(page, strict=False, timeout_s=10) and not bad()
    until(steady, timeout_s, every_s=0.2)
    return bad()


def test_playback_before_python_then_live_agrees(browser, server):
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "?live=click", wait_until="domcontentloaded")
        # The controls are in the HTML itself: present at the first parse, before any script ran them.
        for sid in PLAYABLE:
            assert page.locator(f"#live-{sid} .wt-player input").count() > 0, f"{sid}: no playback controls"
        page.wait_for_function("() => Object.keys(window.__wt.player.tables).length === "
                               f"{len(PLAYABLE)}", timeout=30_000, polling=50)
        assert page.evaluate("() => window.__wt.status") == "paused"
        go = page.locator("#wt-go")
        assert go.is_visible() and re.search(r"\d+(\.\d)? MB", go.inner_text()), go.inner_text()

        # A slider press answers at once (synchronously, from the table) with CPython's numbers; the URL follows.
        for sid in PLAYABLE:
            slider = page.locator(f"#live-{sid} .wt-player input[type=range]").first
            before = page.evaluate(SLOTS_JS, sid)
            at_max = slider.get_attribute("value") == slider.get_attribute("max")
            slider.focus()
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
            after = page.evaluate(SLOTS_JS, sid)
            assert after != before, f"{sid}: a slider press changed no slot"
            query = urlsplit(page.url).query
            assert f"{sid}." in query, f"{sid}: the URL did not follow the slider: {page.url}"
            bad = mismatches(page.evaluate(VALUES_JS, sid), cpython_values(sid, query))
            assert not bad, f"{sid} at {query}: played back != CPython: {bad[:5]}"

        # Sampled grid points: played back == CPython, exactly as stored (1e-12 relative).
        tables = page.evaluate("() => window.__wt.player.tables")
        samples = {sid: sample_queries(tables[sid], SAMPLES, seed=i) for i, sid in enumerate(PLAYABLE)}
        played = {}
        for sid, queries in samples.items():
            for q in queries:
                play(page, f"live=click&{q}")
                assert page.evaluate(f"() => document.querySelector('.wt-player[data-section={sid}]').dataset.approx") \
                    == "false", f"{sid} {q}: a grid point was marked approximate"
                played[sid, q] = page.evaluate(VALUES_JS, sid)
                bad = mismatches(played[sid, q], cpython_values(sid, q))
                assert not bad, f"{sid} at {q}: played back != CPython: {bad[:5]}"
        assert python_requests(s.rec) == [], f"Python files requested before the button: {python_requests(s.rec)}"

        # The button loads the live lab; the live sections show the played-back values at the same points.
        play(page, "live=click")
        go.click()
        page.wait_for_selector("html[data-wt-status=ready]", timeout=BOOT_TIMEOUT_S * 1000)
        assert "/worker.js" in python_requests(s.rec)
        # (A run section's live slots show a result only after Run: the hooks both show are compared.)
        compared = 0
        for (sid, q), values in played.items():
            page.evaluate("(q) => window.__wt.worker.postMessage({type: 'state', query: q})", q)
            bad = wait_live_values(page, sid, values, common=True)
            assert not bad, f"{sid} at {q}: live != played back: {bad[:5]}"
            compared += len(set(values) & set(page.evaluate(VALUES_JS, sid)))
        print(f"[player] {len(played)} sampled points, {compared} values equal live and played back")
        assert compared >= 2 * len(PLAYABLE)
        assert not s.rec.page_errors, s.rec.page_errors


# The hook (site/hook.js) as main.js installs it: a strict-mode write throws, and the lab's status stays its own.
HOOK_IS_READ_ONLY_JS = """() => { 'use strict';
  try { window.__wt.status = 'ready'; } catch (e) { return e instanceof TypeError && window.__wt.status === 'booting'; }
  return false; }"""


# The states the page posts its workers (the Panel worker's: a pool worker is never sent one).
COUNT_STATES_JS = """(() => { const post = Worker.prototype.postMessage; window.__wtStates = 0;
  Worker.prototype.postMessage = function (msg, ...rest) {
    if (msg && msg.type === 'state') window.__wtStates += 1;
    return post.call(this, msg, ...rest); }; })()"""


def test_off_grid_value_is_approximate_until_live(browser, server):
    with session(browser) as s:
        page = s.page
        page.add_init_script(COUNT_STATES_JS)
        type_played(page, server.url + "?embed=sweep", "sweep", "sigma", "0.3")
        assert page.evaluate("() => window.__wt.status") == "booting", "Python was ready too soon to test playback"
        assert page.evaluate(HOOK_IS_READ_ONLY_JS), "a script could set window.__wt.status"
        ctl = page.locator(".wt-player[data-section=sweep]")
        assert ctl.get_attribute("data-approx") == "true"
        status = ctl.locator(".wt-player-status").inner_text()
        sigma = state.BY_KEY["sweep.sigma"].label  # the status names the control as its label does
        assert "Approximate" in status and f"{sigma} = 0.3," in status and f"{sigma} = 0.316" in status, status
        assert ctl.locator(".wt-player-status").evaluate(STATUS_FIRST_JS)  # first: what is shown is not exact
        assert page.locator("#live-sweep .wt-slot.wt-approx").count() > 0
        # the nearest grid point's answer is what is shown, and the URL holds the typed value
        bad = mismatches(page.evaluate(VALUES_JS, "sweep"), cpython_values("sweep", "sweep.sigma=0.316"))
        assert not bad, bad
        assert "sweep.sigma=0.3&" in urlsplit(page.url).query + "&", page.url
        page.wait_for_selector("html[data-wt-status=ready]", timeout=BOOT_TIMEOUT_S * 1000)
        assert page.locator("#live-sweep .wt-approx").count() == 0
        # the move reached Python once: Python says it holds it when set up (worker.js), so it is not sent again
        assert page.evaluate("() => window.__wtStates") == 1
        bad = wait_live_values(page, "sweep", cpython_values("sweep", "sweep.sigma=0.3"))
        assert not bad, f"live after the hand-over != CPython at the typed value: {bad}"


def test_hand_over_moves_nothing(browser, server):
    with session(browser) as s:
        s.ctx.add_init_script(CLS_JS)
        page = s.page
        page.goto(server.url + "#sweep")
        page.wait_for_selector("html[data-wt-status=ready]", timeout=BOOT_TIMEOUT_S * 1000)
        settle(page)  # late layout of the live roots counts too: every patch is in and drawn
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        shifts = page.evaluate("() => window.__wtShifts")
        cls = sum(e["value"] for e in shifts if not e["input"])
        print(f"[player] CLS over the boot, sweep in view: {cls:.4f} ({len(shifts)} entries)")
        assert cls <= 0.05, f"layout shift {cls:.3f} > 0.05: {shifts}"
        assert page.evaluate("() => document.getElementById('live-sweep').dataset.live") == "true"
        # What each section keeps of its height goes once the reader's press is over, not as it starts: the page
        # shrinking at its bottom under a press would scroll up, and the click would land beside what was pressed.
        x, y = page.evaluate(RESERVE_JS, "paper")
        page.mouse.click(x, y)
        assert page.evaluate("() => window.__wtClicked"), "the click landed beside the press"
        assert page.evaluate("() => document.getElementById('live-paper').style.minHeight") == ""


RESERVE_JS = """(sid) => {
  // Section SID keeps 600 px more than it shows and the page is scrolled to its end; the middle of the lowest button
  // in view above the kept part, and whether the next click lands on it (__wtClicked).
  const live = document.getElementById('live-' + sid);
  live.style.minHeight = `${live.getBoundingClientRect().height + 600}px`;
  scrollTo(0, document.documentElement.scrollHeight);
  const shown = (b) => { const r = b.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; };
  const button = __wtTest.all(live, 'button').filter(shown).pop();
  document.addEventListener('click', (e) => { window.__wtClicked = e.composedPath().includes(button); }, {capture: true, once: true});
  const r = button.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""


@pytest.mark.parametrize("fault", ["missing", "modified"])
def test_bad_table_is_named_and_the_section_falls_back_to_live(browser, server, fault):
    with session(browser) as s:
        def route(r):
            if fault == "missing":
                r.fulfill(status=404, body="not found")
            else:
                body = r.fetch().body()
                r.fulfill(status=200, body=body.replace(b"sweep-resid", b"sweep-RESID"),
                          headers={"Content-Type": "application/json"})
        s.ctx.route("**/playback/sweep.json", route)
        page = s.page
        page.goto(server.url + "?embed=sweep")
        status = page.locator(".wt-player[data-section=sweep] .wt-player-status")
        page.wait_for_function("() => !!window.__wt.player.errors.sweep", timeout=30_000, polling=50)
        text = status.inner_text()
        assert "playback/sweep.json" in text, text
        assert ("modified" if fault == "modified" else "could not load") in text, text
        page.wait_for_selector("html[data-wt-status=ready]", timeout=BOOT_TIMEOUT_S * 1000)
        bad = wait_live_values(page, "sweep", cpython_values("sweep", ""))
        assert not bad, bad
        assert page.locator("#live-sweep [data-testid=sweep-RESID]").count() == 0


def test_a_preset_fills_in_its_numbers_before_python_as_the_live_section_does(browser, server):
    """Savings' preset and numbers are one state (views.savings.FILLS, the data of reconcile): picking a preset
    in the player fills in its five numbers, exact from the table; editing one of them makes it custom, the
    others kept (not precomputed for the preset's d_ff and context: marked approximate); live then agrees."""
    def box(key):
        return f"#wt-p-savings-{key}-box" if key in ("V", "d", "layers") else f"#wt-p-savings-{key}"
    def numbers(page):
        return {k: page.input_value(box(k)) for k in ("V", "d", "layers", "d_ff", "context")}
    with session(browser) as s:
        page = s.page
        page.goto(server.url + "?live=click&embed=savings", wait_until="domcontentloaded")
        page.wait_for_function("() => !!window.__wt.player.tables.savings", timeout=30_000, polling=50)
        page.select_option("#wt-p-savings-preset", "large-vocab-toy")
        assert numbers(page) == {"V": "32000", "d": "128", "layers": "4", "d_ff": "512", "context": "512"}
        ctl = page.locator(".wt-player[data-section=savings]")
        assert ctl.get_attribute("data-approx") == "false"
        query = urlsplit(page.url).query  # the preset alone: the live lab's reconcile fills in its numbers from it
        assert "savings.preset=large-vocab-toy" in query and "savings.V=" not in query, page.url
        bad = mismatches(page.evaluate(VALUES_JS, "savings"), cpython_values("savings", "savings.preset=large-vocab-toy"))
        assert not bad, f"the preset's numbers played back != CPython's: {bad}"
        assert "32,000" in page.inner_text("[data-testid=savings-readout]")

        page.fill(box("V"), "1000")
        page.press(box("V"), "Enter")
        assert page.input_value("#wt-p-savings-preset") == "custom"
        assert numbers(page) == {"V": "1000", "d": "128", "layers": "4", "d_ff": "512", "context": "512"}
        assert ctl.get_attribute("data-approx") == "true"
        status = ctl.locator(".wt-player-status").inner_text()
        assert "d_ff = 512" in status and "context = 512" in status, status
        query = urlsplit(page.url).query
        want = "savings.preset=custom&savings.V=1000&savings.d=128&savings.layers=4&savings.d_ff=512&savings.context=512"
        assert want in query, page.url

        page.click("#wt-go")
        page.wait_for_selector("html[data-wt-status=ready]", timeout=BOOT_TIMEOUT_S * 1000)
        bad = wait_live_values(page, "savings", cpython_values("savings", want))
        assert not bad, f"live != CPython for the edited preset: {bad}"
        assert not s.rec.page_errors, s.rec.page_errors


BOOT_LINE_JS = """() => {
  const box = document.getElementById('wt-boot'), status = document.getElementById('wt-status');
  return {height: box.getBoundingClientRect().height, text: status.textContent,
          cut: status.scrollWidth > status.clientWidth};
}"""


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize("query", ["", "?embed=codelab"])
def test_the_live_line_shows_its_words_in_the_box_it_had(browser, server, query, width):
    # Booting, the line's status shares it with the bar and may be cut; live, the bar goes and a wide screen's status
    # takes its column, so the live line shows whole, as on a phone's second line; the box keeps its height.
    with session(browser, viewport=(width, 900)) as s:
        s.page.goto(server.url + query)
        booting = s.page.evaluate(BOOT_LINE_JS)
        wait_status(s.page, "ready")
        live = s.page.evaluate(BOOT_LINE_JS)
    assert live["height"] == booting["height"], (booting, live)
    assert live["text"] == "Live: recomputed as you change it"
    assert not live["cut"], f"the live line is cut at {width} px: {live}"
