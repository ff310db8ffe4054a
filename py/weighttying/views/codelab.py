"""The code lab's output: the claim, a backward's code, every entry checked, the strip of E's rows, the random-entry
check, the race against the page's backward and the verdict. No Panel.

`results(st)` is every named bug's outcome (codelab_bugs.BUGS: {bug id: outcome}) with its race at st.steps, so
choosing a bug and k answers before Python; only the race follows `steps` (the one RUN_KEY). The reader's code
(`st.code`, bug "yours") runs only in a Run, on a numerics worker (split, iter_part, merge): never in a redraw. An outcome is
`outcome(text, steps)`: the text's error (codelab's error dict), or its checks, the wrong entries' flat indices
(the random-entry check redraws them for any k) and E's entrywise errors as the page shows them (kit.shown_errors: an
agreeing entry's error is rounding noise, shown as "≤ 0.0001", never its digits).
"""
from __future__ import annotations

import difflib
import functools
import json

import numpy as np

from ..markup import escape
from .. import codelab, codelab_bugs, gradcheck, model, quoted
from .. import render
from .. import state
from .kit import TOL, chip, chip_html, grid, hook, note, pending, shown_errors, source, table

SLOTS = ("claim", "code", "strip", "random", "race", "verdict", "entries")
RUN_KEYS = ("steps",)  # the checks follow the bug and k at once; the race waits for Run (app.kit.RunSection)
CLAIMED = "output_only"  # the bug the claim is about: the day-67 page's, a random check's likeliest miss
PARAMS = model.init_params(codelab.config())
ENTRIES = sum(P.size for P in PARAMS.values())  # every entry of every parameter: a k past it checks them all
PLAYBACK = {"bug": grid("codelab", "bug"), "k": grid("codelab", "k", (1, 5, 10, 50, 100, 200, 500, 1000, ENTRIES))}
DEPENDS = {"claim": ("k",), "code": ("bug",), "entries": ("bug",), "strip": ("bug",), "random": ("bug", "k"),
           "race": ("bug", "steps"), "verdict": ("bug",)}
CLAIM = "claim"
DATA = ("entries",)  # the per-parameter table: the strip's line says its totals
CURVES = ("the page's backward", "this backward")
YOURS = state.BY_KEY["codelab.bug"].own  # the choice the reader's code selects (state.Codelab)


@functools.lru_cache(maxsize=1)
def numeric() -> dict:
    """Central differences of every entry at the lab's init and batch (they do not depend on the code)."""
    return gradcheck.numerical_grads(PARAMS, codelab.config(), *codelab.batch())


def prepare() -> None:
    """What every Run computes whatever the reader's code, kept: the central differences it checks the code against
    (numeric) and the checks of the bug the claim is about (the claim's slot, drawn with every result)."""
    numeric()
    bug_checks(CLAIMED)


def checked(text: str) -> dict:
    """The text's checks (codelab.checks at the default k), its wrong entries' flat indices and E's entrywise
    errors as shown; the text's error dict when it fails."""
    try:
        grads = codelab.gradients(codelab.load(text))  # the reader's code runs once for all the checks below
    except codelab.ReaderError as exc:
        return exc.outcome
    out = codelab.checks_of(grads, numeric=numeric())
    errors, wrong = codelab.wrong_entries(grads, numeric())
    entries = out["entries"]
    shown = {"params": [{**p, "max_rel_err": float(shown_errors(p["max_rel_err"]))} for p in entries["params"]],
             "max_rel_err": float(shown_errors(entries["max_rel_err"]))}
    return {**out, "entries": {**entries, **shown, "E": {**entries["E"], "errors": shown_errors(errors["E"]).tolist()}},
            "wrong_at": np.flatnonzero(np.concatenate([w.ravel() for w in wrong.values()])).tolist()}


def outcome(text: str, steps: int) -> dict:
    """checked(text) and, when its checks ran, its race against the page's backward (codelab.race)."""
    out = checked(text)
    return out if out["kind"] != "ok" else {**out, "race": codelab.race(codelab.load(text), steps)}


@functools.lru_cache(maxsize=None)
def bug_checks(bug: str) -> dict:
    """A named bug's checks without the race (memoised: the slots need them whatever the steps)."""
    return checked(codelab.bug_source(bug))


def results(st: state.Codelab) -> dict:
    """Every named bug's outcome at st.steps: {bug id: outcome}."""
    return {b.id: outcome(codelab.bug_source(b.id), st.steps) for b in codelab_bugs.BUGS}


# ---- a Run: the chosen backward's checks and race (the reader's code only on a numerics worker) ----

def source_of(st: state.Codelab) -> str:
    """The code st checks: a named bug's source, or the reader's (st.code)."""
    return st.code if st.bug == YOURS else codelab.bug_source(st.bug)


def steps(st: state.Codelab):
    """The Run: the chosen backward's checks ({"entry"}), then each point of its race (codelab.iter_race)."""
    entry = checked(st.code) if st.bug == YOURS else bug_checks(st.bug)
    yield {"step": 0, "bug": st.bug, "entry": entry}
    if entry["kind"] == "ok":
        for p in codelab.iter_race(codelab.load(source_of(st)), st.steps):
            yield {**p, "bug": st.bug}


def total(st: state.Codelab) -> int:
    """The Run's steps: the race's."""
    return st.steps


def collect(results: dict, point: dict) -> bool:
    """File a streamed point into results (in place): the entry, then its race point by point; True when shown
    slots changed (a pooled Run's bare progress dict, without "bug", changes nothing)."""
    if "bug" not in point:
        return False
    if "entry" in point:
        results[point["bug"]] = {**point["entry"], "race": {"steps": [], "correct": [], "yours": [], "error": None}}
        return True
    race = results[point["bug"]]["race"]
    if "error" in point:
        race["error"] = point["error"]
    else:
        for key in ("step", "correct", "yours"):
            race["steps" if key == "step" else key].append(point[key])
    return True


# ---- the Run on the pool of numerics workers (weighttying.pool), where the reader's code runs ----

def split(st: state.Codelab, n: int) -> list[dict]:
    """One part: the checks and the race of one backward are one run."""
    return [{}]


# The reader's code may loop for ever: a part silent this long is ended (site/pool.js). The toy's slowest piece of
# the reader's code between two points, one chunk of the race, takes milliseconds.
QUIET_S = 10


def iter_part(st: state.Codelab, part: dict):
    """steps(st), each point with the part's total and a loss for the pool's progress (the reader's), after a bare
    first point once the central differences are at hand, so that QUIET_S times the reader's code alone. Both it
    and the checks are sent at once (flush): the checks are the answer a reader waits for, the race comes after."""
    numeric()
    yield {"step": 0, "total": st.steps, "loss": 0.0, "flush": True}
    loss = 0.0
    for p in steps(st):
        loss = p.get("yours", loss)
        yield {**p, "total": st.steps, "loss": loss, **({"flush": True} if "entry" in p else {})}


def merge(st: state.Codelab, streams: list[list[dict]]) -> dict:
    """The results the one part has streamed so far, filed as collect files them."""
    results: dict = {}
    for p in (p for s in streams for p in s):
        collect(results, p)
    return results


# ---- take it with you: the reader's backward and the page's check, as a script and a notebook ----

CHECK = """from weighttying import codelab

SEED = 0  # the page's: the model's init, the batch and the race's batches
inputs, targets = codelab.batch(SEED)
print("the batch:", len(inputs), "tokens,", len(set(inputs.tolist())), "distinct:", inputs.tolist())
out = codelab.lab(CODE, k={k}, steps={steps}, seed=SEED)
if out["kind"] != "ok":
    print(out["message"], "(line", out["line"], ")")
else:
    print(out["verdict"])
    print("wrong rows of E:", sum(out["entries"]["E"]["wrong_rows"]), "of", len(out["entries"]["E"]["wrong_rows"]))
    print("a random check of", out["random"]["k"], "entries misses it with probability", out["random"]["miss_probability"])
    print("after", out["race"]["steps"][-1], "steps: the page's backward", out["race"]["final"]["correct"],
          "yours", out["race"]["final"]["yours"])
"""
ABOUT = ("The code lab's check of a backward, as the weight-tying page runs it: every entry against central "
         "differences, a random check of k entries, and a race against the page's backward. It needs this page's "
         "weighttying package (pure Python; NumPy is its one dependency). Where the page is served from a folder, "
         "the package is the wheel in that folder's pyodide/ (pip install pyodide/weighttying-*.whl, from the "
         "folder); from the page's source, pip install ./py. The classroom's single file carries no separate wheel.")


def script(st: state.Codelab) -> str:
    """A Python script that runs st's code through the page's check in CPython and prints what the page shows."""
    return f'"""{ABOUT}"""\nCODE = {source_of(st)!r}\n\n' + CHECK.format(k=st.k, steps=st.steps)


def notebook(st: state.Codelab) -> str:
    """The same as a Jupyter notebook (nbformat 4): the note, the code, the check."""
    cells = [("markdown", ABOUT), ("code", source_of(st)), ("code", f"CODE = {source_of(st)!r}"),
             ("code", CHECK.format(k=st.k, steps=st.steps))]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}},
                       "cells": [{"cell_type": kind, "metadata": {}, "source": text, "id": f"cell-{i}",
                                  **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                                 for i, (kind, text) in enumerate(cells)]}, indent=1)


# ---- the slots ----

def claim_html(k: int) -> str:
    """The section's claim: how often a random check of k entries misses the claimed bug, every entry never does;
    beside it the page's own words, which give no rate to judge ours against."""
    r = codelab.random_draw(wrong_mask(bug_checks(CLAIMED)), k)
    label, share = codelab_bugs.BY_ID[CLAIMED].label, percent(r["miss_probability"])
    rule = (f"n/a (the page gives no rate to compare: ours is exact, the chance that {r['k']} entries drawn without "
            f"replacement all miss the {r['wrong']} wrong ones of {r['entries']})")
    return (f'<div class="wt-claim" data-testid="codelab-claim"><span class="wt-claim-item">A random check of '
            f'k = {r["k"]} entries misses the bug \u201c{escape(label)}\u201d '
            f'{hook("codelab-claim-miss", r["miss_probability"], share)} of the time; '
            f'checking all {r["entries"]} entries never does. The page: \u201c{escape(quoted.SAID["random_check"])}'
            f'\u201d, with no rate {chip_html(*chip(rule))}</span></div>')


def percent(p: float) -> str:
    """A probability as a percentage to three significant figures ("43.5 %", "0.0376 %")."""
    return f"{100 * p:.3g} %"


def edits(bug: str) -> list[tuple[int, str, str]]:
    """(line, the original's text, the bug's) of each line the bug changes, numbered as in the bug's source ("" for a
    line it removes or adds)."""
    old, new = codelab.original_source().splitlines(), codelab.bug_source(bug).splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag != "equal":
            pairs = max(i2 - i1, j2 - j1)
            out += [(j1 + n + 1, old[i1 + n] if i1 + n < i2 else "", new[j1 + n] if j1 + n < j2 else "")
                    for n in range(pairs)]
    return out


def code_html(bug: str) -> str:
    """What the bug changes in the lesson's code, line by line (the whole code is the editor's), and a button that
    puts its whole source into the editor (site/codelab.js reads it from the button)."""
    if bug == YOURS:
        return note("Your backward is the code in the editor: Run checks it on a worker of its own, here in your "
                    "browser.", testid="codelab-code")
    said = codelab_bugs.BY_ID[bug]
    lines = "".join(f'<span class="wt-code-line wt-code-was" data-line="{n}">{escape(was.strip()) or "(nothing)"}</span>'
                    f'<span class="wt-code-line wt-code-changed" data-line="{n}">{escape(now.strip()) or "(removed)"}</span>'
                    for n, was, now in edits(bug))
    change = (f'<pre class="wt-code" data-testid="codelab-edit" tabindex="0" aria-label="What this bug changes">'
              f'<code>{lines}</code></pre>' if lines else "")
    return (f'<figure class="wt-code-box" data-testid="codelab-code"><figcaption>'
            f'<b>{escape(said.label)}</b>: {escape(said.wrong)}</figcaption>{change}'
            f'<button type="button" class="wt-code-load" data-codelab-source="{escape(codelab.bug_source(bug))}">'
            f'Put this code in the editor</button></figure>')


def error_text(x: float) -> str:
    """A relative error as shown: an agreeing one (0, kit.shown_errors) as at most TOL."""
    return f"≤ {TOL:g}" if x == 0 else render.num(x)


ENTRY_COLUMNS = ("parameter", "entries", "largest relative error", f"wrong (over {TOL:g})")


def entries_html(e: dict) -> str:
    """Every entry checked: one row per parameter."""
    rows = [(p["name"], p["entries"], error_text(p["max_rel_err"]), p["wrong"]) for p in e["params"]]
    return table(ENTRY_COLUMNS, rows, "Every entry of every gradient against central differences", "codelab-entries")


def strip_html(e: dict) -> str:
    """E's entries, a column per row (token): wrong rows dark, the batch's tokens outlined; then the totals."""
    err, read = np.asarray(e["E"]["errors"], float), np.asarray(e["E"]["batch_rows"], bool)
    V, d = err.shape
    rows = err.max(axis=1) > TOL
    alt = (f"Wrong rows of dE: {int(rows.sum())} of {V} ({', '.join(map(str, np.flatnonzero(rows).tolist())) or 'none'}); "
           f"rows of the tokens the batch reads: {', '.join(map(str, np.flatnonzero(read).tolist()))}.")
    svg = render.heatmap(err.T, np.arange(V), np.arange(d), "Relative error of every entry of dE", "row of E (token id)",
                    "column of E", mark=np.broadcast_to(read, (d, V)), zname="relative error", zdigits=2,
                    heading="rows of dE", zlabel="relative error", alt=alt, zrange=(TOL, 1.0))
    return (svg + f'<p class="wt-readout">{hook("codelab-wrong-rows", int(rows.sum()))} of {V} rows of dE wrong (dark); '
                  f'outlined: the {int(read.sum())} tokens the batch reads. {hook("codelab-wrong-entries", e["wrong"])} '
                  f'of {e["entries"]} entries wrong; largest relative error '
                  f'{hook("codelab-max-rel-err", e["max_rel_err"], error_text(e["max_rel_err"]))}.</p>')


def wrong_mask(e: dict) -> np.ndarray:
    """(N,) True at the wrong entries of an outcome, E, W1, b1, W2, b2 flattened in turn."""
    mask = np.zeros(e["entries"]["entries"], bool)
    mask[np.asarray(e["wrong_at"], dtype=np.intp)] = True
    return mask


def random_html(e: dict, k: int) -> str:
    """The random-entry check at k: the exact miss probability and one seeded draw's outcome."""
    r = codelab.random_draw(wrong_mask(e), k)
    p = hook("codelab-random-miss", r["miss_probability"], percent(r["miss_probability"]))
    if r["wrong"] == 0:
        return (f'<p data-testid="codelab-random">{r["k"]} random entries: passed, as every check passes a correct '
                f'backward (chance to pass {p}).</p>')
    seen = "passed" if r["passed"] else f"caught it ({r['hit']} wrong entries drawn)"
    return (f'<p data-testid="codelab-random">{r["k"]} random entries of {r["entries"]}: {seen}; it had a {p} chance '
            f'to pass, missing all {r["wrong"]} wrong entries.</p>')


def race_html(st: state.Codelab, race: dict | None, results) -> str:
    """Both curves and the final losses, or pending/streaming/stopped as the run stands."""
    if not race or not race["steps"]:
        return pending("The race against the page's backward", "codelab-race-pending")
    svg = render.lines({CURVES[0]: race["correct"], CURVES[1]: race["yours"]}, "Exact expected loss: the page's backward "
                  "against this one", "training step", "expected loss (nats)", xs=race["steps"], xname="step",
                  heading="training loss")
    last = race["steps"][-1]
    if race["error"]:
        return svg + (f'<p class="wt-bad" data-testid="codelab-race-error">The race stopped after step {last}, this '
                      f'backward\'s loss there {hook("codelab-race-final", race["yours"][-1])}: '
                      f'{escape(race["error"]["message"])}.</p>')
    if last < st.steps:
        return svg + note(f"Step {last} of {st.steps}.")
    return (svg + f'<p class="wt-help">After {last} steps: the page\'s backward {render.num(race["correct"][-1])}, this '
                  f'one {hook("codelab-race-final", race["yours"][-1])}.</p>' + source(results, "codelab-source"))


def failure(e: dict) -> str:
    """An error outcome in one sentence, the reader's line (and column) first when there is one."""
    where = f"line {e['line']}" + (f", column {e['column']}" if e.get("column") else "") if e.get("line") else ""
    return f"No check ran: {e['message']}" + (f" ({where})" if where else "") + "."


def verdict_html(e: dict, of_editor: bool) -> str:
    """The verdict in one sentence (hooked with its text), or the error the code stopped with; a failed run of the
    reader's code over the last one that ran (e["failed"], app/sections/codelab.py) says so, its results kept.
    of_editor: it is about the editor's code (the bug "yours"), which the editor's Run repeats under it
    (site/codelab.js)."""
    failed = e.get("failed") or (e if e["kind"] != "ok" else None)
    text = e["verdict"] if failed is None else failure(failed) + (
        " The results shown are your last code that ran." if e["kind"] == "ok" else "")
    kind = "wt-good" if failed is None and e["entries"]["wrong"] == 0 else "wt-bad"
    # where the reader's code failed, for the editor's mark (site/codelab.js)
    at = "".join(f' data-{key}="{escape(str(failed[key]))}"' for key in ("line", "column")
                 if failed and failed.get(key) is not None)  # escaped: a worker that ran reader code sent them
    return (f'<p class="wt-verdict {kind}" data-testid="codelab-verdict" data-value="{escape(text)}" '
            f'data-editor="{str(of_editor).lower()}"{at}>{escape(text)}</p>')


def slots(st: state.Codelab, results: dict | None = None) -> dict[str, str]:
    """The section's output for st: the chosen bug's checks (the build's, or computed), its race from results."""
    entry = (results or {}).get(st.bug) or (None if st.bug == YOURS else bug_checks(st.bug))
    out = {"claim": claim_html(st.k), "code": code_html(st.bug)}
    if entry is None:  # the reader's code, not run yet: only a Run runs it, never a redraw
        said = note("Not checked yet: press Run to check your code (the live lab runs it in this browser).",
                    testid="codelab-not-run")
        return {**out, "strip": said, "random": "", "race": "", "verdict": "", "entries": ""}
    if entry["kind"] != "ok":
        none = note("No gradients to check: the verdict below says why.", testid="codelab-none")
        return {**out, "strip": none, "random": "", "race": "", "verdict": verdict_html(entry, st.bug == YOURS),
                "entries": ""}
    return {**out, "strip": strip_html(entry["entries"]), "random": random_html(entry, st.k),
            "race": race_html(st, entry.get("race"), results), "verdict": verdict_html(entry, st.bug == YOURS),
            "entries": entries_html(entry["entries"])}
