"""A link read and written: the URL is the serialised State.

`parse_query` is the only way in and never raises: every value it
rejects or clamps comes back as a plain-text note naming the key, the value and the reason, so the
page can show it (escaped) and carry on with the default. `to_query` writes only what differs from
the defaults, so a shared link stays short and survives default changes elsewhere.
"""
from __future__ import annotations

import math
import re
from typing import Callable
from urllib.parse import parse_qsl, quote

from .kinds import FALSE_WORDS, HIDE_SEP, HIDE_WORDS, SPACE, TRUE_WORDS, URL_SAFE
from .page import BY_KEY, CONTROLS, Control, State, from_values, replace, values
from .sections import SECTIONS

SHOW_CHARS = 24  # how much of a bad value a note quotes back

# What a link's reader says of a value it refuses or changes, worded once: rules() hands these to site/state.js, which
# fills them in before Python as parse_query does. {raw} is the value as _show quotes it; a note names at most
# NOTE_NAMES of a list's bad tokens, joined by NOTE_JOIN; "kept" names NO_DEFAULT for an empty default.
NOTES = {
    "unknown_key": "unknown setting {raw} ignored",
    "repeated": "{key} was given {n} times; the last valid one counts",
    "never_linked": "{key} is never read from a link (it may be long or private); ignored",
    "too_long": "{key}: value of {chars} characters is too long (max {limit}); kept default",
    "not_syntax": "{key}={raw} is not {what}; kept {default}",
    "not_finite": "{key}={raw} is not finite; kept {default}",
    "clamped": "{key}={raw} is outside [{lo}, {hi}]; clamped to {value}",
    "not_onoff": "{key}={raw} is not on/off (use 1 or 0); kept {default}",
    "not_word": "{key}={raw} is not one of {allowed}; kept {default}",
    "unknown_tokens": "{key}: ignored unknown {tokens}",
}
SHOW_CUT = "…"  # ends a value cut at SHOW_CHARS
NOTE_NAMES = 5
NOTE_JOIN = ", "
NO_DEFAULT = "none"
HIDE_TOKENS = frozenset((*HIDE_WORDS, *SECTIONS, *BY_KEY))


def _show(raw: str) -> str:
    """A bad value quoted back safely: truncated and repr'd, so control characters stay visible."""
    return repr(raw if len(raw) <= SHOW_CHARS else raw[:SHOW_CHARS] + SHOW_CUT)


def _names(texts) -> str:
    """Values a note lists, each quoted back (_show)."""
    return NOTE_JOIN.join(_show(t) for t in texts)


def _number(c: Control, raw: str) -> tuple[object | None, str | None]:
    """(value, note) for a number: its kind's strict syntax, finite, clamped into [lo, hi]."""
    said = dict(key=c.key, raw=_show(raw), default=fmt(c.default))
    if not re.fullmatch(c.spec.syntax, raw):
        return None, NOTES["not_syntax"].format(**said, what=c.spec.what)
    x = c.type(raw)
    if not math.isfinite(x):
        return None, NOTES["not_finite"].format(**said)
    lo, hi = c.lo, c.hi
    if lo is not None and x < lo or hi is not None and x > hi:
        y = c.type(min(max(x, lo), hi))
        return y, NOTES["clamped"].format(**said, lo=fmt(lo), hi=fmt(hi), value=fmt(y))
    return x, None


def _onoff(c: Control, raw: str) -> tuple[bool | None, str | None]:
    """(value, note) for a toggle: one of the on/off words."""
    low = raw.lower()
    if low in TRUE_WORDS or low in FALSE_WORDS:
        return low in TRUE_WORDS, None
    return None, NOTES["not_onoff"].format(key=c.key, raw=_show(raw), default=fmt(c.default))


def _word(c: Control, raw: str) -> tuple[str | None, str | None]:
    """(value, note) for a choice: one of its words, in any case."""
    if raw.lower() in c.choices:
        return raw.lower(), None
    allowed = _names(x for x in c.choices if x)
    return None, NOTES["not_word"].format(key=c.key, raw=_show(raw), allowed=allowed, default=fmt(c.default) or NO_DEFAULT)


def _hide(c: Control, raw: str) -> tuple[str, str | None]:
    """The hide list, keeping known tokens in order and naming the unknown ones."""
    tokens = [t.strip(SPACE) for t in raw.split(HIDE_SEP) if t.strip(SPACE)]
    good = [t for t in dict.fromkeys(tokens) if t in HIDE_TOKENS]
    bad = [t for t in tokens if t not in HIDE_TOKENS]
    note = NOTES["unknown_tokens"].format(key=c.key, tokens=_names(bad[:NOTE_NAMES])) if bad else None
    return HIDE_SEP.join(good), note


READERS: dict[str, Callable] = {"number": _number, "onoff": _onoff, "words": _word, "list": _hide}  # by Kind.url


def parse_value(c: Control, raw: str) -> tuple[object | None, str | None]:
    """(value or None, note or None) for one raw URL value of control c."""
    if c.spec.url is None:
        return None, NOTES["never_linked"].format(key=c.key)
    raw = raw.strip(SPACE)
    limit = c.spec.max_chars
    if len(raw) > limit:
        return None, NOTES["too_long"].format(key=c.key, chars=len(raw), limit=limit)
    return READERS[c.spec.url](c, raw)


def parse_query(query: str) -> tuple[State, list[str]]:
    """(State, notes) from a URL query string; never raises, whatever the input."""
    query = query[1:] if query.startswith("?") else query
    pairs = parse_qsl(query, keep_blank_values=True, errors="replace")
    notes, values, seen = [], {}, {}
    for key, raw in pairs:
        seen[key] = seen.get(key, 0) + 1
        c = BY_KEY.get(key)
        if c is None:
            if seen[key] == 1:
                notes.append(NOTES["unknown_key"].format(raw=_show(key)))
            continue
        value, note = parse_value(c, raw)
        if note:
            notes.append(note)
        if value is not None:
            values[key] = value
    notes += [NOTES["repeated"].format(key=k, n=n) for k, n in seen.items() if n > 1 and k in BY_KEY]
    return from_values(values), notes


def fmt(x: object) -> str:
    """The URL form of a value: shortest round-tripping float, 1/0 for booleans."""
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        text = repr(x)
        return str(int(x)) if x.is_integer() and "e" not in text else text  # 2.0 as 2, 1e+16 as repr writes it
    return str(x)


def url_keeps() -> str:
    """The characters to_query writes as they are (the rest percent-encoded as UTF-8): quote's, for site/state.js."""
    return "".join(ch for ch in map(chr, range(128)) if quote(ch, safe=URL_SAFE) == ch)


def to_query(state: State) -> str:
    """The query string (no leading '?') holding every non-default value of state."""
    defaults = values(State())
    return "&".join(f"{k}={quote(fmt(v), safe=URL_SAFE)}" for k, v in values(state).items()
                    if v != defaults[k] and BY_KEY[k].spec.url)


def link_values(state: State, section: str) -> dict[str, object]:
    """{key: value} of one section's controls that a link holds (kinds with a url form): what Python posts the page
    for its address bar (site/address.js), never a free text or a file."""
    return {c.key: getattr(getattr(state, section), c.name) for c in CONTROLS if c.section == section and c.spec.url}


def carry(state: State, values: dict) -> State:
    """state with the values of controls no link holds (kinds with no url form: free text typed before Python,
    which the page carries beside the query); any other key, a value not of its kind's type or too long, is
    dropped: a link's values come from the query alone."""
    for key, v in values.items():
        c = BY_KEY.get(key)
        if c is not None and c.spec.url is None and isinstance(v, c.type) and len(v) <= c.spec.max_chars:
            state = replace(state, key, v)
    return state
