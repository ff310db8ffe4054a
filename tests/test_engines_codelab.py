"""The code lab in the engine matrix (tests/engines.py): Chromium, Firefox and WebKit, served and from the classroom
file (Chromium served is test_browser_codelab.py's too; here it costs one page load). One page visit per engine and
place, opened with ?embed=codelab&live=click so Python waits for the reader, then booted where LIVE says:

  - before Python, every named bug answers at once with CPython's hooks (the verdict, the wrong rows of E and the
    rest: the playback tables), and nothing asks for Python;
  - the editor is mounted, the page's own, and shows the build's code;
  - booted (from the file, where the classroom copy must do all of it alone, and served), a backward pasted while
    Python waits runs with the editor's Run pressed at once, before the live section, on a numerics worker (the Run
    before Panel), and its verdict, hooks and race are CPython's for that code, before Panel and in the live section
    that takes them over; nothing is requested off the page, and the code never enters the address;
  - on that live page, one Run after another: every kind of error the lab names (a shape mismatch, a name, a missing,
    misshaped or non-finite gradient, a syntax error) is said in CPython's words at the reader's line and column,
    marked there in the editor (a gradient's error at the line that made it, else its return), over the results of
    the last code that ran; a js.fetch is refused by name at its line;
  - from the file in Firefox and WebKit, an endless loop: while it runs the lab still answers its k, after the view's
    QUIET_S its worker is ended and the status line says so, the code stays, and the next Run, on a new worker (from
    the classroom file), is exact, and the results shown over the loop are the last code's that ran;
  - in each engine and place, a visit of its own: an edit is back after a reload with its note, and a shared link
    opens with its code shown and nothing run, the fragment gone from the address.

Cost, measured on this box (2026-12-04, against the module before these tests, run just before it): booting a
served visit (its boot, the pasted Run, every error) adds ~15 s in Chromium and Firefox and 25-30 s in WebKit, the
errors on the file's visit 3-6 s, and the loop QUIET_S plus a new worker's start (~13 s in Firefox, ~23 s in
WebKit): +17, +27 and +33 s, +77 s in all. WebKit's served boot would make that ~105 s, so its served visit is not
booted: from the worker's answer on, the errors take the same path in both places, and its file visit checks them
where the workers themselves come from the classroom file; and Chromium's loop is test_browser_codelab_loop.py's
(served, whole page).

One engine alone: `pytest tests/test_engines_codelab.py -k webkit` (or firefox, chromium).
"""
from __future__ import annotations

import dataclasses
import html
import time

import pytest

from harness import BOOT_TIMEOUT_S, FOCUS_SLIDER_JS, until
from test_browser_codelab import HOOKS, LIVE_BOX_JS, want
from test_browser_codelab_share import fragment_of
from test_browser_player import HOOK, VALUES_JS, mismatches
from test_engines import BOOT_END_JS, FIND_JS, RESOURCES_JS, classroom, engine_fixture  # noqa: F401  (a fixture)
from test_engines_owntext import PLAY_JS
from weighttying import codelab, codelab_bugs, state
from weighttying.views import codelab as codelab_view

pytestmark = pytest.mark.browser
PLACES = ("file", "served")
LIVE = {"file": ("chromium", "firefox", "webkit"), "served": ("chromium", "firefox")}  # the visits booted (see above)
STEPS = 30  # the race's steps for the pasted code: a few seconds in WebKit's Pyodide
# A reader's own backward, not any named bug's text: the input path written as a loop that assigns, so a token the
# batch reads again overwrites its row instead of adding to it. Its gradients are the buffered bug's, and the verdict
# says so.
PASTED = '''def lesson_backward(params, cfg, inputs, cache, dlogits):
    """The lesson's backward, the input path written as a loop."""
    E, W1, W2 = params["E"], params["W1"], params["W2"]
    x, z, h = cache["x"], cache["z"], cache["h"]
    dh = dlogits @ E
    da = (dh @ W2.T) * (1 - z**2)
    dx = cfg.res * dh + da @ W1.T
    dE = np.zeros_like(E)
    for t, row in zip(inputs, cfg.in_scale * dx):
        dE[t] = row
    dE += dlogits.T @ h
    return {"E": dE, "W1": x.T @ da, "b1": da.sum(axis=0), "W2": z.T @ dh, "b2": dh.sum(axis=0)}
'''
EDITOR_JS = """() => { const e = document.querySelector('[data-testid=codelab-editor]');
  return e && {editable: e.getAttribute('contenteditable'), name: e.getAttribute('aria-label'),
    text: [...document.querySelectorAll('.wt-codelab-editor .cm-line')].map((l) => l.textContent).join('\\n')}; }"""
# The editor scrolled to the top of the window: CodeMirror draws only the lines near the window (WebKit's file page
# opened with the editor half below it, and drew 12 of 19); how many it has drawn.
SHOW_EDITOR_JS = """() => { document.querySelector('.wt-codelab-editor').scrollIntoView({block: 'start'});
  return document.querySelectorAll('.wt-codelab-editor .cm-line').length; }"""
# A paste over the editor's whole text: everything selected, then the text inserted as an engine inserts a plain-text
# paste (insertText; Firefox gives a scripted ClipboardEvent no data, so that event cannot carry it in every engine).
PASTE_JS = """(text) => { const e = document.querySelector('[data-testid=codelab-editor]'); e.focus();
  const all = document.createRange(); all.selectNodeContents(e);
  getSelection().removeAllRanges(); getSelection().addRange(all);
  return document.execCommand('insertText', false, text); }"""


def booted_or_skip(engine, visit) -> None:
    if engine.name not in LIVE[visit["place"]]:
        pytest.skip(f"{engine.name}'s {visit['place']} visit is not booted (LIVE: see the module's docstring)")


def cpython_pasted(k: int = state.Codelab().k) -> dict[str, str]:
    """{hook: data-value} the view writes for PASTED run at STEPS and shown at K, computed as a numerics worker does."""
    yours = codelab_view.YOURS
    st = dataclasses.replace(state.Codelab(), bug=yours, code=PASTED, steps=STEPS, k=k)
    text = "".join(codelab_view.slots(st, {yours: codelab_view.outcome(PASTED, STEPS)}).values())
    return {k: html.unescape(v) for k, v in HOOK.findall(text) if k in HOOKS}


engine = engine_fixture()


def editor(page, text: str) -> dict:
    """EDITOR_JS once the editor, in view, has drawn as many lines as TEXT has (or after 10 s, as it stands)."""
    until(lambda: page.js(SHOW_EDITOR_JS) >= len(text.split("\n")), timeout_s=10)
    return page.js(EDITOR_JS)


def paste(page, text: str) -> None:
    """TEXT pasted over the editor's whole text (PASTE_JS), until the editor holds exactly it. WebKit's scripted
    insertText over a selection of the whole editable sometimes leaves an empty first line (seen from the classroom
    file, about one visit in four); a reader's paste is one input event, which CodeMirror handles itself."""
    for _ in range(3):
        assert page.js(PASTE_JS, text)
        if until(lambda: editor(page, text)["text"] == text, timeout_s=2):
            return
    raise AssertionError(f"the editor holds {editor(page, text)['text'][:40]!r}..., not the pasted text")


def shown(page) -> dict[str, str]:
    return {k: v for k, v in page.js(VALUES_JS, "codelab").items() if k in HOOKS}


@pytest.fixture(scope="module")
def visit(engine, request, server, classroom):  # noqa: F811  (the fixture imported above)
    """The section opened before Python: each named bug chosen in turn (what each showed, and the boot's status
    then), and the editor as it stood first. The page stays open, Python not started, for the live test."""
    where = server.url if request.param == "served" else classroom.as_uri()
    t0 = time.monotonic()
    page = engine.open(f"{where}?embed=codelab&live=click")
    try:
        page.wait("() => !!(window.__wt && window.__wt.player && window.__wt.player.loaded.codelab"
                  " && document.querySelector('.wt-codelab-editor[data-mounted]'))", timeout=60)
        first = editor(page, codelab.original_source())
        bugs = {}
        for bug in (b.id for b in codelab_bugs.BUGS):
            status = page.js(PLAY_JS, "wt-p-codelab-bug", bug)
            verdict = want(bug)["codelab-verdict"]
            page.wait("(v) => (document.querySelector('#live-codelab [data-testid=codelab-verdict]') || {}).dataset"
                      "?.value === v", verdict, timeout=30)
            bugs[bug] = {"status": status, "shown": shown(page)}
        print(f"[{engine.name} {request.param}] before Python: {time.monotonic() - t0:.1f} s")
        yield {"page": page, "editor": first, "bugs": bugs, "place": request.param, "url": where}
    finally:
        page.close()


@pytest.mark.parametrize("visit", PLACES, indirect=True)
def test_every_named_bug_answers_before_python(visit):
    for bug, seen in visit["bugs"].items():
        expected = want(bug)
        assert seen["status"] == "paused", (bug, seen)
        assert seen["shown"]["codelab-verdict"] == expected["codelab-verdict"], bug
        assert seen["shown"].get("codelab-wrong-rows") == expected.get("codelab-wrong-rows"), bug
        assert not mismatches(seen["shown"], expected), (bug, mismatches(seen["shown"], expected))


@pytest.mark.parametrize("visit", PLACES, indirect=True)
def test_the_editor_is_mounted_with_the_builds_code(visit):
    editor = visit["editor"]
    assert editor and editor["editable"] == "true", editor
    assert "Escape then Tab" in editor["name"], editor
    assert editor["text"].rstrip("\n") == codelab.original_source().rstrip("\n")


@pytest.mark.allow_skip_in_ci  # the engines and places LIVE and LOOPED leave out, by design (above)
@pytest.mark.parametrize("visit", PLACES, indirect=True)
def test_a_pasted_backward_runs_live_with_cpythons_verdict(engine, visit):
    booted_or_skip(engine, visit)
    page = visit["page"]
    assert page.js("() => window.__wt.status") == "paused", "the page was started before the paste"
    assert page.js(PLAY_JS, "wt-p-codelab-steps", str(STEPS)) == "paused"
    paste(page, PASTED)
    page.wait("() => document.getElementById('wt-p-codelab-bug').value === 'yours'", timeout=10)
    assert editor(page, PASTED)["text"].rstrip("\n") == PASTED.rstrip("\n")
    assert page.js("() => document.getElementById('wt-p-codelab-code').value") == PASTED
    expected = cpython_pasted()
    checks = codelab.checks(PASTED)
    assert expected["codelab-verdict"] == checks["verdict"] and checks["bug"] == "buffered", checks["verdict"]
    t0 = time.monotonic()
    page.click("() => document.getElementById('wt-go')")
    # Run at once, before the live section: the Run before Panel (site/earlyrun.js) on a numerics worker, its slots
    # put into the prerender through inert.js; the live section then takes its results over
    page.click("() => document.querySelector('[data-testid=codelab-run]')")
    page.wait("() => document.querySelector('[data-run-said=codelab]').textContent.includes('Done.')", timeout=180)
    print(f"[{engine.name} {visit['place']}] the pasted backward's Run before Panel ({STEPS} steps): "
          f"{time.monotonic() - t0:.1f} s")
    before = shown(page)
    assert not mismatches(before, expected), mismatches(before, expected)
    end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
    assert end["status"] == "ready", end
    page.wait("() => !!document.querySelector('#live-codelab[data-live=true]')", timeout=60)
    print(f"[{engine.name} {visit['place']}] booted in {time.monotonic() - t0:.1f} s")
    got = shown(page)
    assert got["codelab-verdict"] == expected["codelab-verdict"], (got, expected)
    assert got["codelab-wrong-rows"] == expected["codelab-wrong-rows"], (got, expected)
    assert not mismatches(got, expected), mismatches(got, expected)
    assert page.js("() => __wt.pool.started") >= 1  # on a numerics worker, not the Panel worker
    assert "lesson_backward" not in page.js("() => location.href")
    assert page.refused() == [], page.refused()
    off = [r for r in page.js(RESOURCES_JS) if not r.startswith(("blob:", "data:", visit["url"]))]
    assert off == [], off


# The reader's errors, in every engine and place, on the page the pasted Run left live, one Run each in turn: every
# kind the lab names (a run-time error, a name, a missing, misshaped or non-finite gradient, a syntax error), each an
# edit of PASTED, is said in CPython's words at the reader's line (marked in the editor there), over the results of
# the last code that ran; a request to another origin is refused by name at its line, nothing leaving the page.
def edited(old: str, new: str) -> str:
    """PASTED with its one OLD replaced by NEW."""
    assert PASTED.count(old) == 1, old
    return PASTED.replace(old, new)


ERRORS = {
    "a shape mismatch": edited("    dh = dlogits @ E\n", "    dh = dlogits @ E.T\n"),
    "a name": edited("    dx = cfg.res * dh + da @ W1.T\n", "    dx = cfg.res * dh + da @ W1t\n"),
    "a missing gradient": edited(', "b2": dh.sum(axis=0)}', "}"),
    "a misshaped gradient": edited('"b1": da.sum(axis=0)', '"b1": da'),
    "non-finite numbers": edited('return {"E": dE,', 'return {"E": dE / 0,'),
    "a syntax error": edited("        dE[t] = row\n", "        dE[t] = row)\n"),
}
KEPT = " The results shown are your last code that ran."
FETCH = '''import js


def lesson_backward(params, cfg, inputs, cache, dlogits):
    js.fetch("https://example.com/")
'''
VERDICT_JS = f"""() => {{ const v = ({FIND_JS})('codelab', '[data-testid=codelab-verdict]', '');
  return v && {{line: v.dataset.line || '', value: v.dataset.value}}; }}"""
RUN_JS = f"""() => {{ const s = ({FIND_JS})('codelab', '[data-testid=run-status]', '');
  return s && {{run: s.dataset.run, text: s.textContent}}; }}"""
# A Run's end: its verdict no longer the one before (PREV) and its status line over.
SETTLED_JS = f"""(prev) => {{ const v = ({VERDICT_JS})(), s = ({RUN_JS})();
  return !!v && v.value !== prev && s?.run === 'over'; }}"""
# The editor's error mark: its line and column (1-based, counted in the text before it) and the gutter's markers.
MARK_JS = """() => { const lines = [...document.querySelectorAll('.wt-codelab-editor .cm-line')];
  const gutter = document.querySelectorAll('.wt-codelab-editor .cm-lint-marker-error').length;
  const m = document.querySelector('.wt-codelab-editor .cm-lintRange-error, .wt-codelab-editor .cm-lintPoint-error');
  if (!m) return {line: 0, column: 0, gutter};
  const line = m.closest('.cm-line'), before = document.createRange();
  before.setStart(line, 0); before.setEnd(m, 0);
  return {line: lines.indexOf(line) + 1, column: before.toString().length + 1, gutter}; }"""


def run_code(page, text: str) -> dict:
    """TEXT pasted into the live editor and Run pressed: the verdict once the Run is over and its verdict new."""
    prev = (page.js(VERDICT_JS) or {}).get("value")
    paste(page, text)
    assert until(lambda: page.js(LIVE_BOX_JS) == text, timeout_s=30), "the live section never got the code"
    page.click(FIND_JS, "codelab", "button", "Run")
    try:
        page.wait(SETTLED_JS, prev, timeout=120, every=0.25)
    except TimeoutError as err:  # say where the Run stood: never begun (the click lost), running, or over unchanged
        raise AssertionError(f"the Run never settled: status {page.js(RUN_JS)}, verdict {page.js(VERDICT_JS)}, "
                             f"the one before {prev!r}") from err
    return page.js(VERDICT_JS)


def but_verdict(hooks: dict[str, str]) -> dict[str, str]:
    return {key: v for key, v in hooks.items() if key != "codelab-verdict"}


def live_or_skip(engine, visit) -> None:
    booted_or_skip(engine, visit)
    if visit["page"].js("() => window.__wt.status") != "ready":
        pytest.skip("needs the page the pasted Run left live (run the module, not this test alone)")


@pytest.mark.allow_skip_in_ci  # the engines and places LIVE and LOOPED leave out, by design (above)
@pytest.mark.parametrize("visit", PLACES, indirect=True)
def test_the_readers_errors_are_named_at_their_line_and_a_fetch_is_refused(engine, visit):
    live_or_skip(engine, visit)
    page = visit["page"]
    last = but_verdict(cpython_pasted())  # the last code that ran
    assert but_verdict(shown(page)) == last
    said = {kind: codelab_view.failure(codelab.checks(code)) + KEPT for kind, code in ERRORS.items()}
    assert len(set(said.values())) == len(said)  # each Run's end is seen by its verdict changing
    t0 = time.monotonic()
    for kind, code in ERRORS.items():
        wrong = codelab.checks(code)
        assert wrong["kind"] != "ok", (kind, wrong)
        got = run_code(page, code)
        assert got == {"value": said[kind], "line": str(wrong["line"] or "")}, (kind, got, said[kind])
        # marked at the reader's line (from its column, or from its start), with the gutter's marker; or nothing
        at = {"line": wrong["line"], "column": wrong["column"] or 1, "gutter": 1}
        mark = at if wrong["line"] else {"line": 0, "column": 0, "gutter": 0}
        editor(page, code)
        assert until(lambda: page.js(MARK_JS) == mark, timeout_s=10), (kind, page.js(MARK_JS), mark)
        assert but_verdict(shown(page)) == last, kind  # the results kept
    print(f"[{engine.name} {visit['place']}] {len(ERRORS)} errors: {time.monotonic() - t0:.1f} s")
    got = run_code(page, FETCH)
    assert got["line"] == "5" and "fetch is refused here" in got["value"], got
    assert page.refused() == [], page.refused()
    assert page.js("() => performance.getEntriesByType('resource').every((r) => !r.name.includes('example.com'))")


# The reader's endless loop, from the file in Firefox and WebKit, on the same live page: Run starts it on a numerics
# worker; while it loops the lab still answers its k (the claim, redrawn by the Panel worker); after the view's QUIET_S
# the pool ends that worker and the status line says so, the code still in the editor; the next Run, on a new worker,
# checks the page's own code exactly. The results shown over the loop are kept for the test after it.
LOOP = '''def lesson_backward(params, cfg, inputs, cache, dlogits):
    while True:
        pass
'''
LOOPED = ("firefox", "webkit")  # the engines whose file visit runs it (see the module's docstring)
LOOPING_JS = "() => __wt.pool.workers.some((w) => w.tainted && w.part)"
# The claim's miss probability is V, drawn live: in the Panel section's shadow root, not the build's prerender.
CLAIM_JS = f"""(v) => {{ const c = ({FIND_JS})('codelab', '[data-testid=codelab-claim-miss]', '');
  return !!c && c.getRootNode() instanceof ShadowRoot && c.dataset.value === v; }}"""


@pytest.mark.allow_skip_in_ci  # the engines and places LIVE and LOOPED leave out, by design (above)
@pytest.mark.parametrize("visit", PLACES[:1], indirect=True)
def test_an_endless_loop_is_ended_while_the_lab_still_answers(engine, visit):
    if engine.name not in LOOPED:
        pytest.skip(f"{engine.name}'s endless loop is test_browser_codelab_loop.py's (LOOPED: the module's docstring)")
    live_or_skip(engine, visit)
    page = visit["page"]
    k = state.Codelab().k + 1  # the k slider's next value
    claim = dict(HOOK.findall(codelab_view.claim_html(k)))["codelab-claim-miss"]
    started = page.js("() => __wt.pool.started")
    paste(page, LOOP)
    assert until(lambda: page.js(LIVE_BOX_JS) == LOOP, timeout_s=30), "the live section never got the code"
    page.click(FIND_JS, "codelab", "button", "Run")
    page.wait(LOOPING_JS, timeout=60, every=0.1)
    looping = time.monotonic()
    assert page.evaluate(FOCUS_SLIDER_JS, ["k:", "codelab"]) is None
    page.press("ArrowRight")
    page.wait(CLAIM_JS, html.unescape(claim), timeout=codelab_view.QUIET_S, every=0.1)
    answered = time.monotonic() - looping
    assert page.js(LOOPING_JS), "the code stopped looping before k was answered"
    quiet = f"ran for {codelab_view.QUIET_S:g} s without finishing a step"
    page.wait(f"(q) => !!({FIND_JS})('codelab', '[data-testid=run-status]', q)", quiet,
              timeout=codelab_view.QUIET_S + 30, every=0.1)
    ended = time.monotonic() - looping
    print(f"[{engine.name} {visit['place']}] k answered {answered:.1f} s into the loop, which ended at {ended:.1f} s")
    assert answered < codelab_view.QUIET_S <= ended + 1, (answered, ended)
    assert page.js("() => __wt.pool.hung.length") == 1 and not page.js("() => __wt.pool.workers.some((w) => w.part)")
    assert editor(page, LOOP)["text"].rstrip("\n") == LOOP.rstrip("\n"), "the reader's code stays"
    not_run = page.js(f"() => !!({FIND_JS})('codelab', '[data-testid=codelab-not-run]', '')")  # what it says instead
    visit["over the loop"] = {"shown": but_verdict(shown(page)), "kept": but_verdict(cpython_pasted(k)),
                              "not run": not_run}
    t = time.monotonic()
    got = run_code(page, codelab.original_source())
    print(f"[{engine.name} {visit['place']}] the next Run, on a new worker: {time.monotonic() - t:.1f} s")
    assert got["value"] == codelab.checks(codelab.original_source())["verdict"], got
    assert page.js("() => __wt.pool.started") > started  # a new worker took over


@pytest.mark.allow_skip_in_ci  # the engines and places LIVE and LOOPED leave out, by design (above)
@pytest.mark.parametrize("visit", PLACES[:1], indirect=True)
def test_the_last_results_stay_over_an_endless_loop(visit):
    if "over the loop" not in visit:
        pytest.skip("needs the loop test before it (run the module, not this test alone)")
    over = visit["over the loop"]
    assert over["shown"] == over["kept"], over


# The reader's edit survives a reload, and a shared link opens its code unrun, in every engine and place: a visit of
# its own, before Python (live=click), so nothing boots.
# The edit TEXT kept (WebKit's scripted paste passes through a state with an extra first line, which leaving the
# editor may keep for a moment: the wait is for the text itself)
KEPT_JS = ("(text) => Object.entries(localStorage).some(([k, v]) => k.startsWith('weighttying.codelab.')"
           " && v === text)")
MOUNTED_JS = ("() => !!(window.__wt && !window.__wtBefore && document.querySelector('.wt-codelab-editor[data-mounted]')"
              " && document.querySelector('.wt-codelab-editor .cm-line'))")
NOTE_JS = "() => document.querySelector('[data-testid=codelab-restored]').textContent"
MINE = codelab.original_source() + "# my own edit\n"
SHARED = codelab.bug_source("output_only") + "# shared with you\n"


def reopened(page, url: str) -> None:
    """The page navigated to URL (a new document: the old one's mark gone) with its editor mounted again."""
    page.js("(u) => { window.__wtBefore = true; setTimeout(() => { location.href = u; }, 0); return true; }", url)

    def mounted() -> bool:
        try:
            return page.js(MOUNTED_JS)
        except Exception:  # a call that met the old document going away: ask the new one
            return False
    assert until(mounted, timeout_s=60), f"the editor never mounted again at {url}"


@pytest.mark.parametrize("place", PLACES)
def test_a_reload_restores_the_edit_and_a_shared_link_opens_unrun(engine, place, server, classroom):  # noqa: F811  (the fixture imported above)
    where = server.url if place == "served" else classroom.as_uri()
    page = engine.open(f"{where}?embed=codelab&live=click")
    try:
        page.wait(MOUNTED_JS, timeout=60)
        page.js("() => localStorage.clear()")
        paste(page, MINE)
        page.wait(KEPT_JS, MINE, timeout=10)
        reopened(page, f"{where}?embed=codelab&live=click&codelab.k=5")
        assert editor(page, MINE)["text"].rstrip("\n") == MINE.rstrip("\n")
        assert "Restored your edit" in page.js(NOTE_JS)
        reopened(page, f"{where}?embed=codelab&live=click&codelab.k=7#{fragment_of(SHARED)}")
        page.wait("() => document.querySelector('[data-testid=codelab-restored]').textContent.includes('from the link')",
                  timeout=20)
        assert editor(page, SHARED)["text"].rstrip("\n") == SHARED.rstrip("\n")
        assert "#" not in page.js("() => location.href")  # the address bar's writer dropped the fragment
        assert page.js("() => window.__wt.status") == "paused" and page.js("() => __wt.pool.started") == 0  # unrun
        assert page.js("() => document.getElementById('wt-p-codelab-bug').value") == "yours"
    finally:
        page.close()
