"""The one state of the page: every control, its bounds and help text, and its URL form.

The URL is the serialised State. `parse_query` is the only way in and never raises: every value it
rejects or clamps comes back as a plain-text note naming the key, the value and the reason, so the
page can show it (escaped) and carry on with the default. `to_query` writes only what differs from
the defaults, so a shared link stays short and survives default changes elsewhere.
"""
from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import math
import os
import re
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import parse_qsl, quote

from . import codelab, codelab_bugs, recipes
from .model import Config

TOY = Config()  # the page's toy model: its V, d and sigma are the defaults of the controls that set them

MAX_VALUE_CHARS = 64  # longer values are rejected unread: nothing legitimate needs more
MAX_HIDE_CHARS = 2048  # the hide list may name every control
MAX_TEXT_CHARS = 2_000_000  # a pasted text or a .txt file (2 MB): never in a link, so only the widget's limit
MAX_CODE_CHARS = 20_000  # the code lab's backward: about 30 lines; ten times more is no longer an edit of it
SHOW_CHARS = 24  # how much of a bad value a note quotes back

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


@dataclass(frozen=True)
class Kind:
    """One kind of control, declared once: the type of its values, how a link holds it (`url`: "number", "onoff",
    "words", "list", or None for never), the longest value read, a number's syntax and what a bad one is not, and
    its input form (`input`: how controls.INPUTS, site/player.js and app/store.WIDGETS draw it; its param follows
    `type`), and whether its value is the reader's own text (`own`: the latest one a section takes, pasted or from a
    file, replaces its others). rules() hands every field to site/state.js, which reads these properties and never a
    kind's name."""
    name: str
    type: type
    url: str | None
    input: str
    max_chars: int = MAX_VALUE_CHARS
    syntax: str = ""
    what: str = ""
    log: bool = False
    own: bool = False


KINDS = {k.name: k for k in (
    Kind("number", float, "number", "number", syntax=FLOAT_SYNTAX, what="a number"),
    Kind("whole", int, "number", "number", syntax=INT_SYNTAX, what="a whole number"),
    Kind("log", float, "number", "number", syntax=FLOAT_SYNTAX, what="a number", log=True),
    Kind("choice", str, "words", "select"),
    Kind("toggle", bool, "onoff", "checkbox"),
    Kind("hide", str, "list", "text", max_chars=MAX_HIDE_CHARS),
    Kind("text", str, None, "textarea", max_chars=MAX_TEXT_CHARS, own=True),
    Kind("file", str, None, "file", max_chars=MAX_TEXT_CHARS, own=True),
    Kind("line", str, None, "line"),
    Kind("code", str, None, "code", max_chars=MAX_CODE_CHARS, own=True),
)}
BY_TYPE = {bool: "toggle", int: "whole", float: "number"}  # a field's kind when its spec names none

# What a file box says of a file (decoded): the live lab's picker and, before Python, the playback's box (site/state.js
# fills these from rules()): {mb} the file's size in MB to a tenth, rounded down (from whole numbers, so both languages
# agree), {limit_mb} the limit, {at} the first byte that is not UTF-8, {chars} its characters.
FILE_SAYS = {"too_big": "The file is {mb} MB; the limit is {limit_mb} MB. Nothing was changed.",
             "not_text": "The file is not UTF-8 text (byte {at}); nothing was changed.",
             "read": "Read {name}: {chars} characters."}
MB = 1_000_000  # the bytes of the MB a file box names (rules() hands it to site/state.js)


def decoded(data: bytes | None, limit: int) -> tuple[str | None, str]:
    """(a file's text, or None; what is wrong with it): UTF-8 text of at most `limit` bytes (so as many characters)."""
    if not data:
        return None, ""
    if len(data) > limit:
        tenths = len(data) // (MB // 10)
        return None, FILE_SAYS["too_big"].format(mb=f"{tenths // 10}.{tenths % 10}", limit_mb=fmt(limit / MB))
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as err:
        return None, FILE_SAYS["not_text"].format(at=err.start)


def spec(default, help, lo=None, hi=None, choices=None, log=False, label=None, kind=None, own=None):
    """A dataclass field carrying its kind, bounds, allowed choices and help text as metadata; `own`: the choice the
    reader's own text (a value of an `own` kind in the section) selects, before Python and live alike."""
    kind = kind or ("log" if log else "choice" if choices else BY_TYPE[type(default)])
    meta = dict(help=help, lo=lo, hi=hi, choices=choices, kind=kind, label=label, own=own)
    return field(default=default, metadata=meta)


def seed_spec():
    """The seed control every stochastic section shares."""
    return spec(0, "Random seed: same seed, same numbers, in CPython and in the browser.", 0, 2**31 - 1)


@dataclass(frozen=True)
class Tying:
    V: int = spec(TOY.V, "Vocabulary size V: how many tokens; the rows of E (and of U when untied).", 2, 1_000_000)
    d: int = spec(TOY.d, "Model width d: the length of every token vector; the columns of E and U.", 1, 100_000)


@dataclass(frozen=True)
class Gradcheck:
    tied: bool = spec(True, "Tied: the output projection is E itself; untied: a separate U.")
    res: float = spec(1.0, "Residual weight: h = res * x + MLP(x); 0 removes the residual stream.", 0.0, 1.0)
    batch: int = spec(32, "Tokens in the batch the gradient is checked on.", 1, 256)
    repeats: bool = spec(True, "Force repeated tokens into the batch (the case a plain `dE[t] += dx` gets wrong).")
    seed: int = seed_spec()


@dataclass(frozen=True)
class Pathdrop:
    input: bool = spec(True, "Keep the input path into E: the sparse rows of the tokens that were read.")
    output: bool = spec(True, "Keep the output path into E: the dense dlogits.T @ h over every row.")
    k: int = spec(20, "Entries a random-entry gradient check samples.", 1, 1024)
    steps: int = spec(recipes.PATHDROP.steps, "Training steps for the correct vs broken loss curves.", 1, 5000)
    lr: float = spec(recipes.PATHDROP.lr, "Learning rate of those runs (too large diverges: try it).", 1e-4, 1e3,
                      log=True)
    seed: int = seed_spec()


@dataclass(frozen=True)
class Codelab:
    bug: str = spec("correct", "A backward to check: the lesson's correct one, one of its classic bugs (each a "
                    "one- or two-line edit of it), or yours, the code in the editor.",
                    choices=(*(b.id for b in codelab_bugs.BUGS), "yours"), own="yours")
    code: str = spec(codelab.original_source(), "Your backward: edit the lesson's code, then Run checks it in this "
                     "browser. It stays here: never in the address bar or a download's settings.", kind="code")
    k: int = spec(20, "Entries a random-entry gradient check draws (more than there are checks every one).", 1, 4096)
    steps: int = spec(recipes.PATHDROP.steps, "Training steps of the race: this backward against the page's, "
                      "from one init on the same batches.", 1, 5000)


@dataclass(frozen=True)
class Repeat:
    tied: bool = spec(True, "Tied: logits are read against E, the matrix the model reads from; untied: a separate U. "
                             "Picks the model the readout and histogram show (the race trains both).")
    res: float = spec(1.0, "Residual weight: h = res * x + MLP(x). 1 keeps a copy of E[t] in h; 0 is the control "
                            "without it (still tied).", 0.0, 1.0)
    sigma: float = spec(TOY.sigma, "Init std of E (and U): the self-term res * |E[t]|^2 grows as sigma^2.", 1e-8, 1e8, log=True)
    steps: int = spec(recipes.REPEAT.steps, "Training steps of the tied-vs-untied race (the page reports 600).", 0, 5000)
    lr: float = spec(recipes.REPEAT.lr, "Learning rate of the race (too large diverges: the run stops and says so).",
                      1e-4, 1e3, log=True)
    seed: int = spec(0, "Random seed: the table averages seeds seed..seed+4; the readout, histogram and race use seed. "
                         "Same seed, same numbers in CPython and in the browser.", 0, 2**31 - 1)


@dataclass(frozen=True)
class Tasks:
    seeds: int = spec(5, "Seeds 0..seeds-1 (model init and batches): the table reports the mean and the per-seed "
                          "ratio range.", 1, 10)
    steps: int = spec(recipes.TASKS.steps, "Training steps per model and seed (the page does not say; calibrated).",
                       10, 5000)
    lr: float = spec(recipes.TASKS.lr, "Learning rate of every run.", 1e-4, 1e3, log=True)


@dataclass(frozen=True)
class Owntext:
    sample: str = spec("prose", "The text to train on: a shipped sample (English prose, Python source, a song with a "
                        "refrain) or yours, pasted or from a file (yours never enters the address bar).",
                        choices=("prose", "code", "song", "yours"), own="yours")
    text: str = spec("", "Your text, pasted (at least 200 characters, at most 2 MB): choosing it makes the sample "
                     "'yours'. It stays in this browser: never in the address bar or a download.", kind="text")
    file: str = spec("", "Or a .txt file (UTF-8, at most 2 MB), chosen, or dropped anywhere on this section: its text is yours, "
                     "like a paste, whichever came last.", kind="file")
    cap: int = spec(96, "Vocabulary cap: at most this many tokens; beyond it the rarest characters share one "
                     "'other' token.", 2, 256)
    d: int = spec(TOY.d, "Model width d: the length of every character's vector (E's columns, U's too untied).", 1, 128)
    res: float = spec(1.0, "Residual weight: h = res * x + MLP(x); 1 keeps the character just read in h.", 0.0, 1.0)
    sigma: float = spec(TOY.sigma, "Init std of E (and U).", 1e-3, 10.0, log=True)
    steps: int = spec(1500, "SGD steps per model (batches of 64 character pairs from the first 90 %).", 10, 5000)
    lr: float = spec(0.5, "Learning rate of both models (too large diverges: the run stops and says so).", 1e-4, 1e3,
                      log=True)
    seed: int = spec(0, "Random seed: init, batches and the samples. Same seed, same numbers in CPython and in "
                      "the browser.", 0, 2**31 - 1)
    prompt: str = spec("", "Prompt for the samples each model writes: its last character starts them (the toy reads "
                       "one character); empty, the sample's own. Never in the address bar.", kind="line")


@dataclass(frozen=True)
class Sweep:
    sigma: float = spec(TOY.sigma, "Init std of E: scales both the residual stream and the logits.", 1e-8, 1e8, log=True)
    in_scale: float = spec(1.0, "inScale: x = inScale * E[t]; scales the residual stream only.", 1e-8, 1e8, log=True)
    grid: str = spec("coarse", "Grid resolution of the sweep.", choices=("coarse", "fine"))
    band: float = spec(0.1, "Half-width of the 'near 1' band, as a fraction: 0.1 means 0.9 to 1.1.", 0.01, 1.0)


@dataclass(frozen=True)
class Savings:
    preset: str = spec("gpt2-small", "A model to start from: picking one fills in the numbers below; "
                        "editing any of them switches to 'custom'.",
                        choices=("gpt2-small", "large-vocab-toy", "char-model", "custom"))
    V: int = spec(50257, "Vocabulary size V (tokens).", 2, 10_000_000)
    d: int = spec(768, "Model width d.", 1, 100_000)
    layers: int = spec(12, "Transformer blocks (attention + MLP each).", 0, 1000)
    d_ff: int = spec(3072, "MLP hidden width per block (GPT-2 uses 4d).", 1, 1_000_000)
    context: int = spec(1024, "Context length: rows of the learned position embedding.", 0, 10_000_000)


@dataclass(frozen=True)
class Paper:
    scale: float = spec(1.0, "Input-gradient scale: the input-path gradient into the tied E is multiplied by this "
                         "before the update (the paper's intervention). 1 is plain training, 0 turns the input path off.",
                         0.0, 100.0)
    seeds: int = spec(3, "Seeds per model (seed, seed+1, ...): similarity and lens are averaged over them.", 1, 5)
    steps: int = spec(300, "Training steps of every run.", 10, 5000)
    lr: float = spec(0.5, "Learning rate of every run (large input-gradient scales diverge at 0.5: lower it).",
                      1e-4, 1e3, log=True)
    seed: int = seed_spec()


@dataclass(frozen=True)
class Section:
    """A section, declared once: its id, its State dataclass, its view module (views/__init__.py says what it holds),
    its app module (live controls and runs beyond the shared ones; None: app.sections.generic serves it) and its
    prose (a file under the repository, wrapped with the live box by the build). check() fails naming a missing part."""
    id: str
    state: type
    view: str
    app: str | None
    html: str


def page_section(sid: str, state: type, app: bool = True) -> Section:
    """A section of the page, its parts where the page keeps them: views/<id>.py, app/sections/<id>.py,
    site/sections/<id>.html."""
    return Section(sid, state, f"{__package__}.views.{sid}", f"{__package__}.app.sections.{sid}" if app else None,
                   f"site/sections/{sid}.html")


EXTRA_SECTIONS = "WT_TEST_SECTIONS"  # modules declaring test-only sections (build.py --with-test-sections), comma-separated


def extra_sections() -> tuple[Section, ...]:
    """The sections the modules named in $WT_TEST_SECTIONS declare (each its SECTION), after the page's."""
    names = [n for n in os.environ.get(EXTRA_SECTIONS, "").split(",") if n]
    return tuple(importlib.import_module(n).SECTION for n in names)


# The page's sections in page order: the one list of them, and of their parts.
REGISTRY = (
    page_section("tying", Tying),
    page_section("gradcheck", Gradcheck),
    page_section("pathdrop", Pathdrop),
    page_section("codelab", Codelab),
    page_section("repeat", Repeat),
    page_section("tasks", Tasks),
    page_section("owntext", Owntext),
    page_section("sweep", Sweep),
    page_section("savings", Savings),
    page_section("paper", Paper),
    *extra_sections(),
)
SECTIONS = tuple(s.id for s in REGISTRY)
SECTION = {s.id: s for s in REGISTRY}


def missing_parts(root) -> list[str]:
    """What the registry declares and cannot be found, one line each naming the file (root: the repository, a
    pathlib.Path, which a declaration's prose path is relative to); [] when every part is there."""
    out = []
    for s in REGISTRY:
        for what, module in (("view", s.view), ("app", s.app)):
            if module and _find(module) is None:
                out.append(f"section {s.id!r}: its {what} module {module} is missing "
                           f"({module.replace('.', '/')}.py, looked up on sys.path)")
        if not (root / s.html).is_file():
            out.append(f"section {s.id!r}: its prose {s.html} is missing")
    return out


def _find(module: str):
    """importlib's spec of a module, or None when it (or its package) cannot be found."""
    try:
        return importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None
Sections = dataclasses.make_dataclass(
    "Sections", [(s.id, s.state, field(default_factory=s.state)) for s in REGISTRY], frozen=True)
Sections.__doc__ = "Every section's state, in page order (REGISTRY)."


@dataclass(frozen=True)
class Page:
    embed: str = spec("", "Render one section alone, compactly, for an iframe.", choices=("", *SECTIONS))
    hide: str = spec("", "Comma-separated things to hide: 'prose', 'controls', section ids or control keys.",
                      kind="hide")
    theme: str = spec("auto", "Colour scheme; 'auto' follows the reader's system.", choices=("auto", "light", "dark"))
    projector: bool = spec(False, "Projector mode: large type, thick lines and big controls, for a class reading "
                            "from the back of a room (1 = on).")
    live: str = spec("auto", "When the live lab (Python in the browser) loads: 'auto' at once, 'click' only when the "
                      "reader presses its button (data saver; the controls answer from precomputed tables).",
                      choices=("auto", "click"))


@dataclass(frozen=True)
class State(Sections):
    """The whole page: every section's state (Sections' fields, in page order), then the page's own."""
    page: Page = field(default_factory=Page)


@dataclass(frozen=True)
class Control:
    """One URL key: section.name, its kind (a name in KINDS), default and metadata."""
    section: str
    name: str
    kind: str
    default: object
    help: str
    lo: float | None
    hi: float | None
    choices: tuple | None
    own: str | None = None  # the choice the section's own text selects (spec)

    @property
    def key(self) -> str:
        return self.name if self.section == "page" else f"{self.section}.{self.name}"

    @property
    def spec(self) -> Kind:
        return KINDS[self.kind]

    @property
    def type(self) -> type:
        return self.spec.type

    @property
    def log(self) -> bool:
        return self.spec.log


def controls() -> tuple[Control, ...]:
    """Every control of the page in page order; the single source for widgets and the URL."""
    out = []
    for sec in dataclasses.fields(State):
        for f in dataclasses.fields(sec.default_factory):
            m = f.metadata
            out.append(Control(sec.name, f.name, m["kind"], f.default, m["help"], m["lo"], m["hi"], m["choices"], m["own"]))
    return tuple(out)


CONTROLS = controls()
BY_KEY = {c.key: c for c in CONTROLS}
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


def from_values(values: dict[str, object]) -> State:
    """A State from {key: value} for known, already validated keys; the rest stay default."""
    sections = {}
    for sec in dataclasses.fields(State):
        kw = {c.name: values[c.key] for c in CONTROLS if c.section == sec.name and c.key in values}
        sections[sec.name] = sec.default_factory(**kw)
    return State(**sections)


def values(state: State) -> dict[str, object]:
    """{key: value} for every control of state, in page order."""
    return {c.key: getattr(getattr(state, c.section), c.name) for c in CONTROLS}


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


def replace(state: State, key: str, value: object) -> State:
    """A copy of state with one control changed (value already validated)."""
    c = BY_KEY[key]
    section = dataclasses.replace(getattr(state, c.section), **{c.name: value})
    return dataclasses.replace(state, **{c.section: section})


# Named settings per section, one click away in each section's preset selector. A preset names only
# the controls it sets (by field name, as in the section's dataclass); the rest go back to their
# defaults, so a preset always means the same thing whatever was set before. tests/test_presets.py
# checks every name and value against the spec above. (savings has its presets as a control.)
CUSTOM_PRESET = "(your own settings)"  # what the selector shows when no preset matches
PRESETS: dict[str, dict[str, dict[str, object]]] = {
    "tying": {
        f"the page's toy (V={TOY.V}, d={TOY.d})": {},
        "GPT-2 small (V=50257, d=768)": {"V": 50257, "d": 768},
    },
    "gradcheck": {
        "tied, residual, repeated tokens": {},
        "untied, no residual": {"tied": False, "res": 0.0},
        "tied, no repeated tokens": {"repeats": False},
    },
    "pathdrop": {
        "both paths (correct)": {},
        "input path dropped": {"input": False},
        "output path dropped": {"output": False},
    },
    "repeat": {
        "tied, res=1": {},
        "untied": {"tied": False},
        "control res=0": {"res": 0.0},
    },
    "tasks": {
        "the page's five seeds": {},
        "one quick seed": {"seeds": 1, "steps": 200},
    },
    "owntext": {
        "Alice (English prose)": {},
        "Python source": {"sample": "code"},
        "a carol with a refrain": {"sample": "song"},
    },
    "sweep": {
        "page's coarse grid": {},
        "fine grid": {"grid": "fine"},
        "both near 1": {"sigma": 0.227, "in_scale": 4.5, "grid": "fine"},
    },
    "paper": {
        "as trained (scale 1)": {},
        "input-path gradient off": {"scale": 0.0},
        "input-path gradient x10": {"scale": 10.0},
    },
}


def preset_values(section: str, name: str) -> dict[str, object]:
    """{field: value} for every control of a section under a preset: defaults, then the preset's own."""
    return {**vars(getattr(State(), section)), **PRESETS[section][name]}


def linked(section: str, values: dict[str, object]) -> dict[str, object]:
    """The part of values ({field: value} of one section) a link holds: a reader's own text, file or prompt is
    not a setting, so a preset neither sets nor reads it."""
    return {k: v for k, v in values.items() if BY_KEY[k if section == "page" else f"{section}.{k}"].spec.url}


def matching_preset(section: str, current: dict[str, object]) -> str | None:
    """The name of the preset that current ({field: value} of one section) equals, if any."""
    return next((n for n in PRESETS.get(section, {})
                 if linked(section, preset_values(section, n)) == linked(section, current)), None)


def fill(fills: dict, values: dict[str, object], defaults: dict[str, object], changed: str = "") -> dict[str, object]:
    """Updates that make each choice of FILLS agree with the fields it fills in (a view's FILLS, see views/__init__).

    values and defaults are {field: value} of one section; changed is the field the reader just set, or ""
    for a state read from a link. Picking a choice fills in its fields; editing one of them away from the
    choice's makes the choice FILLS' "else"; a link whose fields are all at their defaults takes the choice's.
    site/state.js's fill is this function over the same data (tests/url_cases.json runs both)."""
    out: dict[str, object] = {}
    for key, rule in fills.items():
        want = rule["by"].get(values[key])
        if not want or all(values[f] == v for f, v in want.items()):
            continue
        if changed == key or (not changed and all(values[f] == defaults[f] for f in want)):
            out.update(want)
        elif not changed or changed in want:
            out[key] = rule["else"]
    return out


def rules(fills: dict[str, dict]) -> dict:
    """Every rule above as data, for the page's JS (build.py puts it into the page's config as "state"; site/state.js
    reads it): the on/off words, the kinds table (KINDS), the notes (NOTES) and how they quote, what a link leaves
    unescaped, what a file box says (FILE_SAYS, MB), each control's kind, default and bounds, presets and FILLS
    ({section: its view's FILLS}). The JS re-types none of it; it runs the readers, fmt, fill and decoded over it."""
    return {
        "true": TRUE_WORDS, "false": FALSE_WORDS, "space": SPACE, "hide_tokens": sorted(HIDE_TOKENS), "hide_sep": HIDE_SEP,
        "url_keeps": url_keeps(),
        "file_says": FILE_SAYS, "mb": MB, "notes": {"say": NOTES, "show_chars": SHOW_CHARS, "cut": SHOW_CUT, "names": NOTE_NAMES,
                                          "join": NOTE_JOIN, "no_default": NO_DEFAULT},
        "kinds": {k.name: {f.name: getattr(k, f.name) for f in dataclasses.fields(k) if f.name != "type"}
                  | {"whole": k.type is int} for k in KINDS.values()},
        "sections": SECTIONS,
        "controls": [{"key": c.key, "section": c.section, "name": c.name, "kind": c.kind, "default": c.default,
                      "lo": c.lo, "hi": c.hi, "choices": c.choices, "log": c.log, "own": c.own} for c in CONTROLS],
        "presets": PRESETS, "custom_preset": CUSTOM_PRESET,
        "fills": {sid: f for sid, f in fills.items() if f},
    }
