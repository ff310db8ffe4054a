"""What every view shares: hooked numbers and tables, notes, slot markup, playback grids, the toy's
defaults, E's error heatmap and the memo of central differences (whose owner passes it in). No Panel;
no view imports another.

A view `views/<id>.py` is one section's output as named HTML fragments (see views/__init__.py); the
pieces two or more views need live here, so a section never reaches into another.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import html
import json
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .. import data, gradcheck, model, pathdrop, quoted, recipes
from .. import render as R
from .. import state as S

TOY = S.TOY  # the page's toy (model.Config()): every "of 64" on the page reads V from here
TOL = pathdrop.TOL  # an entry of a gradient agrees when its relative error is at most this
# A relative error's significant figures under the pointer: it is judged against TOL, and its further digits,
# rounding noise, would cost the gradient check's playback table a third more bytes.
ERROR_DIGITS = 2


# ---- numbers with test hooks ------------------------------------------------------------------------

def plain_number(x: object) -> object:
    """numpy scalars as plain int / float (so repr and JSON see ordinary numbers)."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    return int(x) if isinstance(x, (int, np.integer)) else float(x) if isinstance(x, (float, np.floating)) else x


def hook(testid: str, x: object, text: str | None = None, tag: str = "strong") -> str:
    """A shown number: <tag data-testid data-value=repr(x)>text</tag> (text defaults to render.num)."""
    x = plain_number(x)
    shown = R.num(x) if text is None else text
    return (f'<{tag} data-testid="{html.escape(testid)}" data-value="{html.escape(repr(x))}">'
            f"{html.escape(shown)}</{tag}>")


@dataclass(frozen=True)
class Num:
    """A number in a table cell with its test hook: data-testid and the exact repr."""
    testid: str
    x: float


@dataclass(frozen=True)
class Verdict:
    """A verdict cell: quoted.judge's text (the report's, which the exports keep), hooked as verdict-<id> with
    data-value = repr(its tolerance) (nan: not judged). On the page it is a chip (`chip`): the word and, for
    a number that differs, by how much; the rule behind one click (`rule`, the reader's wording)."""
    qid: str
    text: str
    tol: float
    suffix: str = ""  # "-seeds" on the build's seeds' row, so it never shares a hook with this run's row
    gap: float = math.nan  # |ours - page| of a judged number
    rule: str = ""  # what the chip opens to; "" = the text's parenthesis


def judged(qid: str, per_seed, noise=None) -> Verdict:
    """quoted.judge(qid, per_seed, noise) as a table cell: the report's rule, tolerance and wording. One run of
    a noisy quantity without the build's spread (noise) is not judged: its own spread is unmeasured, not 0."""
    if len(per_seed) < 2 and quoted.QUOTES[qid][2] and noise is None:
        return Verdict(qid, "n/a (one run: no measured spread to judge it by; two seeds or more judge it)", math.nan)
    j = quoted.judge(qid, per_seed, noise)
    return Verdict(qid, quoted.explained(j), j["tol"], gap=abs(j["ours"] - j["page"]), rule=reader_rule(j, noise))


def reader_rule(j: dict, noise=None) -> str:
    """quoted.judge's rule as a reader reads it: the distance, the tolerance and where the tolerance comes from
    (never a command or a file: those are the report's)."""
    _, decimals, page_seeds = quoted.QUOTES[j["id"]]
    gap, tol, n = abs(j["ours"] - j["page"]), j["tol"], j["seeds"]
    if page_seeds:
        ours = (f"one run of ours, with the spread of the build's {len(noise)} seeds" if n < 2 and noise is not None
                else f"our {n} seeds")
        why = (f"two standard errors of the difference ({ours}, against the page's "
               f"{page_seeds} {'run' if page_seeds == 1 else 'seeds'}) plus half a unit of the page's last digit")
    else:
        why = "an exact quantity: only the page's rounding (half a unit of its last digit)"
    out = (f"|ours − page| = {gap:.3g}, {'within' if gap <= tol else 'beyond'} the tolerance {tol:.3g}: {why}.")
    if j["id"] in quoted.TRAINED and j["distance"] > 1:
        out += (" The training recipe (task, learning rate, batch) is the one, of those searched, that reproduces "
                "the most page numbers at once; this one it does not reach.")
    return out


def chip(text: str, gap: float = math.nan) -> tuple[str, str]:
    """(word, detail) of a verdict text: 'agrees', 'differs by 0.49', 'not resolved', 'n/a'; the detail is
    what the text says in its parenthesis (and after it)."""
    word, _, rest = text.partition(" (")
    if word == "differs" and math.isfinite(gap):
        word = f"differs by {R.num(gap, 2)}"
    depth = 0
    for i, ch in enumerate(rest):  # drop the parenthesis that closes the one the word opened
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return word, (rest[:i] + rest[i + 1:]).strip()
    return word, rest


def chip_html(word: str, detail: str, hook_attrs: str = "") -> str:
    """A verdict chip: the word on the page, the rule one click, tap or keyboard focus away (a <details>)."""
    kind = (word.split() or ["none"])[0].replace("/", "")
    inner = f'<span class="wt-chip-word"{hook_attrs}>{html.escape(word)}</span>'
    if not detail:
        return f'<span class="wt-chip wt-{html.escape(kind)}">{inner}</span>'
    return (f'<details class="wt-chip wt-{html.escape(kind)}"><summary>{inner}</summary>'
            f'<span class="wt-rule">{html.escape(detail)}</span></details>')


def at_defaults(st, fields: Iterable[str]) -> bool:
    """Whether st has its default value on every one of fields (the page's recipe, for a judged run)."""
    default = type(st)()
    return all(getattr(st, f) == getattr(default, f) for f in fields)


def run_verdict(qid: str, value: float, noise: dict, comparable: bool, why: str) -> Verdict | str:
    """One live run of qid judged like the report, its spread from the build's seeds (noise {id: per-seed
    values}); 'n/a (why)' when the run is not the one the page describes."""
    return judged(qid, [value], noise.get(qid)) if comparable else f"n/a ({why})"


def seeds_row(label: str, qid: str, noise: dict, testid: str) -> list[object]:
    """[label, mean, page, verdict] of the build's seeds of qid: the report's row, as the page shows it."""
    return [f"{label}, mean of the build's {len(noise[qid])} seeds", Num(testid, quoted.mean_sd(noise[qid])[0]),
            quoted.QUOTES[qid][0], dataclasses.replace(judged(qid, noise[qid], noise[qid]), suffix="-seeds")]


def recipe_text(r: recipes.Recipe) -> str:
    """A race's calibrated choices in words, for its table's caption: the task, its entropy and the batch."""
    entropy = data.entropy(data.markov_task(TOY.V, aligned=False, rank=r.rank, beta=r.beta))
    return (f"its task: rank {r.rank}, β = {R.num(r.beta)} ({entropy:.2f} nats), batch {r.batch}; "
            f"chosen by calibration, the page does not say")


def cell(v: object) -> str:
    """HTML of one cell: a Num or Verdict with its hooks, a tuple of cells joined by an en dash, else escaped text."""
    if isinstance(v, Num):
        return hook(v.testid, v.x, tag="span")
    if isinstance(v, Verdict):
        return verdict_chip(v)
    if isinstance(v, tuple):
        return "–".join(cell(x) for x in v)
    return html.escape(R.num(v))


def verdict_chip(v: Verdict, prefix: str = "verdict-") -> str:
    """A Verdict as its chip, hooked <prefix><id> with data-value = repr(its tolerance) and data-verdict = its word."""
    word, detail = chip(v.text, v.gap)
    attrs = (f' data-testid="{prefix}{html.escape(v.qid)}{v.suffix}" data-value="{html.escape(repr(plain_number(v.tol)))}"'
             f' data-verdict="{html.escape((word.split() or ["none"])[0])}"')
    return chip_html(word, v.rule or detail, attrs)


def claim(parts: Sequence[tuple[str, str, object, Verdict | str]], testid: str, who: str = "the page") -> str:
    """A section's claim, the first thing in its block: per part (what, ours, the page's number, verdict), one
    phrase and the verdict's chip (hooked claim-<id>: the tables below keep the verdict-<id> hooks)."""
    items = "".join(
        f'<span class="wt-claim-item">{html.escape(what)}: ours <strong>{html.escape(ours)}</strong>, {who} '
        f'{html.escape(R.num(page))} {verdict_chip(v, "claim-") if isinstance(v, Verdict) else chip_html(*chip(v))}'
        "</span>" for what, ours, page, v in parts)
    return f'<div class="wt-claim" data-testid="{html.escape(testid)}">{items}</div>'  # a <p> cannot hold a <details>


def plain(v: object) -> object:
    """The export form of a cell: Nums become their number, tuples of Nums 'lo-hi' text."""
    if isinstance(v, Num):
        return plain_number(v.x)
    if isinstance(v, Verdict):
        return v.text
    if isinstance(v, tuple):
        return "-".join(R.num(plain(x)) for x in v)
    return v


def scroll(inner: str, label: str) -> str:
    """A wide table in a box that scrolls sideways on a narrow screen instead of widening the page; the box
    is a named region in the tab order, so a keyboard reader can reach it and scroll it with the arrows."""
    return (f'<div class="wt-scroll" role="region" tabindex="0" aria-label="{html.escape(label)}" '
            f'style="overflow-x: auto">{inner}</div>')


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], caption: str, testid: str) -> str:
    """render.table's layout with cells that may carry test hooks (Num), in a sideways-scrolling box."""
    head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in columns)
    verdict = [c == "verdict" for c in columns]
    body = "".join("<tr>" + "".join(f'<td data-label="{html.escape(c)}">'
                                    f"{chip_html(*chip(v)) if is_v and isinstance(v, str) else cell(v)}</td>"
                                    for v, is_v, c in zip(r, verdict, columns)) + "</tr>" for r in rows)
    return scroll(f'<table class="wt-table" data-testid="{html.escape(testid)}">'
                  f"<caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
                  caption)


def note(text: str, kind: str = "wt-help", testid: str = "") -> str:
    """A short escaped paragraph (help text, a status, a failure)."""
    tid = f' data-testid="{html.escape(testid)}"' if testid else ""
    return f'<p class="{html.escape(kind)}"{tid}>{html.escape(text)}</p>'


def pending(what: str, testid: str = "") -> str:
    """What a slot shows while its run has not produced a result for the current settings."""
    return note(f"{what}: not computed for these settings yet.", testid=testid)


# ---- slots -------------------------------------------------------------------------------------------

def slot(name: str, inner: str) -> str:
    """One slot of a section as the page holds it: prerendered, played back or live."""
    return f'<div class="wt-slot" data-slot="{html.escape(name)}">{inner}</div>'


DATA_SUMMARY = "Data and downloads"
DATA_BEFORE = ("Downloads of every table and figure (CSV, JSON, SVG, each stamped with the link that reproduces "
               "it) appear here once the live lab has loaded.")


def compose(slots: dict[str, str], overlays: dict[str, str] | None = None, pairs: Sequence[Sequence[str]] = (),
            data: Sequence[str] = (), claim: str = "", controls: str = "") -> str:
    """A section's output: its slots in display order, each in its wt-slot box; an overlay slot
    (OVERLAYS: {overlay: the slot it is drawn over}, listed right after it) shares a wt-stack box with
    the slot below it, where CSS draws the two in the same place; each of `pairs` (adjacent slots that
    compare) side by side in a wt-pair box; the `data` slots (the last ones) in the section's closed
    "Data and downloads" disclosure, which the live lab fills with the downloads too. The `claim` slot (the
    first) opens it; then `controls` (the section's controls) in a column beside the rest (wt-block)."""
    below = {base: over for over, base in (overlays or {}).items()}
    pieces: dict[str, str] = {}
    for name, inner in slots.items():
        if name in below:
            pieces[name] = f'<div class="wt-stack">{slot(name, inner)}{slot(below[name], slots[below[name]])}</div>'
        elif name not in (overlays or {}):
            pieces[name] = slot(name, inner)
    for a, b in pairs:
        pieces[a] = f'<div class="wt-pair">{pieces[a]}{pieces.pop(b)}</div>'
    main = "".join(p for name, p in pieces.items() if name not in data and name != claim)
    block = f'<div class="wt-block"><div class="wt-side">{controls}</div><div class="wt-main">{main}</div></div>'
    return pieces.get(claim, "") + block + data_box("".join(pieces[name] for name in data) + note(DATA_BEFORE, testid="data-before"))


def data_box(inner: str) -> str:
    """The section's "Data and downloads" disclosure, closed."""
    return f'<details class="wt-data" data-testid="data"><summary>{DATA_SUMMARY}</summary>{inner}</details>'


def no_results(st) -> None:
    """`results` of a section whose slots need no run: everything is computed from the state alone."""
    return None


def with_results(view, st):
    """The run results slots should show for st without a run: the section's own results, as the
    build ships them (`as_built`), when st leaves every RUN_KEYS field at its default, else None (a
    changed setting has no result until Run)."""
    default = type(st)()
    same = all(getattr(st, k) == getattr(default, k) for k in view.RUN_KEYS)
    # results follow the RUN_KEYS alone: every state default on them shares the default's (one run per build)
    return copy.deepcopy(_built(view, default if view.RUN_KEYS else st)) if same else None


@functools.lru_cache(maxsize=128)
def _built(view, st):
    """as_built(view.results(st)), once per state: the prerender, the playback tables and the
    results file of one build share each heavy run."""
    return as_built(view.results(st))


# ---- where a result comes from ------------------------------------------------------------------------

BUILT = "build"  # results["origin"] of results computed at build (absent: computed live in the browser)
# one line under a block's figures and tables (the package's name is the side column's status line's)
SOURCE_TEXT = {BUILT: "Computed at build by this page's own code, in CPython, not in your browser: running it "
                      "again here recomputes it live.",
               "live": "Computed live in your browser."}


def plain_data(x: object) -> object:
    """x as JSON holds it: arrays and tuples as lists, numpy scalars as plain numbers (keys must be text)."""
    if isinstance(x, dict):
        assert all(isinstance(k, str) for k in x), f"results keys must be text: {list(x)[:4]}"
        return {k: plain_data(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [plain_data(v) for v in x]
    return plain_number(x) if isinstance(x, np.generic) else x


def as_built(results):
    """results as the page ships them (results.json): plain data through JSON, marked as computed at
    build, so a view draws the same HTML from them in CPython at build and in the browser; None stays None."""
    if results is None:
        return None
    return {**json.loads(json.dumps(plain_data(results))), "origin": BUILT}


def origin(results) -> str:
    """"build" or "live": who computed these results."""
    return BUILT if isinstance(results, dict) and results.get("origin") == BUILT else "live"


def source(results, testid: str) -> str:
    """One line saying where the shown results were computed (data-source="build" or "live")."""
    where = origin(results)
    return (f'<p class="wt-source" data-testid="{html.escape(testid)}" data-source="{where}">'
            f"{html.escape(SOURCE_TEXT[where])}</p>")


def built_applies(view, st) -> bool:
    """Whether the build's results (for the section's default state) are the ones st shows: st is
    default on every RUN_KEYS field, or, for a section without RUN_KEYS (its results follow every
    control), on every field."""
    default = type(st)()
    keys = view.RUN_KEYS or [f.name for f in dataclasses.fields(st)]
    return all(getattr(st, k) == getattr(default, k) for k in keys)


# ---- playback grids ----------------------------------------------------------------------------------

def control(section: str, key: str) -> S.Control:
    """The spec of one control of a section."""
    return S.BY_KEY[f"{section}.{key}"]


def _numbers(section: str, c: S.Control, values: Iterable) -> tuple:
    presets = [p[c.name] for p in S.PRESETS.get(section, {}).values() if c.name in p]
    return tuple(sorted({c.type(v) for v in (*values, c.default, *presets) if c.lo <= v <= c.hi}))


# A kind's playback grid, by how a link holds it (state.Kind.url): a kind never in a link has none
GRIDS = {"number": _numbers, "onoff": lambda section, c, values: (False, True),
         "words": lambda section, c, values: tuple(c.choices)}


def grid(section: str, key: str, values: Iterable = ()) -> tuple:
    """A playback grid for one control: values (or every choice / both booleans), its default and
    every preset's value, in bounds, sorted and without repeats."""
    c = control(section, key)
    return GRIDS[c.spec.url](section, c, values)


def lin(lo: float, hi: float, step: float) -> list[float]:
    """lo, lo + step, ..., hi (slider positions), rounded to 12 decimals so 0.1 * 3 reads 0.3."""
    n = int(round((hi - lo) / step))
    return [round(lo + i * step, 12) for i in range(n + 1)]


def log(lo: float, hi: float, per_decade: int) -> list[float]:
    """A log grid from lo to hi with per_decade points per decade, to 3 significant figures."""
    a, b = math.log10(lo), math.log10(hi)
    n = int(round((b - a) * per_decade))
    return [float(f"{10 ** (a + i / per_decade):.3g}") for i in range(n + 1)]


# ---- E's error heatmap (gradient check, path drop) ----------------------------------------------------

def row_errors(err: np.ndarray) -> np.ndarray:
    """Max relative error of each row of E (V,)."""
    return err.max(axis=1)


def heatmap_desc(err: np.ndarray, inputs) -> str:
    """The text alternative of E's error heatmap: which rows are wrong, which tokens the batch read."""
    bad = np.flatnonzero(row_errors(err) > TOL).tolist()
    return (f"Rows of E over {TOL:g}: {len(bad)} of {len(err)}"
            f"{' (' + ', '.join(map(str, bad)) + ')' if 0 < len(bad) <= 16 else ''}; "
            f"tokens in the batch: {', '.join(map(str, np.unique(inputs).tolist()))}; "
            f"largest row error {R.num(float(err.max()))}.")


def error_heatmap(err: np.ndarray, inputs, title: str, heading: str = "") -> str:
    """E's entrywise relative error as a d x V grid (x = row of E = token id), rows over TOL outlined; under it
    what to see, the rows and tokens in full in its description."""
    err = np.asarray(err, float)  # the build's results arrive as nested lists
    V, d = err.shape
    bad = row_errors(err) > TOL
    mark = np.broadcast_to(bad, (d, V))
    said = (f"Outlined: the {int(bad.sum())} rows of E whose gradient is wrong (error over {TOL:g}); the others are "
            "right to rounding." if bad.any() else f"No row of E is wrong: every entry is within {TOL:g}.")
    return (R.heatmap(err.T, np.arange(V), np.arange(d), title, "row of E (token id)", "column of E", mark=mark,
                      zname="relative error", zdigits=ERROR_DIGITS, heading=heading, zlabel="relative error",
                      alt=heatmap_desc(err, inputs))
            + note(said))


# ---- central differences at init, computed once per model and batch by whoever owns the memo ----------

class Differences:
    """Central differences of model.init_params(cfg) by (cfg, inputs, targets), the newest SIZE kept, read-only.

    No module holds one: its owner passes it to every check of the same model on the same batch (live,
    the Store's, through which the gradient-check and path-drop sections both check the default model),
    so each is computed once."""
    SIZE = 8

    def __init__(self) -> None:
        self._grads: dict = {}

    @staticmethod
    def key(cfg: model.Config, inputs, targets) -> tuple:
        """The memo's key of one model and batch."""
        return cfg, tuple(np.asarray(inputs).tolist()), tuple(np.asarray(targets).tolist())

    def get(self, cfg: model.Config, inputs, targets) -> dict | None:
        """The central differences {name: read-only array} of this model and batch, or None when not known."""
        grads = self._grads.get(self.key(cfg, inputs, targets))
        return None if grads is None else dict(grads)

    def keep(self, cfg: model.Config, inputs, targets, numeric: dict) -> dict:
        """Keep central differences {name: array or nested lists} for this model and batch; what get() gives."""
        grads = {name: np.array(g, dtype=float) for name, g in numeric.items()}
        for grad in grads.values():
            grad.flags.writeable = False  # shared by every caller: nobody may change it
        self._grads[self.key(cfg, inputs, targets)] = grads
        while len(self._grads) > self.SIZE:
            self._grads.pop(next(iter(self._grads)))
        return dict(grads)

    def steps(self, cfg: model.Config, inputs, targets):
        """gradcheck.iter_numerical_grads of model.init_params(cfg) through the memo: progress dicts, the last
        with "numeric" (a single one when known)."""
        if (known := self.get(cfg, inputs, targets)) is not None:
            total = sum(P.size for P in known.values())
            yield {"step": total, "total": total, "numeric": known}
            return
        for point in gradcheck.iter_numerical_grads(model.init_params(cfg), cfg, inputs, targets):
            if "numeric" in point:
                point = {**point, "numeric": self.keep(cfg, inputs, targets, point["numeric"])}
            yield point


def last(points):
    """The last item of an iterator of progress dicts (run it to the end)."""
    for point in points:
        pass
    return point
