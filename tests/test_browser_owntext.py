"""The own-text section in headless Chromium (embed=owntext).

- Before Python (?live=click): choosing each shipped sample answers at once from the playback tables, with
  CPython's numbers for that sample.
- Live (owntext.steps=100, one cold load for the module): a pasted text trains with Run and the hooks show
  CPython's numbers for that text (1e-9 relative), with no request from the paste to the result but for the
  site's own files (the pool's workers starting); a file dropped on the section trains the same way, one
  dropped outside it is taken in place (the tab stays); every bad input (empty, too short, one character; a
  file not UTF-8 or over 2 MB, chosen) is named in the section and the results shown stay; Cancel stops a long run.
- A file chosen in the playback's box before Python is read there by Python's rule (a bad one named, kept nowhere;
  a good one replaces a paste and a later paste replaces it). Chosen with a prompt typed, both are in the live section
  after its hand-over, never in the URL; on a pool of two numerics workers (the page told it has 3 cores) it trains, tied and
  untied side by side, one part each, to CPython's numbers; Cancel stops both parts, each worker confirming the
  last step it took.
"""
from __future__ import annotations

import math
from urllib.parse import urlsplit

import numpy as np
import pytest

from conftest import Live, live_page
from harness import HELPERS_JS, STATUS_FIRST_JS, Recorder, assert_same_origin, new_context, until, wait_booted
from test_browser_repeat import press_slider, status, value
from weighttying import owntext
from weighttying import state
from weighttying.views import kit
from weighttying.views import owntext as owntext_view
from carried_numbers import near

pytestmark = pytest.mark.browser
LIVE = "#live-owntext[data-live=true]"
STEPS = 100
HOOKS = ("owntext-heldout-tied", "owntext-heldout-untied", "owntext-unigram", "owntext-bigram",
         "owntext-repeat-rate", "owntext-rank-tied", "owntext-rank-untied")
WORDS = "the cat sat on a mat and saw the dog run off to see a bird sing in the tall green tree".split()


def text_of(seed: int, n: int = 3000) -> str:
    """A deterministic text of about n characters over a small vocabulary of words."""
    rng = np.random.default_rng(seed)
    out = []
    while sum(map(len, out)) < n:
        out.append(" ".join(rng.choice(WORDS, 12)) + ".\n")
    return "".join(out)


def cpython(text: str, steps: int = STEPS) -> dict:
    """{hook: value} CPython shows for text at the module's settings (at STEPS steps a model)."""
    r = owntext.run(text, s=owntext.Setup(steps=steps))
    m = r["models"]
    return {"owntext-heldout-tied": m["tied"]["curve"][-1]["heldout"], "owntext-heldout-untied": m["untied"]["curve"][-1]["heldout"],
            "owntext-unigram": r["unigram"], "owntext-bigram": r["bigram"], "owntext-repeat-rate": r["repeat_rate"],
            "owntext-rank-tied": m["tied"]["rank_after"], "owntext-rank-untied": m["untied"]["rank_after"]}


def hooks(page, live: str = LIVE) -> dict:
    return {h: value(page, live, h) for h in HOOKS}


def close(a: float, b: float) -> bool:
    """A number the page carries (weighttying.precision) against CPython's exact one."""
    return near(a, b)


def test_each_sample_answers_before_python(browser, server):
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=owntext&live=click", wait_until="domcontentloaded")
        # the reader's text, file and prompt are the section's controls, drawn from the kinds table: inputs that
        # say they wait for Python
        for key, tag in (("text", "textarea"), ("file", "input[type=file]"), ("prompt", "input[type=text]")):
            box = page.locator(f"#live-owntext .wt-player .wt-ctl-owntext-{key}")
            assert box.locator(tag).count() == 1 and "once Python has loaded" in box.locator(".wt-needs-python").inner_text()
        built = kit.as_built(owntext_view.results(state.Owntext()))
        for name in ("code", "song", "prose"):
            page.select_option("#wt-p-owntext-sample", name)
            want = owntext_view.slots(state.Owntext(sample=name), built)["table"]
            bigram = want.split('data-testid="owntext-bigram" data-value="')[1].split('"')[0]
            page.locator(f"#live-owntext [data-testid=owntext-bigram][data-value='{bigram}']").wait_for(timeout=5_000)
            assert "owntext-heldout-tied" in want and page.locator("#live-owntext [data-testid=owntext-heldout-tied]").count() == 1
        page.select_option("#wt-p-owntext-sample", "yours")
        page.locator("#live-owntext [data-testid=owntext-now]", has_text="never leaves your browser").wait_for(timeout=5_000)
        files_before_python(page)
        assert page.evaluate("() => !window.__wt || window.__wt.status !== 'ready'")  # no Python was asked for
    finally:
        ctx.close()


CARRIED_JS = "() => window.__wt.address.carried(['owntext'])"
SAMPLE = "#wt-p-owntext-sample"


def files_before_python(page) -> None:
    """A file chosen in the playback's box is read there by Python's rule (state.decoded) and kept for the live lab:
    a bad one is named as the live picker names it and kept nowhere; a good one replaces a paste, and a paste
    after it replaces it back. A text taken (pasted or read) selects the sample state.Owntext.sample declares for it
    ("yours"), in the box, the figure and the link, as the live section does; a refused file selects nothing."""
    box = page.locator("#live-owntext .wt-player .wt-ctl-owntext-file")
    said = box.locator(".wt-file-said")
    page.select_option(SAMPLE, "prose")
    for name, run, times, _ in BAD_FILES:
        data = run * times
        box.locator("input[type=file]").set_input_files({"name": name, "mimeType": "text/plain", "buffer": data})
        want = state.decoded(data, state.MAX_TEXT_CHARS)[1]
        said.filter(has_text=want).wait_for(timeout=5_000)
        assert "wt-bad" in said.get_attribute("class") and page.evaluate(CARRIED_JS) == {}
        assert page.input_value(SAMPLE) == "prose" and "owntext.sample" not in page.url
    page.fill("#wt-p-owntext-text", "a paste of mine")
    assert page.evaluate(CARRIED_JS) == {"owntext.text": "a paste of mine"}
    assert page.input_value(SAMPLE) == owntext_view.YOURS
    page.select_option(SAMPLE, "prose")
    text = text_of(5) + "é ✓ 𝄞\n"  # Python counts code points: the clef is one character, two UTF-16 units
    box.locator("input[type=file]").set_input_files({"name": "mine.txt", "mimeType": "text/plain", "buffer": text.encode()})
    said.filter(has_text=state.FILE_SAYS["read"].format(name="mine.txt", chars=f"{len(text):,}")).wait_for(timeout=5_000)
    assert until(lambda: page.evaluate(CARRIED_JS) == {"owntext.file": text}), page.evaluate(CARRIED_JS)
    assert page.input_value(SAMPLE) == owntext_view.YOURS and f"owntext.sample={owntext_view.YOURS}" in page.url, page.url
    page.locator("#live-owntext [data-testid=owntext-now]", has_text="never leaves your browser").wait_for(timeout=5_000)
    line = page.locator("#live-owntext .wt-player-status")
    assert "Your text is kept in this page: it is read and trained on once" in line.inner_text(), line.inner_text()
    assert line.evaluate(STATUS_FIRST_JS)  # above the controls, beside the top of the figures it qualifies
    page.fill("#wt-p-owntext-text", "a later paste")
    assert page.evaluate(CARRIED_JS) == {"owntext.text": "a later paste"}
    page.fill("#wt-p-owntext-text", "")  # no text left: nothing waits for the live lab
    assert page.evaluate(CARRIED_JS) == {} and "Your text" not in line.inner_text(), line.inner_text()
    assert not line.evaluate(STATUS_FIRST_JS)  # where the answers come from: under the controls again
    assert "owntext.file" not in page.url and "paste" not in page.url


live = live_page(f"embed=owntext&owntext.steps={STEPS}")


def paste(page, text: str) -> None:
    box = page.locator(f"{LIVE} textarea")
    box.fill(text)
    box.press("Tab")  # the box reports its value when it loses focus


def said(page, text: str) -> None:
    page.locator(f"{LIVE} [data-testid=owntext-input]", has_text=text).wait_for(timeout=30_000)


def run_and_wait(page) -> None:
    page.locator(LIVE).get_by_role("button", name="Run", exact=True).click()
    status(page, LIVE, "Done.")


def test_a_pasted_text_trains_here_and_sends_nothing(live, dist_dir):
    text = text_of(1)
    before = len(live.rec.requests)
    paste(live, text)
    said(live, "Ready: your pasted text")
    run_and_wait(live)
    got, want = hooks(live), cpython(text)
    assert all(math.isfinite(x) for x in got.values()) and all(close(got[h], want[h]) for h in HOOKS), (got, want)
    assert "Your text" in live.locator(f"{LIVE} [data-testid=owntext-now]").text_content()
    # the text went nowhere: after the paste the page only reads its own files (Panel's stylesheets, and the
    # pool's numerics workers starting on the Run: worker.js, Pyodide, the wheels), same origin, GET, no query;
    # nothing is posted or sent off the origin (the text reaches the workers by postMessage)
    after = live.rec.requests[before:]
    assert all(m == "GET" and not urlsplit(u).query and (dist_dir / urlsplit(u).path.lstrip("/")).is_file()
               for m, u, t in after), after
    assert_same_origin([u for _, u, _ in after] or [live.server.url], live.server.url)
    assert "owntext" in live.url and text[:20] not in live.url


# every text the section refuses, and what it says (the engines' test, test_engines_owntext.py, pastes them too)
BAD_PASTES = [("", "The text is empty"), ("too short " * 5, "at least 200 are needed"), ("z" * 400, "one character")]
# every file it refuses: (name, a run of bytes, how many times, what it says)
BAD_FILES = [("latin1.txt", "caf\xe9 au lait, ".encode("latin-1"), 40, "not UTF-8 text"),
             ("big.txt", b"ab cd\n", 350_001, "the limit is 2 MB")]


@pytest.mark.parametrize("raw, message", BAD_PASTES)
def test_a_bad_paste_is_named_and_the_results_stay(live, raw, message):
    shown = hooks(live)
    paste(live, raw)
    said(live, message)
    live.locator(LIVE).get_by_role("button", name="Run", exact=True).click()
    live.locator(f"{LIVE} .wt-status.wt-bad", has_text=message).wait_for(timeout=30_000)
    assert hooks(live) == shown


@pytest.mark.parametrize("name, run, times, message", BAD_FILES)
def test_a_bad_file_is_named_and_the_results_stay(live, name, run, times, message):
    shown = hooks(live)
    live.locator(f"{LIVE} input[type=file]").set_input_files({"name": name, "mimeType": "text/plain", "buffer": run * times})
    live.locator(f"{LIVE} [role=alert]", has_text=message).wait_for(timeout=30_000)  # the file control refuses it
    assert hooks(live) == shown


# A reader's file, RUN's bytes TIMES over (made in the page: a 2 MB argument would cross a driver's wire), given as
# WAY says: "choose" (the live file box), "drop" on the live section's text box, or "drop-page" on the page outside
# it (site/drop.js). Whether the page took it (a drop it leaves alone, the browser opens in the tab).
FILE_JS = "([name, run, times, way]) => {" + HELPERS_JS + """
  const one = Uint8Array.from(run), all = new Uint8Array(one.length * times);
  for (let i = 0; i < times; i++) all.set(one, i * one.length);
  const dt = new DataTransfer(), live = document.getElementById('live-owntext');
  dt.items.add(new File([all], name, {type: 'text/plain'}));
  if (way === 'choose') { const box = __wtTest.deep(live, 'input[type=file]'); box.files = dt.files;
    box.dispatchEvent(new Event('change', {bubbles: true})); return true; }
  const at = way === 'drop' ? __wtTest.deep(live, 'textarea') : document.body;
  const ev = (type) => new DragEvent(type, {bubbles: true, composed: true, cancelable: true, dataTransfer: dt});
  at.dispatchEvent(ev('dragover')); const drop = ev('drop'); at.dispatchEvent(drop); return drop.defaultPrevented; }"""


def test_a_file_dropped_on_the_section_trains_like_a_paste(live):
    text = text_of(2)
    assert live.evaluate(FILE_JS, ["elsewhere.txt", list(b"x"), 300, "drop-page"])  # taken in place, and nowhere
    assert live.evaluate(FILE_JS, ["mine.txt", list(text.encode()), 1, "drop"])
    live.locator(f"{LIVE} [role=status]", has_text=f"Read mine.txt: {len(text):,} characters").wait_for(timeout=30_000)
    said(live, "Ready: the file you chose")
    run_and_wait(live)
    got, want = hooks(live), cpython(text)
    assert all(close(got[h], want[h]) for h in HOOKS), (got, want)
    assert "elsewhere.txt" not in live.locator(LIVE).inner_text()


def test_cancel_stops_a_long_run(live):
    press_slider(live, "owntext", "steps", "End")  # 5000 steps a model: the settings change drops the shown run
    live.locator(f"{LIVE} [data-testid=owntext-heldout-tied]").wait_for(state="detached", timeout=30_000)
    live.locator(LIVE).get_by_role("button", name="Run", exact=True).click()
    status(live, LIVE, f"of {2 * 5000}")  # both models' steps
    live.locator(LIVE).get_by_role("button", name="Cancel").click()
    status(live, LIVE, "Cancelled.")
    assert live.locator(f"{LIVE} [data-testid=owntext-heldout-tied]").count() == 0  # nothing claims to be trained
    assert live.locator(LIVE).get_by_role("button", name="Run", exact=True).is_enabled()


TWO_WORKERS = ("Object.defineProperty(navigator, 'hardwareConcurrency', {get: () => 3});"
               "Object.defineProperty(navigator, 'deviceMemory', {get: () => 8});")


def test_typed_before_python_then_tied_and_untied_train_side_by_side_on_two_workers_and_cancel_stops_both(browser, server):
    ctx = new_context(browser, Recorder(), init_js=(TWO_WORKERS,))
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}?embed=owntext&owntext.steps={STEPS}", wait_until="domcontentloaded")
        # chosen and typed into the playback's boxes while Python loads: the live section has them after its hand-over
        text = text_of(3)
        page.set_input_files("#live-owntext .wt-player input[type=file]",
                             {"name": "three.txt", "mimeType": "text/plain", "buffer": text.encode()})
        page.fill("#wt-p-owntext-prompt", "Th")
        page.locator("#live-owntext .wt-player .wt-file-said", has_text="Read three.txt").wait_for(timeout=5_000)
        assert page.evaluate("() => window.__wt.status === 'booting' && !document.querySelector('[data-live=true]')")
        two = Live(page, Recorder(), server, wait_booted(page))
        assert two.evaluate("__wt.pool.size") == 2
        assert two.locator(f"{LIVE} .wt-ctl-owntext-prompt input").input_value() == "Th"
        said(two, f"Ready: the file you chose ({len(text):,} characters)")
        assert text[:20] not in two.url and "Th" not in urlsplit(two.url).query and "owntext.sample=yours" in two.url
        run_and_wait(two)
        assert two.evaluate("__wt.pool.started") == 2, "two workers, one model each"
        got, want = hooks(two), cpython(text)
        assert all(close(got[h], want[h]) for h in HOOKS), (got, want)
        press_slider(two, "owntext", "steps", "End")  # 5000 steps a model
        two.locator(f"{LIVE} [data-testid=owntext-heldout-tied]").wait_for(state="detached", timeout=30_000)
        two.locator(LIVE).get_by_role("button", name="Run", exact=True).click()
        status(two, LIVE, "Step")
        run_id = two.evaluate("Math.max(...__wt.pool.runs.keys())")
        two.locator(LIVE).get_by_role("button", name="Cancel").click()
        status(two, LIVE, "Cancelled.")
        ended = until(lambda: (e := two.evaluate(f"__wt.pool.ended.filter((x) => x.run === {run_id})")) and len(e) == 2 and e)
        assert ended and sorted(e["part"] for e in ended) == [0, 1] and all(e["step"] < 5000 for e in ended), ended
        assert two.evaluate("__wt.pool.workers.every((w) => !w.part) && __wt.pool.runs.size === 0")
        assert two.locator(f"{LIVE} [data-testid=owntext-heldout-tied]").count() == 0
    finally:
        ctx.close()
