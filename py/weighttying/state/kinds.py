"""The kinds of control, declared once (Kind, KINDS), the syntax of their values in a link, and `spec`, the
dataclass field that gives a control its kind, bounds and help."""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_VALUE_CHARS = 64  # longer values are rejected unread: nothing legitimate needs more
MAX_HIDE_CHARS = 2048  # the hide list may name every control
MAX_TEXT_CHARS = 2_000_000  # a pasted text or a .txt file (2 MB): never in a link, so only the widget's limit
MAX_CODE_CHARS = 20_000  # the code lab's backward: about 30 lines; ten times more is no longer an edit of it

# The syntax of a URL value, written once: rules() hands these to the page's JS (site/state.js) as they are,
# so both languages read a link alike (tests/url_cases.json runs in both). ASCII digits only, as JS's RegExp reads
# them; SPACE is what a value is stripped of.
FLOAT_SYNTAX = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,4})?"
INT_SYNTAX = r"[+-]?[0-9]{1,12}"
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
HIDE_WORDS = ("prose", "controls")  # besides section ids and control keys
SPACE = " \t\n\r\f\v"
HIDE_SEP = ","  # between the hide list's tokens
URL_SAFE = ",.-+"  # what to_query leaves unescaped besides quote's own letters, digits and _.-~ (a hide list reads)


@dataclass(frozen=True)
class Kind:
    """One kind of control, declared once: the type of its values, how a link holds it (`url`: "number", "onoff",
    "words", "list", or None for never), the longest value read, a number's syntax and what a bad one is not, and
    its input form (`input`: how controls.INPUTS, site/player.js and app/store.WIDGETS draw it; its param follows
    `type`), whether its value is the reader's own text (`own`: the latest one a section takes, pasted or from a
    file, replaces its others), and the DOM event at which the page takes a value from its box before Python
    (`event`: "change", once committed, so a link is written per value and not per keystroke, and a file is read once
    per choice; "input", as typed: free text, kept whole for the live lab). rules() hands every field to
    site/state.js, which reads these properties and never a kind's name."""
    name: str
    type: type
    url: str | None
    input: str
    max_chars: int = MAX_VALUE_CHARS
    syntax: str = ""
    what: str = ""
    log: bool = False
    own: bool = False
    event: str = "change"


KINDS = {k.name: k for k in (
    Kind("number", float, "number", "number", syntax=FLOAT_SYNTAX, what="a number"),
    Kind("whole", int, "number", "number", syntax=INT_SYNTAX, what="a whole number"),
    Kind("log", float, "number", "number", syntax=FLOAT_SYNTAX, what="a number", log=True),
    Kind("choice", str, "words", "select"),
    Kind("toggle", bool, "onoff", "checkbox"),
    Kind("hide", str, "list", "text", max_chars=MAX_HIDE_CHARS),
    Kind("text", str, None, "textarea", max_chars=MAX_TEXT_CHARS, own=True, event="input"),
    Kind("file", str, None, "file", max_chars=MAX_TEXT_CHARS, own=True),
    Kind("line", str, None, "line", event="input"),
    Kind("code", str, None, "code", max_chars=MAX_CODE_CHARS, own=True, event="input"),
)}
BY_TYPE = {bool: "toggle", int: "whole", float: "number"}  # a field's kind when its spec names none


def spec(default, help, lo=None, hi=None, choices=None, log=False, label=None, kind=None, own=None, shown=None):
    """A dataclass field carrying its kind, bounds, allowed choices and help text as metadata; `own`: the choice the
    reader's own text (a value of an `own` kind in the section) selects, before Python and live alike; `shown`: what
    the reader reads for a choice {choice: words}, where its value (the URL's) is a name for code; `label`: what the
    reader reads as the control's name, where the prose writes it otherwise than the field (its URL key)."""
    kind = kind or ("log" if log else "choice" if choices else BY_TYPE[type(default)])
    meta = dict(help=help, lo=lo, hi=hi, choices=choices, kind=kind, label=label, own=own,
                shown=tuple((shown or {}).items()))
    return field(default=default, metadata=meta)
