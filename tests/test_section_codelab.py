"""The code lab's section in CPython: every named bug's slots carry codelab's numbers (wrong rows, largest error, the
random check's miss probability, the race's final loss, the verdict), an agreeing entry's error is never shown by
its digits, a bug that gives no gradients says why, and the live section's Run streams the race to codelab.race's."""
import dataclasses
import html
import re

import numpy as np
import pytest

from weighttying import codelab, codelab_bugs, quoted, report
from weighttying import state
from weighttying.app.sections import codelab as section
from weighttying.app.store import Store
from weighttying.precision import carried
from weighttying.views import codelab as codelab_view
from weighttying.views import contract, kit
from test_section_repeat import button, run_until_done, shown

DEFAULT = state.State().codelab
BUGS = [b.id for b in codelab_bugs.BUGS]


def hooks(text: str) -> dict[str, str]:
    """{data-testid: data-value} of every hook in some HTML (values unescaped, as text)."""
    return {k: html.unescape(v) for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', text)}


def shown_slots(st: state.Codelab) -> str:
    """Every slot of st as the build shows it (its results through JSON)."""
    return "".join(codelab_view.slots(st, kit.with_results(contract.view("codelab"), st)).values())


@pytest.mark.parametrize("bug", BUGS)
def test_each_named_bug_shows_codelabs_numbers(bug):
    st = dataclasses.replace(DEFAULT, bug=bug)
    got, want = hooks(shown_slots(st)), codelab.lab(codelab.bug_source(bug))
    if want["kind"] != "ok":  # the transposed product: the shape check stops it, and says where
        assert got == {"codelab-claim-miss": got["codelab-claim-miss"], "codelab-verdict": got["codelab-verdict"]}
        assert want["message"] in got["codelab-verdict"] and "codelab-wrong-rows" not in got
        return
    assert int(got["codelab-wrong-rows"]) == sum(want["entries"]["E"]["wrong_rows"])
    assert int(got["codelab-wrong-entries"]) == want["entries"]["wrong"]
    assert float(got["codelab-random-miss"]) == carried(want["random"]["miss_probability"])
    assert float(got["codelab-race-final"]) == carried(want["race"]["final"]["yours"])
    assert got["codelab-verdict"] == want["verdict"]
    worst = float(got["codelab-max-rel-err"])
    assert worst == (carried(want["entries"]["max_rel_err"]) if want["entries"]["wrong"] else 0.0)


def test_an_agreeing_error_is_shown_as_at_most_tol_never_its_digits():
    text = shown_slots(DEFAULT)  # the correct backward: every error is rounding noise
    assert f"≤ {kit.TOL:g}" in text and hooks(text)["codelab-max-rel-err"] == "0.0"
    e = codelab.checks(codelab.original_source())["entries"]
    assert 0 < e["max_rel_err"] <= kit.TOL  # there are digits to hide
    assert codelab.verdict(e, None) == f"Exact: all {e['entries']} entries agree with central differences to {kit.TOL:g}."


def test_the_strip_marks_the_wrong_rows_and_the_batchs_tokens():
    st = dataclasses.replace(DEFAULT, bug="buffered")
    strip = codelab_view.slots(st)["strip"]
    inputs = codelab.batch()[0]
    repeated = np.flatnonzero(np.bincount(inputs, minlength=codelab.CONFIG.V) > 1)
    assert f"Wrong rows of dE: {len(repeated)} of 64 ({', '.join(map(str, repeated))})" in strip
    assert strip.count('stroke="#e69f00"') == len(set(inputs.tolist())) * codelab.CONFIG.d  # the batch's columns


def test_the_random_check_follows_k_and_the_claim_is_the_output_path_bugs():
    for k in (1, 20, codelab_view.ENTRIES):
        st = dataclasses.replace(DEFAULT, bug="output_only", k=k)
        out = codelab_view.slots(st)
        want = codelab.random_check(codelab.gradients(codelab.load(codelab.bug_source("output_only"))), codelab_view.numeric(), k)
        assert float(hooks(out["random"])["codelab-random-miss"]) == carried(want["miss_probability"])
        assert float(hooks(out["claim"])["codelab-claim-miss"]) == carried(want["miss_probability"])
    assert "passed" not in codelab_view.slots(dataclasses.replace(DEFAULT, bug="output_only", k=codelab_view.ENTRIES))["random"].split(":")[1]


def test_the_claim_sets_the_pages_own_words_beside_ours_and_judges_none():
    # the page gives the random check no rate, so the claim quotes it (as the report's row does) and its chip is n/a,
    # its rule naming the numbers the exact chance is made of
    for k in (20, codelab_view.ENTRIES):
        claim = codelab_view.slots(dataclasses.replace(DEFAULT, k=k))["claim"]
        text = html.unescape(re.sub(r"<[^>]+>", " ", claim))
        assert f"The page: \u201c{quoted.SAID['random_check']}\u201d" in text
        assert re.search(r'<span class="wt-chip-word">n/a</span>', claim)
        wrong = int(codelab.random_draw(codelab_view.wrong_mask(codelab_view.bug_checks("output_only")), k)["wrong"])
        assert f"the chance that {min(k, codelab_view.ENTRIES)} entries drawn without replacement all miss the {wrong} " \
               f"wrong ones of {codelab_view.ENTRIES}" in " ".join(text.split())
    rows = [r for r in report.pathdrop_rows() if r["id"].startswith("pathdrop.miss.")]
    assert rows and {r["page"] for r in rows} == {quoted.SAID["random_check"]}


def test_the_code_shown_is_the_bugs_edit_and_its_whole_source_for_the_editor():
    for bug in BUGS:
        out = codelab_view.slots(dataclasses.replace(DEFAULT, bug=bug))["code"]
        [source] = re.findall(r'data-codelab-source="([^"]*)"', out)
        assert html.unescape(source) == codelab.bug_source(bug)
        assert out.count("wt-code-changed") == len(codelab_bugs.BY_ID[bug].edits)  # one line each
    out = codelab_view.slots(dataclasses.replace(DEFAULT, bug="in_scale"))["code"]
    assert 'data-line="16">np.add.at(dE, inputs, dx)' in out
    assert "(removed)" in codelab_view.slots(dataclasses.replace(DEFAULT, bug="input_only"))["code"]
    assert "Run checks it" in codelab_view.slots(dataclasses.replace(DEFAULT, bug=codelab_view.YOURS))["code"]


def test_off_default_steps_keep_the_checks_and_the_race_waits_for_run():
    st = dataclasses.replace(DEFAULT, bug="output_only", steps=30)
    out = codelab_view.slots(st, kit.with_results(contract.view("codelab"), st))
    assert "codelab-race-pending" in out["race"] and "codelab-wrong-rows" in out["strip"]


def test_the_live_run_streams_codelabs_race():
    store = Store(state.parse_query("codelab.bug=in_scale&codelab.steps=30")[0])
    root = section.build(store)
    assert "codelab-race-pending" in shown(root)
    run_until_done(root, "Run")
    want = codelab.race(codelab.load(codelab.bug_source("in_scale")), 30)
    assert float(hooks(shown(root))["codelab-race-final"]) == carried(want["final"]["yours"])


def test_a_pooled_run_merges_to_the_one_worker_runs_results():
    st = dataclasses.replace(DEFAULT, bug=codelab_view.YOURS, code=codelab.bug_source("buffered"), steps=20)
    [part] = codelab_view.split(st, 4)
    merged = codelab_view.merge(st, [list(codelab_view.iter_part(st, part))])
    alone: dict = {}
    for p in codelab_view.steps(st):
        codelab_view.collect(alone, p)
    assert merged == alone and merged[codelab_view.YOURS]["bug"] == "buffered"  # the reader's text is the named bug's
    assert not codelab_view.collect(alone, {"step": 3, "loss": 1.0})  # a progress dict alone files nothing


def test_the_readers_code_never_runs_in_the_panel_worker_and_a_failure_keeps_the_last_good_results():
    store = Store(state.carry(state.parse_query("codelab.bug=yours&codelab.steps=20")[0],
                          {"codelab.code": codelab.original_source()}))
    root = section.build(store)
    assert "codelab-not-run" in shown(root)
    run_until_done(root, "Run")  # no pool in CPython: refused, nothing run
    assert section.ELSEWHERE in shown(root)
    run = section.here(store.state_of("codelab"))
    assert [p["entry"]["message"] for p in run] == [section.ELSEWHERE]
    good = codelab_view.outcome(codelab.original_source(), 20)  # the last good run, then a text that does not compile
    broken = codelab_view.checked("def lesson_backward(:\n")
    out = codelab_view.slots(dataclasses.replace(DEFAULT, bug=codelab_view.YOURS), {codelab_view.YOURS: {**good, "failed": broken}})
    assert 'data-line="1"' in out["verdict"] and "SyntaxError" in out["verdict"] and "codelab-wrong-rows" in out["strip"]


def test_a_run_leaves_the_last_results_shown_until_its_first_answer():
    """Run holds what is shown (its checks come within a moment: no "not checked" flash, no redraw before the work
    is asked for); the answer then replaces it."""
    import asyncio
    store = Store(state.parse_query("codelab.bug=in_scale&codelab.steps=30")[0])
    root = section.build(store)
    run_until_done(root, "Run")
    before = shown(root)

    async def click_and_look() -> str:
        button(root, "Run").clicks += 1  # the Run's start, up to its first await
        return shown(root)
    held = asyncio.run(click_and_look())
    assert hooks(held) == hooks(before) and "codelab-race-final" in hooks(held)  # every number shown, as it was
    run_until_done(root, "Run")
    assert "codelab-race-final" in shown(root)


def test_an_edit_in_the_live_section_selects_yours():
    store = Store(state.parse_query("codelab.bug=buffered")[0])
    section.build(store)
    store["codelab"].code = codelab.original_source() + "\n# mine\n"
    assert store["codelab"].bug == codelab_view.YOURS


def test_the_downloaded_script_and_notebook_print_the_pages_numbers(tmp_path):
    import json
    import subprocess
    import sys
    st = dataclasses.replace(DEFAULT, bug=codelab_view.YOURS, code=codelab.bug_source("in_scale"), k=50, steps=20)
    (tmp_path / "codelab.py").write_text(codelab_view.script(st))
    printed = subprocess.run([sys.executable, "codelab.py"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    want = codelab.lab(st.code, k=50, steps=20)
    assert want["verdict"] in printed and f"misses it with probability {want['random']['miss_probability']}" in printed
    assert f"yours {want['race']['final']['yours']}" in printed
    batch = f"the batch: {codelab.B} tokens, {codelab.DISTINCT} distinct: {codelab.batch(0)[0].tolist()}"
    assert batch in printed  # written out, not implied
    cells = json.loads(codelab_view.notebook(st))["cells"]
    namespace: dict = {}
    for cell in cells[1:]:
        exec(cell["source"], namespace)  # the notebook's cells, in order, as a kernel would
    assert cells[1]["source"] == st.code and namespace["out"]["verdict"] == want["verdict"]
