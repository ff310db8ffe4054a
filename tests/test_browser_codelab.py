"""The code lab in headless Chromium (embed=codelab).

- Before Python (?live=click): every named bug answers at once from the playback tables with CPython's hooks (wrong
  rows of E, largest relative error, the random check's miss probability, the race's final loss, the verdict), and
  k moves the random check; nothing asks for Python.
- Live (one cold load for the module, at steps the build did not run): choosing a bug shows its checks at once,
  the race waits for Run, which streams it to CPython's losses.
- The editor (CodeMirror, the page's own): the build's text, line numbers, Python highlighting, undo, Escape then
  Tab leaves it, a bug's "Put this code in the editor"; typing selects "yours" and never enters the address; code
  typed while Python loads is in the live section after the hand-over, and edits after it reach it too.
- Taken away: the reader's code, run and raced live, downloaded as a script and as a notebook from the section's
  buttons; CPython runs both and prints the verdict, the random check's miss probability and the race's final loss
  the page shows.
"""
from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import live_page
from harness import Recorder, new_context, until, wait_booted
from test_browser_front import PHONE
from test_browser_pool import CORES
from weighttying import codelab, codelab_bugs, controls
from weighttying import state
from weighttying.precision import carried
from weighttying.views import codelab as codelab_view
from weighttying.views import contract, kit

pytestmark = pytest.mark.browser
BOX = "#live-codelab"
LIVE = "#live-codelab[data-live=true]"
HOOKS = ("codelab-wrong-rows", "codelab-max-rel-err", "codelab-random-miss", "codelab-race-final", "codelab-verdict")


def want(bug: str, k: int = state.Codelab().k, steps: int = state.Codelab().steps) -> dict[str, str]:
    """{hook: data-value} the view writes for bug at k with the build's results (what CPython computed)."""
    st = dataclasses.replace(state.Codelab(), bug=bug, k=k, steps=steps)
    text = "".join(codelab_view.slots(st, kit.with_results(contract.view("codelab"), st)).values())
    return {k: html.unescape(v) for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', text) if k in HOOKS}


def shown(page, box: str = BOX) -> dict[str, str]:
    return {h: page.locator(f"{box} [data-testid={h}]").get_attribute("data-value")
            for h in HOOKS if page.locator(f"{box} [data-testid={h}]").count()}


def wait_verdict(page, text: str, box: str = BOX) -> None:
    """Until the verdict's data-value is text: whole, since two bugs' verdicts can share every word but the bug's name."""
    expect(page.locator(f"{box} [data-testid=codelab-verdict]")).to_have_attribute("data-value", text, timeout=60_000)


def test_every_named_bug_answers_before_python(page, server):
    page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
    for bug in (b.id for b in codelab_bugs.BUGS):
        page.select_option("#wt-p-codelab-bug", bug)
        expected = want(bug)
        wait_verdict(page, expected["codelab-verdict"])
        assert shown(page) == expected, bug
    outcome = codelab.checks(codelab.bug_source("output_only"), k=5)
    page.select_option("#wt-p-codelab-bug", "output_only")
    page.fill("#wt-p-codelab-k-box", "5")
    page.locator("#wt-p-codelab-k-box").dispatch_event("change")
    page.locator(f"{BOX} [data-testid=codelab-random]", has_text="5 random entries").wait_for(timeout=5_000)
    assert shown(page)["codelab-random-miss"] == want("output_only", 5)["codelab-random-miss"]
    assert float(shown(page)["codelab-random-miss"]) == pytest.approx(outcome["random"]["miss_probability"], rel=1e-5)
    assert page.evaluate("() => !window.__wt || window.__wt.status !== 'ready'")  # no Python was asked for


STEPS = 40  # not the build's race: the race waits for Run
live = live_page(f"embed=codelab&codelab.bug=buffered&codelab.steps={STEPS}")


def test_the_live_section_keeps_the_checks_and_runs_the_race(live):
    wait_verdict(live, want("buffered")["codelab-verdict"], LIVE)
    assert shown(live, LIVE) == want("buffered", steps=STEPS)
    live.locator(f"{LIVE} [data-testid=codelab-race-pending]").wait_for(timeout=30_000)
    # a dropdown (more choices than a row of buttons holds), its options in the reader's words
    live.locator(f"{LIVE} .wt-ctl-codelab-bug select").select_option(label=codelab_bugs.BY_ID["in_scale"].label)
    wait_verdict(live, want("in_scale")["codelab-verdict"], LIVE)
    assert shown(live, LIVE) == want("in_scale", steps=STEPS)
    live.locator(f"{LIVE} button", has_text="Run").click()
    final = live.locator(f"{LIVE} [data-testid=codelab-race-final]")
    final.wait_for(timeout=120_000)
    race = codelab.race(codelab.load(codelab.bug_source("in_scale")), STEPS)
    assert float(final.get_attribute("data-value")) == pytest.approx(race["final"]["yours"], rel=1e-5)


EDITOR = ".wt-codelab-editor .cm-content"
LIVE_BOX_JS = """() => {
  // the live code control's text area, through Panel's shadow roots
  const walk = function* (root) { for (const el of root.querySelectorAll("*")) { yield el; if (el.shadowRoot) yield* walk(el.shadowRoot); } };
  for (const el of walk(document.querySelector("#live-codelab[data-live=true]"))) {
    if (el.classList && el.classList.contains("wt-code-input") && el.shadowRoot) {
      const t = [...walk(el.shadowRoot)].find((x) => x.tagName === "TEXTAREA");
      if (t) return t.value;
    }
  }
  return null;
}"""


# CodeMirror draws only the lines near the window (under load, a first draw held 12 of 19 lines): the editor is
# scrolled to the window's top and read once two frames' drawings agree.
EDITOR_TEXT_JS = """async () => {
  const lines = () => [...document.querySelectorAll('.wt-codelab-editor .cm-line')].map((l) => l.textContent)
    .join('\\n');
  const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  document.querySelector('.wt-codelab-editor').scrollIntoView({block: 'start'});
  let before = null, now = lines();
  for (let i = 0; i < 20 && now !== before; i++) { await frame(); before = now; now = lines(); }
  return now; }"""


def editor_text(page) -> str:
    return page.evaluate(EDITOR_TEXT_JS)


def type_at_end(page, text: str) -> None:
    page.locator(EDITOR).click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def test_the_editor_before_python(page, server):
    page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
    editor = page.locator(EDITOR)
    editor.wait_for(timeout=10_000)
    assert "Escape then Tab" in editor.get_attribute("aria-label")
    assert editor_text(page).rstrip("\n") == codelab.original_source().rstrip("\n")  # the build's text
    lines = codelab.original_source().count("\n")
    assert page.locator(".wt-codelab-editor .cm-lineNumbers .cm-gutterElement").count() >= lines
    assert page.locator(".wt-codelab-editor .cm-line").first.locator("span").count() >= 2  # highlighted
    type_at_end(page, "\nprint('hi')")
    assert page.input_value("#wt-p-codelab-bug") == "yours"  # the reader's code selects "yours"
    assert "print('hi')" in page.input_value("#wt-p-codelab-code")
    assert "codelab.bug=yours" in page.url and "print" not in page.url  # the code never enters the address
    page.keyboard.press("Control+z")
    assert "print('hi')" not in editor_text(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.cm-editor')")  # Escape then Tab leaves it
    page.select_option("#wt-p-codelab-bug", "output_only")
    page.locator(f"{BOX} .wt-code-load").click()
    assert "    dE = dlogits.T @ h" in editor_text(page)


def test_an_edit_is_kept_even_when_the_page_reloads_at_once(page, server):
    # the keep waits for a pause in typing; a reload right after a keystroke must still find the edit
    page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
    page.locator(EDITOR).wait_for(timeout=10_000)
    type_at_end(page, "\n# kept at once")
    page.reload(wait_until="domcontentloaded")
    page.locator(EDITOR).wait_for(timeout=10_000)
    assert editor_text(page).endswith("# kept at once")


def test_code_typed_before_python_is_in_the_live_section(page, server):
    # four cores said: on two, an embedded code lab boots a numerics worker at once (boot.js's numericsFirst)
    page.add_init_script(CORES)
    page.goto(f"{server.url}?embed=codelab", wait_until="domcontentloaded")
    type_at_end(page, "\n# typed while Python loads")
    assert page.evaluate("() => window.__wt.status === 'booting' && !document.querySelector('[data-live=true]')")
    wait_booted(page)
    page.locator(LIVE).wait_for(timeout=60_000)
    assert page.evaluate(LIVE_BOX_JS).endswith("# typed while Python loads")
    page.locator(f"{LIVE} [data-testid=codelab-not-run]").wait_for(timeout=30_000)
    assert page.evaluate("__wt.pool.started") == 0, "an edit before the section is live boots no worker"
    type_at_end(page, "\n# and after")
    until(lambda: (page.evaluate(LIVE_BOX_JS) or "").endswith("# and after"))
    # an edit to the live section boots the worker its Run will take, so the Run does not wait for a boot
    assert until(lambda: page.evaluate("__wt.pool.started") == 1)
    page.keyboard.press("Control+Enter")
    assert until(lambda: page.evaluate("__wt.pool.workers.some((w) => w.tainted)"), timeout_s=60)
    assert page.evaluate("__wt.pool.started") == 1, "the Run took the worker the edit had booted"


def test_reader_code_runs_on_a_worker_errors_at_their_line_and_a_reload_restores_it(live):
    # the reader's own code: a syntax error marked at its line, results kept; then code that runs
    page = live.page
    broken = codelab.original_source().replace("dW2 = z.T @ dh", "dW2 = z.T @@ dh")
    line = next(i for i, t in enumerate(broken.splitlines(), 1) if "@@" in t)
    page.locator(f"{BOX} .wt-code-load").click()  # a named bug's source into the editor, to start from
    page.locator(EDITOR).click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(broken)
    until(lambda: page.evaluate(LIVE_BOX_JS) == broken)
    page.keyboard.press("Control+Enter")
    verdict = page.locator(f"{LIVE} [data-testid=codelab-verdict][data-line='{line}']")
    verdict.wait_for(timeout=120_000)
    assert "SyntaxError" in verdict.get_attribute("data-value")
    page.locator(".wt-codelab-editor .cm-lintRange-error").wait_for(timeout=10_000)  # marked in the editor
    page.reload(wait_until="domcontentloaded")
    page.locator(EDITOR).wait_for(timeout=10_000)
    assert "@@" in editor_text(page)
    assert "Restored your edit" in page.locator("[data-testid=codelab-restored]").text_content()
    page.locator("[data-testid=codelab-reset]").click()
    assert editor_text(page).rstrip("\n") == codelab.original_source().rstrip("\n")


FETCH = '''import js


def lesson_backward(params, cfg, inputs, cache, dlogits):
    js.fetch("https://example.com/")
'''


def test_reader_code_cannot_reach_the_network(live):
    page = live.page
    page.locator(LIVE).wait_for(timeout=120_000)  # the test before reloaded the page
    page.locator(EDITOR).click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(FETCH)
    until(lambda: page.evaluate(LIVE_BOX_JS) == FETCH)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.keyboard.press("Control+Enter")
    verdict = page.locator(f"{LIVE} [data-testid=codelab-verdict][data-line='5']")  # the reader's line
    verdict.wait_for(timeout=120_000)
    said = verdict.get_attribute("data-value")
    assert "fetch is refused here" in said and not any("example.com" in u for u in requests), said


RUN_SAID = "[data-testid=codelab-run-said]"  # the line under the editor's Run (controls.editor_still)


def run_live(page, text: str) -> None:
    """TEXT put in the editor as the reader's whole code, taken by the live section, then Run (Ctrl+Enter)."""
    page.locator(EDITOR).click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    until(lambda: page.evaluate(LIVE_BOX_JS) == text)
    page.keyboard.press("Control+Enter")


def test_live_the_verdict_on_the_readers_code_is_said_under_run_too(live):
    # on a phone the verdict slot is screens below the editor: its words come under the Run the reader pressed
    page = live.page
    text = codelab.bug_source("transposed") + "# mine, transposed\n"
    run_live(page, text)
    made_at = codelab.lab(text)["line"]  # the line that made the transposed gradient
    verdict = page.locator(f"{LIVE} [data-testid=codelab-verdict][data-line='{made_at}'][data-editor=true]")
    verdict.wait_for(timeout=120_000)
    said = page.locator(RUN_SAID)
    expect(said).to_have_text(verdict.get_attribute("data-value"), timeout=10_000)
    expect(said).to_have_class(re.compile(r"\bwt-bad\b"))
    # a named bug's verdict is not about the editor's code: the line under Run says nothing
    live.locator(f"{LIVE} .wt-ctl-codelab-bug select").select_option(label=codelab_bugs.BY_ID["correct"].label)
    page.locator(f"{LIVE} [data-testid=codelab-verdict][data-editor=false]").wait_for(timeout=60_000)
    expect(said).to_have_text("", timeout=10_000)


def test_the_downloaded_script_and_notebook_print_what_the_page_shows(live, tmp_path):
    # the reader's own code run and raced on the page, then taken away: CPython prints the page's numbers
    page = live.page
    mine = codelab.bug_source("in_scale") + "# mine, to take home\n"
    run_live(page, mine)
    page.locator(f"{LIVE} [data-testid=codelab-race-final]").wait_for(timeout=120_000)
    # a race's final can be the last test's (the same code, the same steps) while this Run redraws the verdict: the
    # hooks are read once both are there
    assert until(lambda: {"codelab-verdict", "codelab-race-final"} <= set(shown(page, LIVE)), 60), shown(page, LIVE)
    hooks = shown(page, LIVE)
    files = {}
    page.locator(f"{LIVE} .wt-data .card-header").first.click()  # the downloads' card, closed by default
    for kind, name in (("Python script", "codelab.py"), ("notebook", "codelab.ipynb")):
        with page.expect_download(timeout=30_000) as got:
            page.locator(LIVE).get_by_role("button", name=f"Download the code and its check ({kind})").click()
        assert got.value.suggested_filename == name
        got.value.save_as(tmp_path / name)
        files[name] = (tmp_path / name).read_text()
    env = {**os.environ, "PYTHONPATH": str(Path(codelab.__file__).parents[1])}  # the package the build ships as a wheel
    printed = subprocess.run([sys.executable, "codelab.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                             check=True).stdout
    assert hooks["codelab-verdict"] in printed and f"CODE = {mine!r}" in files["codelab.py"]
    miss = float(re.search(r"misses it with probability (\S+)", printed).group(1))
    final = float(re.search(r"yours (\S+)", printed).group(1))
    assert carried(miss) == float(hooks["codelab-random-miss"]) and carried(final) == float(hooks["codelab-race-final"])
    namespace: dict = {}
    for cell in json.loads(files["codelab.ipynb"])["cells"][1:]:
        exec(cell["source"], namespace)  # the notebook's cells in order, as a kernel runs them
    assert namespace["out"]["verdict"] == hooks["codelab-verdict"]


# Where a wrapped line's rows start: [first code character's left, the leftmost left of its later rows, a character's
# width], measured through a Range over the line's text (its own rows, whatever draws it).
HANG_JS = """(el) => {
  const text = el.textContent, at = text.length - text.trimStart().length, range = document.createRange();
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), nodes = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) nodes.push(n);
  const place = (i) => { let k = i; for (const n of nodes) { if (k < n.length) return [n, k]; k -= n.length; } return null; };
  const rect = (i) => { const [n, k] = place(i); range.setStart(n, k); range.setEnd(n, k + 1); return range.getBoundingClientRect(); };
  const first = rect(at), rows = [];
  for (let i = at; i < text.length; i++) { const r = rect(i); if (r.top > first.bottom - 2) rows.push(r.left); }
  return [first.left, rows.length ? Math.min(...rows) : null, first.width];
}"""


@pytest.mark.parametrize("script", [True, False], ids=["editor", "still-before-any-script"])
def test_on_a_phone_a_wrapped_line_hangs_four_columns_under_its_own_code(browser, server, script):
    ctx = new_context(browser, Recorder(), java_script_enabled=script, **PHONE)
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
        lines = page.locator(".wt-codelab-editor .cm-line" if script else ".wt-codelab-still .wt-code-line")
        lines.first.wait_for(timeout=10_000)
        # CodeMirror draws the lines near the window only: the first ones, from the top, are the source's first
        source = codelab.original_source().rstrip("\n").split("\n")[:lines.count()]
        indents = [int(re.search(r"--wt-indent: (\d+)", lines.nth(i).get_attribute("style") or "")[1])
                   for i in range(len(source))]
        assert indents == [controls.indent(line) for line in source] and len(source) >= 8
        wrapped = 0
        for i, line in enumerate(source):
            code_left, rows_left, ch = lines.nth(i).evaluate(HANG_JS)
            if rows_left is not None:
                wrapped += 1
                assert abs(rows_left - (code_left + 4 * ch)) < 1.5, (i + 1, line, code_left, rows_left, ch)
        assert wrapped >= 4, "at 360 px the lesson's commented lines wrap"
    finally:
        ctx.close()


def test_a_lines_indent_counts_a_tab_to_the_next_multiple_of_four_in_both_layers(page, server):
    page.goto(f"{server.url}?embed=codelab&live=click", wait_until="domcontentloaded")
    page.locator(EDITOR).click()
    page.keyboard.press("Control+a")
    lines = ["x = 1", "  y", "\tz", "  \tw", "    \t  v"]
    page.keyboard.insert_text("\n".join(lines))
    got = [int(re.search(r"--wt-indent: (\d+)", s)[1]) for s in page.locator(".wt-codelab-editor .cm-line")
           .evaluate_all("(els) => els.map((el) => el.getAttribute('style') || '')")]
    assert got == [controls.indent(line) for line in lines] == [0, 2, 4, 4, 10]


def test_on_a_phone_a_bugs_changed_lines_wrap_whole_and_hang_under_their_code(browser, server):
    ctx = new_context(browser, Recorder(), **PHONE)
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=codelab&live=click&codelab.bug=buffered", wait_until="domcontentloaded")
        box = page.locator(f"{BOX} [data-testid=codelab-edit]")
        box.wait_for(timeout=10_000)
        assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1"), "a changed line runs out of its box"
        rows = [line.evaluate(HANG_JS) for line in box.locator(".wt-code-line").all()]
        assert any(left is not None for _, left, _ in rows), "at 360 px the buffered bug's long lines wrap"
        for code_left, rows_left, ch in rows:
            assert rows_left is None or abs(rows_left - (code_left + 4 * ch)) < 1.5, (code_left, rows_left, ch)
    finally:
        ctx.close()
