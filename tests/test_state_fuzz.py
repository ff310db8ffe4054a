"""More adversarial URL state for the parser, in CPython (tests/test_state.py has the basics).

Generated queries mix known keys, near-miss keys, markup, control characters, huge values, NaN/inf
spellings and duplicates. Properties: parse_query never raises, the State is always in bounds, every
note is short plain text that quotes at most a bounded slice of the input, every value that did not
take effect as given is named in a note, and the parser is idempotent through to_query.
"""
from __future__ import annotations

import math
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings, strategies as st

from weighttying import state
from test_state import in_bounds

KEYS = sorted(state.BY_KEY)
NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e-400", "0", "-0", "+1", "1e8",
           "1e-8", "1e12", "-3", "2.5", "0x10", "1_000", "١٢", "１", " 3 ", "3 4", "", ".", "e5", "1e", "--1"]
MARKUP = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '"><svg onload=alert(1)>',
          "javascript:alert(1)", "&lt;b&gt;", "\x00", "\u202e", "\r\n", "%00", "%3Cscript%3E"]

value = st.one_of(st.sampled_from(NUMBERS + MARKUP), st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
                  st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.integers(-10**15, 10**15).map(str),
                  st.builds(lambda ch, n: ch * n, st.sampled_from("9x<,"), st.integers(60, 12_000)))
key = st.one_of(st.sampled_from(KEYS), st.sampled_from(KEYS).map(str.upper), st.sampled_from(KEYS).map(lambda k: k + "x"),
                st.sampled_from(MARKUP), st.text(st.characters(blacklist_categories=("Cs",)), max_size=20))
pairs = st.lists(st.tuples(key, value), max_size=12)


def make_query(ps) -> str:
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in ps)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs)
def test_adversarial_queries(ps):
    q = make_query(ps)
    page_state, notes = state.parse_query(q)
    assert in_bounds(page_state)
    for n in notes:
        assert isinstance(n, str) and len(n) < 400, n
    # Every known key given a value that did not take effect exactly as written is named in a note.
    text = "\n".join(notes)
    for k, v in ps:
        if k in state.BY_KEY:
            got, note = state.parse_value(state.BY_KEY[k], v)
            if note is not None:
                assert k in text, (k, v, notes)
        elif k:
            assert "unknown setting" in text, (k, notes)
    # Idempotent: what the page writes back parses to the same State with no notes.
    back, back_notes = state.parse_query(state.to_query(page_state))
    assert back == page_state and back_notes == []


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(KEYS), st.lists(value, min_size=2, max_size=5))
def test_duplicates_last_valid_wins_and_are_named(k, vs):
    page_state, notes = state.parse_query(make_query([(k, v) for v in vs]))
    assert any(f"{k} was given {len(vs)} times" in n for n in notes), notes
    valid = [state.parse_value(state.BY_KEY[k], v)[0] for v in vs]
    valid = [x for x in valid if x is not None]
    got = state.values(page_state)[k]
    assert got == (valid[-1] if valid else state.BY_KEY[k].default)


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from([c for c in state.CONTROLS if c.type in (int, float)]),
       st.floats(allow_nan=True, allow_infinity=True))
def test_numbers_finite_clamped_and_named(c, x):
    page_state, notes = state.parse_query(f"{c.key}={quote(repr(x))}")
    got = state.values(page_state)[c.key]
    assert math.isfinite(got) and c.lo <= got <= c.hi
    if not math.isfinite(x) or (c.type is float and not c.lo <= x <= c.hi):
        assert any(c.key in n for n in notes), (x, notes)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200))
def test_notes_never_carry_long_input(raw):
    """A note quotes at most SHOW_CHARS characters of a value (each at most 10 once repr-escaped),
    however long the value."""
    _, notes = state.parse_query("sweep.grid=" + quote(raw * 50, safe=""))
    for n in notes:
        assert len(n) < 10 * state.SHOW_CHARS + 120, n
