"""The URL parser: never raises, always yields a valid State, names everything it rejects."""
import dataclasses
from urllib.parse import quote

import pytest
from hypothesis import given, settings, strategies as st

from weighttying import state


def in_bounds(st_: state.State) -> bool:
    for c in state.CONTROLS:
        v = state.values(st_)[c.key]
        if type(v) is not c.type:
            return False
        if c.lo is not None and not (c.lo <= v <= c.hi):
            return False
        if c.choices is not None and v not in c.choices:
            return False
    return True


def valid_value(c: state.Control):
    if c.type is bool:
        return st.booleans()
    if c.type is int:
        return st.integers(int(c.lo), int(c.hi))
    if c.type is float:
        return st.floats(c.lo, c.hi, allow_nan=False)
    if c.key == "hide":
        return st.lists(st.sampled_from(sorted(state.HIDE_TOKENS)), unique=True).map(",".join)
    return st.sampled_from(c.choices)


# a link holds every control whose kind enters the URL (a reader's own text, file or prompt never does)
valid_states = st.fixed_dictionaries({}, optional={c.key: valid_value(c) for c in state.CONTROLS if c.spec.url}).map(state.from_values)


@settings(max_examples=800, deadline=None)
@given(st.text(max_size=300))
def test_parse_never_raises_and_stays_in_bounds(q):
    page_state, notes = state.parse_query(q)
    assert in_bounds(page_state)
    assert all(isinstance(n, str) for n in notes)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(state.BY_KEY)), st.text(max_size=80)), max_size=8))
def test_known_keys_with_arbitrary_values(pairs):
    q = "&".join(f"{quote(k)}={quote(v)}" for k, v in pairs)
    page_state, notes = state.parse_query(q)
    assert in_bounds(page_state)
    # each pair either took effect unchanged, or a note names its key
    for k, v in pairs:
        if state.BY_KEY[k].key not in " ".join(notes):
            value, note = state.parse_value(state.BY_KEY[k], v)
            assert note is None


@settings(max_examples=400, deadline=None)
@given(valid_states)
def test_round_trip(page_state):
    back, notes = state.parse_query(state.to_query(page_state))
    assert notes == []
    assert back == page_state


def test_default_state_has_empty_query():
    assert state.to_query(state.State()) == ""
    assert state.parse_query("") == (state.State(), [])


@pytest.mark.parametrize("q, key, why", [
    ("sweep.sigma=abc", "sweep.sigma", "not a number"),
    ("sweep.sigma=nan", "sweep.sigma", "not a number"),
    ("sweep.sigma=inf", "sweep.sigma", "not a number"),
    ("sweep.sigma=1e999", "sweep.sigma", "not finite"),
    ("sweep.sigma=1_0", "sweep.sigma", "not a number"),
    ("sweep.sigma=-3", "sweep.sigma", "clamped to 1e-08"),
    ("sweep.sigma=1e12", "sweep.sigma", "clamped to 100000000"),
    ("tasks.seeds=2.5", "tasks.seeds", "not a whole number"),
    ("tasks.seeds=-1", "tasks.seeds", "clamped to 1"),
    ("gradcheck.tied=maybe", "gradcheck.tied", "not on/off"),
    ("sweep.grid=ultra", "sweep.grid", "not one of"),
    ("embed=<script>alert(1)</script>", "embed", "not one of"),
    ("sweep.sigma=" + "9" * 10_000, "sweep.sigma", "too long"),
    ("bogus=1", "bogus", "unknown setting"),
    ("hide=prose,<b>x</b>", "hide", "ignored unknown"),
])
def test_bad_values_are_named(q, key, why):
    page_state, notes = state.parse_query(q)
    assert in_bounds(page_state)
    assert any(key in n and why in n for n in notes), notes


def test_clamp_keeps_the_nearest_bound():
    page_state, _ = state.parse_query("sweep.sigma=-3&tasks.seeds=99")
    assert page_state.sweep.sigma == 1e-8 and page_state.tasks.seeds == 10


def test_duplicate_key_last_valid_wins_and_is_noted():
    page_state, notes = state.parse_query("sweep.grid=fine&sweep.grid=bad&sweep.grid=coarse")
    assert page_state.sweep.grid == "coarse"
    assert any("given 3 times" in n for n in notes)


def test_notes_quote_values_truncated():
    _, notes = state.parse_query("sweep.grid=" + "x" * 60)
    assert all(len(n) < 200 for n in notes)


def test_replace_changes_one_control():
    s = state.replace(state.State(), "repeat.res", 0.0)
    assert s.repeat.res == 0.0 and dataclasses.replace(s.repeat, res=1.0) == state.Repeat()
    assert state.to_query(s) == "repeat.res=0"
