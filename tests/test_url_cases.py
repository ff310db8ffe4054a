"""tests/url_cases.json in Python: weighttying.state reads each query to the values, to_query and note count the
file records, and state.fill gives each fill case's updates. tests/node/state.test.mjs runs the same file against
site/state.js over the rules the build put into the page, so the two languages read every case alike."""
from __future__ import annotations

import dis
import json
import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

import node_fixtures
from weighttying import prerender
from weighttying import state
CASES = json.loads((Path(__file__).with_name("url_cases.json")).read_text())


def non_default(st: state.State) -> dict:
    defaults = state.values(state.State())
    return {k: v for k, v in state.values(st).items() if repr(v) != repr(defaults[k])}  # repr: -0.0 is not 0.0


@pytest.mark.parametrize("case", CASES["queries"], ids=lambda c: c["why"])
def test_query(case):
    st, notes = state.parse_query(case["query"])
    assert {k: repr(v) for k, v in non_default(st).items()} == {k: repr(v) for k, v in case["values"].items()}
    assert state.to_query(st) == case["to_query"]
    assert len(notes) == case["notes"], notes
    again, notes = state.parse_query(state.to_query(st))
    assert again == st and not notes  # what is written reads back the same


@pytest.mark.parametrize("case", CASES["fills"], ids=lambda c: c["why"])
def test_fill(case):
    fills = case["fills"] if "fills" in case else prerender.view(case["section"]).FILLS
    defaults = case["defaults"] if "defaults" in case else vars(getattr(state.State(), case["section"]))
    assert state.fill(fills, case["values"], defaults, case["changed"]) == case["updates"]


def control(c: dict) -> state.Control:
    """A value case's control (as rules() writes one) as state's Control."""
    return state.Control(c["section"], c["name"], c["kind"], c["default"], "", c["lo"], c["hi"],
                     tuple(c["choices"]) if c["choices"] else None)


@pytest.mark.parametrize("case", CASES["values"], ids=lambda c: c["why"])
def test_value(case):
    value, note = state.parse_value(control(case["control"]), case["raw"])
    assert (repr(value), note) == (repr(case["value"]), case["note"])


@pytest.mark.parametrize("case", CASES["fmt"], ids=lambda c: c["why"])
def test_fmt(case):
    assert state.fmt(case["x"]) == case["to"]


@pytest.mark.parametrize("case", CASES["quote"], ids=lambda c: c["why"])
def test_quote(case):
    assert quote(case["text"], safe=state.URL_SAFE) == case["to"]
    assert all(ch in state.url_keeps() for ch in case["to"] if ch != "%")  # what JS keeps as it is, the rest escaped


def test_the_cases_cover_every_kind_of_control_and_note():
    """The file exercises each kind of value the rules know (KINDS: the page's controls, and each kind in a value
    case), and each way a value is refused or changed."""
    keys = {k for c in CASES["queries"] for k, _ in re.findall(r"(?:^|&)([^=&]+)=?([^&]*)", c["query"].lstrip("?"))}
    assert {state.BY_KEY[k].kind for k in keys if k in state.BY_KEY} == {c.kind for c in state.CONTROLS}
    assert {c["control"]["kind"] for c in CASES["values"]} == set(state.KINDS)
    notes = [n for c in CASES["queries"] for n in state.parse_query(c["query"])[1]]
    notes += [c["note"] for c in CASES["values"] if c["note"]]
    for name, template in state.NOTES.items():  # every note the readers say, so every way they refuse a value
        said = re.compile(re.sub(r"\\\{\w+\\\}", ".*", re.escape(template)))
        assert any(said.fullmatch(n) for n in notes), name
    whats = {state.KINDS[c["control"]["kind"]].what for c in CASES["values"] if c["note"] and "is not a" in c["note"]}
    assert whats == {k.what for k in state.KINDS.values() if k.what}


def missed_lines(functions, run) -> dict[str, list[int]]:
    """{name: lines of it that never ran} of functions while run() runs (sys.settrace, as coverage tools count)."""
    codes, ran = {f.__code__ for f in functions}, set()

    def line(frame, event, _):
        if event == "line":
            ran.add((frame.f_code, frame.f_lineno))
        return line

    before = sys.gettrace()
    sys.settrace(lambda frame, event, _: line if frame.f_code in codes else None)
    try:
        run()
    finally:
        sys.settrace(before)
    missed = {f.__name__: sorted({n for _, n in dis.findlinestarts(f.__code__) if n and n > f.__code__.co_firstlineno}
                                 - {n for code, n in ran if code is f.__code__}) for f in functions}
    return {name: lines for name, lines in missed.items() if lines}


def test_the_cases_run_every_line_of_the_rules_both_languages_run():
    """The shared cases run every line of the Python side of each rule site/state.js runs too (its own side is
    counted by V8 in tests/node/state.test.mjs): a branch no case takes would be a branch the languages may read
    differently unnoticed."""
    def run():
        for q in CASES["queries"]:
            state.to_query(state.parse_query(q["query"])[0])
        for v in CASES["values"]:
            state.parse_value(control(v["control"]), v["raw"])
        for f in CASES["fills"]:
            test_fill(f)
        for f in CASES["fmt"]:
            state.fmt(f["x"])
        for _, hexed, times, limit in node_fixtures.FILES:
            state.decoded(bytes.fromhex(hexed) * times, limit)
    rules = [state.parse_query, state.parse_value, *state.READERS.values(), state._show, state._names, state.fill,
             state.fmt, state.to_query, state.decoded]
    assert missed_lines(rules, run) == {}


def test_the_rules_are_json_and_name_every_control():
    rules = json.loads(json.dumps(prerender.rules()))
    assert [c["key"] for c in rules["controls"]] == [c.key for c in state.CONTROLS]
    assert rules["sections"] == list(state.SECTIONS) and rules["fills"].keys() <= set(state.SECTIONS)
    kinds = rules["kinds"]
    assert re.compile(kinds["number"]["syntax"]).fullmatch("1.5e-3") and not re.compile(kinds["whole"]["syntax"]).fullmatch("1.5")
    assert [k for k, v in kinds.items() if v["url"] is None] == ["text", "file", "line", "code"]


def test_the_page_carries_the_rules(dist_dir):
    """The built page's config holds exactly prerender.rules(): the data site/state.js reads."""
    html = (dist_dir / "index.html").read_text()
    config = json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>', html, re.S)[1])
    assert config["state"] == json.loads(json.dumps(prerender.rules()))


def test_no_state_rule_is_typed_in_the_site_js():
    """site/state.js applies the rules it is given: no page script spells out an on/off word or a digit pattern
    of its own ("true"/"false" are also the page's data attribute values, e.g. data-live="true")."""
    words = [w for w in (*state.TRUE_WORDS, *state.FALSE_WORDS) if not w.isdigit() and w not in ("true", "false")]
    for js in sorted((Path(__file__).resolve().parent.parent / "site").glob("*.js")):
        text = js.read_text()
        assert not [w for w in words if re.search(rf"[\"'`]{w}[\"'`]", text)], f"{js.name} types an on/off word"
        assert not re.search(r"\\d|\[0-9\]", text), f"{js.name} types a digit pattern"


def test_no_note_is_worded_in_the_site_js():
    """What a note or a file box says is state/'s (NOTES, FILE_SAYS, emitted in the rules): no page script types a
    piece of one (the words between its {fields}, a few words long)."""
    pieces = {piece.strip() for said in (*state.NOTES.values(), *state.FILE_SAYS.values())
              for piece in re.split(r"\{\w+\}", said) if len(piece.strip()) >= 12}
    assert len(pieces) >= 10, pieces  # the notes are split into pieces a script could copy
    for js in sorted((Path(__file__).resolve().parent.parent / "site").glob("*.js")):
        text = js.read_text()
        assert not [p for p in pieces if p in text], f"{js.name} words a note: {[p for p in pieces if p in text]}"


def test_one_writer_of_the_address_bar_and_no_branch_on_a_kind():
    """site/address.js is the page's one caller of replaceState; no code of py/ or site/ compares a control's kind
    or key with a name (a kind's behaviour is a row of KINDS and its tables, read by property)."""
    root = Path(__file__).resolve().parent.parent
    calls = {js.name: js.read_text().count("replaceState(") for js in sorted((root / "site").glob("*.js"))}
    assert {k: n for k, n in calls.items() if n} == {"address.js": 1}, calls
    branch = re.compile(r"""(\b(c|x|ctl|control|spec)\.(kind|key|name)|kind\(\w+\))\s*(===?|!==?)\s*["'`]""")
    for path in [*sorted((root / "site").glob("*.js")), *sorted((root / "py" / "weighttying").rglob("*.py"))]:
        found = [line for line in path.read_text().splitlines() if branch.search(line)]
        assert not found, f"{path.name}: {found}"
