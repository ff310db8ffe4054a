"""weighttying.early in CPython: which sections answer off-grid settings before Panel, and that their answer is,
slot for slot, what the live Panel section draws for the same link (the browser's check: test_browser_early.py)."""
import json
import subprocess
import sys

import pytest

from weighttying import codelab, early
from weighttying import state
from weighttying.app import kit, sections
from weighttying.app.store import Store
from weighttying.views.kit import slot

OFF_GRID = {"tying": "tying.V=77&tying.d=5", "sweep": "sweep.sigma=0.0123&sweep.in_scale=3.3",
            "savings": "savings.V=1234&savings.layers=5"}


def test_only_sections_whose_results_follow_every_control_answer():
    follow = {s for s in state.SECTIONS if not early.view(s).RUN_KEYS}
    assert {s for s in state.SECTIONS if early.answers(s)} == follow and set(OFF_GRID) <= follow, follow
    assert not early.answers("nonsense")
    with pytest.raises(ValueError, match="no live answer without its Run"):
        early.slots("tasks", "")


@pytest.mark.parametrize("sid", sorted(OFF_GRID))
def test_the_answer_is_what_the_live_section_draws(sid):
    got = json.loads(early.slots(sid, OFF_GRID[sid]))
    store = Store(state.parse_query(OFF_GRID[sid])[0])
    sections.build(store, sid)
    panes = kit.SECTION_SLOTS[store][sid].panes
    assert list(got) == list(panes)
    for name, inner in got.items():
        assert panes[name].object == slot(name, inner), name
    assert got != json.loads(early.slots(sid, "")), "the setting changes the answer"


# ---- a Run before Panel (early.Run; site/earlyrun.js): the reader's code, its slots drawn with each batch ----

def reader_spec(code: str) -> str:
    """The spec the page sends for the code lab's Run before Panel of CODE (earlyrun.js: the link's values, the
    carried code)."""
    return json.dumps({"section": "codelab", "query": "codelab.bug=yours&codelab.steps=40",
                       "carried": {"codelab.code": code}})


def codelab_code(bug: str) -> str:
    """A named bug's source as the reader's code (a comment line makes it theirs)."""
    return codelab.bug_source(bug) + "# mine\n"


# A batch ends when its time is up (pool.Part.batch): on a busy box that can be just after the last point, and the
# next batch then says only "done", its slots null (nothing changed). TRAILING gives every Run that batch.
TRAILING = pytest.mark.parametrize("trailing", [False, True], ids=["", "trailing-done"])


def run_whole(spec: str, trailing: bool = False) -> list[dict]:
    """Every batch of a Run before Panel, parsed: [{batch, slots}]; TRAILING: and one more batch once it is done."""
    run = early.part(spec)
    out = []
    while not run.done:
        out.append(json.loads(run.batch()))
    if trailing:
        out.append(json.loads(run.batch()))
    return out


def news(batches: list[dict]) -> list[dict]:
    """The batches after the first that hold points: each draws the results it adds."""
    return [b for b in batches[1:] if json.loads(b["batch"])["points"]]


def test_the_sections_with_a_run_before_panel_are_those_with_code():
    coded = {c.section for c in state.CONTROLS if c.spec.input == "code"}
    assert set(early.emitted()) == coded == {"codelab"}
    assert early.emitted()["codelab"] == {"quiet_s": early.view("codelab").QUIET_S}
    assert not early.has_run("tasks") and not early.has_run("sweep")
    with pytest.raises(ValueError, match="no Run before the live lab"):
        early.part(json.dumps({"section": "tasks", "query": ""}))


def test_preparing_for_the_code_labs_run_keeps_what_every_run_computes_first():
    from weighttying.views import codelab as codelab_view
    codelab_view.numeric.cache_clear()
    codelab_view.bug_checks.cache_clear()
    early.prepare("codelab")
    assert codelab_view.numeric.cache_info().currsize == 1, "prepare left the central differences to the Run"
    assert codelab_view.bug_checks.cache_info().currsize == 1, "prepare left the claim's checks to the Run"
    with pytest.raises(ValueError, match="no Run before the live lab"):
        early.prepare("tasks")


def test_a_numerics_workers_run_of_the_readers_code_never_imports_htmls_entity_table():
    # weighttying.markup's reason to be: html.entities is ~33 ms of a numerics worker's boot in Pyodide
    code = ("import json, sys\nfrom weighttying import codelab, early\n"
            f"run = early.part({reader_spec(codelab_code('output_only'))!r})\n"
            "early.prepare('codelab')\nwhile not run.done: run.batch()\n"
            "print(json.dumps(sorted(m for m in sys.modules if m == 'html' or m.startswith('html.'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.splitlines()[-1]) == []


def test_a_part_spec_runs_as_the_pool_runs_it():
    from weighttying import pool
    spec = pool.split("codelab", state.State().codelab, 1)[0]
    assert isinstance(early.part(json.dumps(spec)), pool.Part)


@TRAILING
def test_the_run_shows_nothing_until_its_first_answer(trailing):
    batches = run_whole(reader_spec(codelab_code("output_only")), trailing)
    assert batches[0]["slots"] is None, "the bare first point would blank the results shown"
    new = news(batches)
    assert new and all(b["slots"] for b in new), "a batch with points draws them"
    assert all(b["slots"] is None for b in batches[1:] if b not in new), "nothing new, nothing drawn"
    assert json.loads(batches[-1]["batch"])["done"]


@TRAILING
@pytest.mark.parametrize("adopt_first", [False, True], ids=["built-then-adopted", "adopted-then-built"])
def test_the_live_section_takes_the_run_over_with_the_same_bytes(adopt_first, trailing):
    from weighttying.app.kit import runsection
    code = codelab_code("output_only")
    batches = run_whole(reader_spec(code), trailing)
    page = state.carry(state.parse_query("codelab.bug=yours&codelab.steps=40")[0], {"codelab.code": code})
    store = Store(page)
    texts = [b["batch"] for b in batches]
    if adopt_first:
        runsection.adopt(store, "codelab", texts)
    sections.build(store, "codelab")
    if not adopt_first:
        runsection.adopt(store, "codelab", texts)
    panes = kit.SECTION_SLOTS[store]["codelab"].panes
    drawn = news(batches)[-1]["slots"]  # the last results drawn
    assert set(drawn) == set(panes) - {"claim", "code"}, "the slots no result changes are not drawn"
    for name, inner in drawn.items():
        assert panes[name].object == slot(name, inner), name
    assert "wt-bad" in panes["verdict"].object, "the wrong backward's verdict, not the build's"
