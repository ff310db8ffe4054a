"""The code lab: the tied toy's backward as a lesson writes it, run from the reader's own text and checked.

`lesson_backward` is a real function of the package (tested equal to model's stacked backward); its
source text, `original_source()`, is what the reader starts editing, and the named bugs
(codelab_bugs; `bug_source(id)`) are edits of that text. `lab(text, k, steps, seed)` runs a text and
returns what the page shows, as plain JSON-able data (`checks` is the same less the race, which
`iter_race` streams):

    an error:  {"kind": "syntax" | "undefined" (no function NAME) | "runtime" | "gradient" (one missing,
                misshaped or not finite), "message": one line, "line": the reader's line or None,
                "column": int (syntax) or None, "parameter": the gradient's name or None}
    a result:  {"kind": "ok",
                "entries": {"params": [{"name", "entries", "max_rel_err", "wrong"}, ...] (E, W1, b1, W2, b2),
                            "entries": int, "wrong": int, "max_rel_err": float,
                            "E": {"wrong_rows": [bool] * V, "batch_rows": [bool] * V,
                                  "reads": [int] * V (how often the batch reads each row)}},
                "random": {"k", "entries", "wrong", "miss_probability" (exact), "hit" (wrong entries the
                           seeded draw of k picked), "passed" (hit == 0)},
                "race": {"steps": [int], "correct": [float], "yours": [float] (exact expected losses),
                         "final": {"correct": float, "yours": float},
                         "error": None, or an error as above that stopped the reader's run},
                "bug": the id of the named bug whose gradients these are, or None,
                "verdict": one sentence}

Entries are wrong when their relative error against central differences exceeds pathdrop.TOL. The
check runs on the gradient-check section's batch at its defaults (32 tokens, 8 distinct, so tokens
repeat); the race trains on the path-drop race's recipe. The reader's code runs with `np` in scope
and gets copies of everything, so nothing it does changes the package's arrays (a worker that runs it
still shares NumPy's module with it: ending that worker is the sandbox).
"""
from __future__ import annotations

import dataclasses
import dis
import functools
import inspect
import sys
import traceback
import types
from collections.abc import Mapping

import numpy as np

from . import codelab_bugs, data, gradcheck, measure, model, pathdrop, recipes, train

NAME = "lesson_backward"  # the function the page calls in the reader's text
FILENAME = "<your backward>"  # the reader's text as Python names it in a traceback: their lines are the frames with it
# The page's toy, but with in_scale = 2: at the page's in_scale = 1 the factor multiplies nothing, so
# forgetting it (a named bug) would pass every check.
CONFIG = model.Config(in_scale=2.0)
DISTINCT, B = 8, 32  # the gradient-check section's batch at its defaults: B tokens, B // 4 distinct
RECIPE = recipes.PATHDROP  # the race's task, lr and batch: the path-drop race's
K = 20  # entries the random-entry check draws, by default (the path-drop section's default k)
CHUNK = 10  # SGD steps between two points of the race's curves
SAME = 1e-9  # the reader's gradients are a named bug's when no entry differs by more than this
MESSAGE_CHARS = 300  # an error's one line is cut here (NumPy's shape messages can be long)
READER_ERRORS = (Exception, SystemExit)  # what the reader's code may raise; KeyboardInterrupt is the worker's stop


def lesson_backward(params, cfg, inputs, cache, dlogits):
    """Gradients {E, W1, b1, W2, b2} of the tied toy's mean loss from its cache {x, a, z, h} and dlogits (B, V)."""
    # forward: x = in_scale * E[inputs]   a = x @ W1 + b1   z = tanh(a)
    #          h = res * x + z @ W2 + b2   logits = h @ E.T   loss = mean cross-entropy
    E, W1, W2 = params["E"], params["W1"], params["W2"]
    x, a, z, h = (cache[name] for name in "xazh")  # a is not needed below: tanh'(a) is read from z
    dh = dlogits @ E                  # logits = h @ E.T
    dW2 = z.T @ dh                    # h = ... + z @ W2
    db2 = dh.sum(axis=0)              # b2 is added to every row of h
    dz = dh @ W2.T                    # z reaches h through W2
    da = dz * (1 - z**2)              # z = tanh(a), and tanh'(a) = 1 - tanh(a)**2
    dW1 = x.T @ da                    # a = x @ W1 + b1
    db1 = da.sum(axis=0)              # b1 is added to every row of a
    dx = cfg.res * dh + da @ W1.T     # x reaches h twice: directly (times res) and through the MLP
    dE = np.zeros_like(E)
    np.add.at(dE, inputs, cfg.in_scale * dx)  # input path: x = in_scale * E[inputs]; a repeated token adds each time
    dE += dlogits.T @ h               # output path: logits = h @ E.T; E's two uses add up
    return {"E": dE, "W1": dW1, "b1": db1, "W2": dW2, "b2": db2}


def original_source() -> str:
    """The text the reader starts from: lesson_backward's source, exactly as in this file."""
    return inspect.getsource(lesson_backward)


def bug_source(bug_id: str) -> str:
    """The original source with the named bug's edits made (codelab_bugs.BUGS)."""
    if bug_id not in codelab_bugs.BY_ID:
        raise ValueError(f"no named bug {bug_id!r}; the bugs are {', '.join(codelab_bugs.BY_ID)}")
    return codelab_bugs.apply(original_source(), codelab_bugs.BY_ID[bug_id])


def config(seed: int = 0, cfg: model.Config = CONFIG) -> model.Config:
    """The lab's model with this seed's init."""
    return dataclasses.replace(cfg, seed=seed)


def batch(seed: int = 0, V: int = CONFIG.V) -> tuple[np.ndarray, np.ndarray]:
    """The gradient-check section's batch at its defaults: (inputs (B,), targets (B,)), tokens repeated."""
    return pathdrop.batch(V, DISTINCT, B, seed)


def forward(params: dict, cfg: model.Config, inputs, targets) -> tuple[float, dict, np.ndarray]:
    """The toy's forward as lesson_backward reads it: (loss, cache {x, a, z, h} (B, d or H), dlogits (B, V))."""
    full = model.forward(params, cfg, np.asarray(inputs))
    loss, dlogits = model.cross_entropy(full["logits"], np.asarray(targets))
    _, a, z = full["mlp"]
    return float(loss), {"x": full["x"], "a": a, "z": z, "h": full["h"]}, dlogits


# ---- running the reader's text ----

class ReaderError(Exception):
    """The reader's code failed; outcome is the error dict the page shows (the module docstring's shape)."""

    def __init__(self, outcome: dict):
        super().__init__(outcome["message"])
        self.outcome = outcome


def error(kind: str, message: str, line=None, column=None, parameter=None) -> dict:
    """An error outcome: every key always present, so the page reads one shape."""
    return {"kind": kind, "message": message[:MESSAGE_CHARS], "line": line, "column": column, "parameter": parameter}


def one_line(exc: BaseException) -> str:
    """'ValueError: first line of its message', as the reader would see it at the end of a traceback."""
    try:
        lines = str(exc).strip().splitlines()
    except Exception:  # a reader's exception class whose __str__ fails still has a name
        lines = []
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def reader_line(exc: BaseException, backward=None) -> int | None:
    """The reader's line exc came from: its last traceback frame in FILENAME; else the def line of backward
    (a call with the wrong arguments fails before its first line), or None."""
    lines = [n for frame, n in traceback.walk_tb(exc.__traceback__) if frame.f_code.co_filename == FILENAME]
    if lines:
        return lines[-1]
    code = getattr(backward, "__code__", None)
    return code.co_firstlineno if code is not None and code.co_filename == FILENAME else None


def load(text: str):
    """The reader's function NAME from text, run as a module with np in scope; ReaderError if it does not compile,
    fails as it runs, or defines no such function."""
    try:
        code = compile(text, FILENAME, "exec")
    except SyntaxError as exc:  # IndentationError and TabError too
        raise ReaderError(error("syntax", f"{type(exc).__name__}: {exc.msg}", exc.lineno, exc.offset)) from None
    namespace = {"np": np, "__name__": "lesson"}
    try:
        exec(code, namespace)
    except READER_ERRORS as exc:
        raise ReaderError(error("runtime", one_line(exc), reader_line(exc))) from None
    backward = namespace.get(NAME)
    if backward is None:
        raise ReaderError(error("undefined", f"no function named {NAME}: the page calls "
                                             f"{NAME}(params, cfg, inputs, cache, dlogits)"))
    if not callable(backward):
        raise ReaderError(error("undefined", f"{NAME} is not a function: it is of type {type(backward).__name__}"))
    return backward


def checked(grads, params: dict, line: int | None = None, made=lambda name: None) -> dict[str, np.ndarray]:
    """grads as float arrays, one per parameter of params; ReaderError naming the first one missing, of the
    wrong kind or shape, or not finite. Its line: where the reader's variable holding that gradient was last
    assigned, made(name) -> (variable, line) (origin), else `line` (where the reader's function returned)."""
    def wrong(message: str, name: str | None = None) -> ReaderError:
        at = made(name) if name is not None else None
        return ReaderError(error("gradient", message, at[1] if at else line, parameter=name))

    def gradient_of(name: str) -> str:
        at = made(name)
        return f"the gradient of {name}" + (f" ({at[0]})" if at else "")
    if not isinstance(grads, Mapping):
        what = "None (is its return missing?)" if grads is None else f"a value of type {type(grads).__name__}"
        raise wrong(f"{NAME} returned {what}, not a dict of gradients {{{', '.join(params)}}}")
    out = {}
    for name, P in params.items():
        if name not in grads:
            have = ", ".join(map(str, grads)) or "nothing"
            raise wrong(f"no gradient for {name}: the returned dict has {have}", name)
        try:
            g = np.asarray(grads[name])
        except Exception:  # ragged lists, or an object of the reader's whose conversion fails
            g = np.asarray(None)
        if g.dtype.kind not in "iuf":
            raise wrong(f"{gradient_of(name)} is not an array of real numbers ({type(grads[name]).__name__})", name)
        if g.shape != P.shape and g.shape == P.shape[::-1]:
            raise wrong(f"{gradient_of(name)} is transposed: shape {g.shape} where {name} has shape {P.shape}", name)
        if g.shape != P.shape:
            raise wrong(f"{gradient_of(name)} has shape {g.shape}; {name} has shape {P.shape}", name)
        bad = int(g.size - np.isfinite(g).sum())
        if bad:
            raise wrong(f"{bad} of the {g.size} entries of {gradient_of(name)} are not finite (nan or inf)", name)
        out[name] = np.array(g, dtype=float)
    return out


def returning_line(backward, *args):
    """(backward(*args), the reader's line it returned from (its return statement, or its last line run), and the
    frame it returned from (its variables, read only when a gradient is wrong: origin), or None)."""
    at, code = [None, None], getattr(backward, "__code__", None)

    def watch(frame, event, arg):  # called on every call and return while the reader's code runs
        if event == "return" and frame.f_code is code:
            at[:] = frame.f_lineno, frame
    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        return backward(*args), *at
    finally:
        sys.setprofile(previous)


@functools.lru_cache(maxsize=64)
def assigned_lines(code: types.CodeType) -> dict[str, int]:
    """{local variable: the line of its last assignment in code's order} (the line that made its final value in
    code that runs straight down, as a lesson's backward does)."""
    return {ins.argval: ins.positions.lineno for ins in dis.get_instructions(code)
            if ins.opname in ("STORE_FAST", "STORE_DEREF") and ins.positions.lineno is not None}


def origin(value, frame) -> tuple[str, int] | None:
    """(the reader's variable holding value when their function returned from frame, its last assignment's line):
    the latest assigned if several hold it; None if none does (an expression written in the return, an argument)."""
    if frame is None or not isinstance(value, (np.ndarray, list)):
        return None  # identity means nothing for None, a cached small number or a string
    lines = assigned_lines(frame.f_code)
    held = [(lines[name], name) for name, v in frame.f_locals.items() if v is value and name in lines]
    if not held:
        return None
    line, name = max(held)
    return name, line


def reader_loss_and_grads(backward, params: dict, cfg: model.Config, inputs, targets) -> tuple[float, dict]:
    """(loss, gradients) with the reader's backward on copies of everything; ReaderError if it fails."""
    loss, cache, dlogits = forward(params, cfg, inputs, targets)
    mine = {name: P.copy() for name, P in params.items()}  # the reader may write into what it is given
    try:
        with np.errstate(all="ignore"):  # non-finite results are reported by name below, not as warnings
            grads, line, frame = returning_line(backward, mine, cfg, np.array(inputs),
                                                {k: v.copy() for k, v in cache.items()}, dlogits.copy())
            grads = dict(grads) if isinstance(grads, Mapping) else grads  # a mapping of the reader's own reads here
    except READER_ERRORS as exc:
        raise ReaderError(error("runtime", one_line(exc), reader_line(exc, backward))) from None
    @functools.cache  # asked for the message and for its line: the locals are searched once
    def made(name: str) -> tuple[str, int] | None:
        return origin(grads[name], frame) if isinstance(grads, Mapping) and name in grads else None
    return loss, checked(grads, params, line, made)


def gradients(backward, seed: int = 0, cfg: model.Config = CONFIG) -> dict[str, np.ndarray]:
    """The reader's gradients at the lab's init and batch for this seed; ReaderError if their code fails."""
    cfg = config(seed, cfg)
    return reader_loss_and_grads(backward, model.init_params(cfg), cfg, *batch(seed, cfg.V))[1]


def run_source(text: str, seed: int = 0, cfg: model.Config = CONFIG) -> dict:
    """The reader's text run on the lab's batch: {"kind": "ok", "grads": {name: nested lists}} or an error dict."""
    try:
        grads = gradients(load(text), seed, cfg)
    except ReaderError as exc:
        return exc.outcome
    return {"kind": "ok", "grads": {name: g.tolist() for name, g in grads.items()}}


# ---- the checks of a run ----

def wrong_entries(grads: dict, numeric: dict) -> tuple[dict, dict]:
    """Entrywise relative error against central differences and whether it exceeds pathdrop.TOL: ({name: err}, {name: bool})."""
    errors = {name: gradcheck.rel_error(np.asarray(grads[name], float), num) for name, num in numeric.items()}
    return errors, {name: err > pathdrop.TOL for name, err in errors.items()}


def entries_check(grads: dict, numeric: dict, inputs) -> dict:
    """Every entry checked: per parameter its size, largest relative error and wrong entries; E's wrong rows and
    the rows the batch reads (the module docstring's "entries")."""
    errors, wrong = wrong_entries(grads, numeric)
    reads = np.bincount(np.asarray(inputs, dtype=np.intp), minlength=len(numeric["E"]))  # intp: 32-bit in Pyodide
    rows = [{"name": name, "entries": int(err.size), "max_rel_err": float(err.max()), "wrong": int(wrong[name].sum())}
            for name, err in errors.items()]
    return {"params": rows, "entries": sum(r["entries"] for r in rows), "wrong": sum(r["wrong"] for r in rows),
            "max_rel_err": max(r["max_rel_err"] for r in rows),
            "E": {"wrong_rows": wrong["E"].any(axis=1).tolist(), "batch_rows": (reads > 0).tolist(),
                  "reads": reads.tolist()}}


def random_check(grads: dict, numeric: dict, k: int = K, seed: int = 0) -> dict:
    """k entries drawn without replacement from all entries (E, W1, b1, W2, b2 flattened in turn): the exact
    chance they miss every wrong one, and whether one draw from default_rng(seed) did."""
    return random_draw(np.concatenate([w.ravel() for w in wrong_entries(grads, numeric)[1].values()]), k, seed)


def random_draw(flat: np.ndarray, k: int = K, seed: int = 0) -> dict:
    """random_check on the wrong entries already known: flat (N,) True where an entry is wrong."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    flat = np.asarray(flat, bool)
    k = min(int(k), flat.size)
    hit = int(flat[np.random.default_rng(seed).choice(flat.size, k, replace=False)].sum())
    return {"k": k, "entries": int(flat.size), "wrong": int(flat.sum()),
            "miss_probability": pathdrop.miss_probability(k, int(flat.sum()), flat.size), "hit": hit, "passed": hit == 0}


def reader_net(backward) -> types.SimpleNamespace:
    """A net for train.iter_train: model's forward, the reader's backward (the lab keeps iter_train's default
    paths and input_grad_scale, so they are not passed on)."""
    def loss_and_grads(params, cfg, inputs, targets, *defaults):
        return reader_loss_and_grads(backward, params, cfg, inputs, targets)
    return types.SimpleNamespace(forward=model.forward, loss_and_grads=loss_and_grads)


def iter_race(backward, steps: int = RECIPE.steps, seed: int = 0, cfg: model.Config = CONFIG, chunk: int = CHUNK):
    """The reader's backward against model's, `steps` of SGD each from one init on the same batches (RECIPE's task,
    lr and batch): yield {"step", "correct", "yours"} (exact expected losses) at 0 and every chunk steps; if the
    reader's code fails, a last {"step": the last step reached, "error": error dict}."""
    cfg = config(seed, cfg)
    task, params = measure.race_task(RECIPE), model.init_params(cfg)
    first = data.expected_loss(params, cfg, task)
    yield {"step": 0, "correct": first, "yours": first}
    both = zip(*(train.iter_train(params, cfg, task, steps=steps, lr=RECIPE.lr, batch=RECIPE.batch, seed=seed,
                                  chunk=chunk, net=net) for net in (model, reader_net(backward))))
    step = 0
    while True:
        try:
            with np.errstate(all="ignore"):  # a diverging run's losses are nan or inf, shown as such
                pair = next(both, None)
        except ReaderError as exc:
            yield {"step": step, "error": exc.outcome}
            return
        if pair is None:
            return
        step = pair[0]["step"]
        yield {"step": step, "correct": pair[0]["eval"], "yours": pair[1]["eval"]}


def race(backward, steps: int = RECIPE.steps, seed: int = 0, cfg: model.Config = CONFIG, chunk: int = CHUNK) -> dict:
    """iter_race run to the end: both curves, both final losses and the reader's error if any (the docstring's "race")."""
    points = list(iter_race(backward, steps, seed, cfg, chunk))
    curves = [p for p in points if "error" not in p]
    return {"steps": [p["step"] for p in curves], "correct": [p["correct"] for p in curves],
            "yours": [p["yours"] for p in curves],
            "final": {"correct": curves[-1]["correct"], "yours": curves[-1]["yours"]},
            "error": points[-1]["error"] if "error" in points[-1] else None}


@functools.lru_cache(maxsize=None)
def bug_gradients(bug_id: str, seed: int = 0, cfg: model.Config = CONFIG) -> dict | None:
    """A named bug's gradients {name: read-only array} on batch(seed), None for one that fails (the transposed
    product); kept, since every check of a reader's code compares against all of them."""
    try:
        grads = gradients(load(bug_source(bug_id)), seed, cfg)
    except ReaderError:
        return None
    for grad in grads.values():
        grad.flags.writeable = False
    return grads


def matching_bug(grads: dict, seed: int = 0, cfg: model.Config = CONFIG) -> str | None:
    """The id of the first named bug (not the correct backward) whose gradients equal grads to SAME, else None."""
    for bug in codelab_bugs.BUGS:
        theirs = None if bug.id == "correct" else bug_gradients(bug.id, seed, cfg)
        if theirs is not None and all(np.abs(theirs[name] - np.asarray(grads[name], float)).max() <= SAME
                                      for name in theirs):
            return bug.id
    return None


def rows_of_E(E: dict) -> str:
    """E's wrong rows counted, and how they lie against the rows the batch reads (the lesson of the dropped path:
    exactly the batch's tokens is the input path's share gone wrong)."""
    wrong, read = E["wrong_rows"], E["batch_rows"]
    said = f"E ({sum(wrong)} of {len(wrong)} rows"
    if wrong == read:
        return f"{said}, exactly the {sum(read)} tokens the batch reads)"
    if all(r for w, r in zip(wrong, read) if w):
        return f"{said}, all of them tokens the batch reads)"
    return said + ")"


def verdict(entries: dict, bug: str | None) -> str:
    """One sentence: exact, or wrong on which parameters and how many rows of E, and the named bug it is."""
    if entries["wrong"] == 0:
        # no digits of the largest error: an agreeing entry's error is rounding noise, different on every machine
        return f"Exact: all {entries['entries']} entries agree with central differences to {pathdrop.TOL:g}."
    names = [rows_of_E(entries["E"]) if p["name"] == "E" else p["name"] for p in entries["params"] if p["wrong"]]
    where = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    same = f"; these are the gradients of the bug \u201c{codelab_bugs.BY_ID[bug].label}\u201d" if bug else ""
    return (f"Wrong on {where}: {entries['wrong']} of {entries['entries']} entries disagree with central "
            f"differences{same}.")


def checks(text: str, k: int = K, seed: int = 0, cfg: model.Config = CONFIG, numeric: dict | None = None) -> dict:
    """lab() but the race, which is the slow part (a page can stream it: iter_race(load(text), ...)): the text's error,
    or {"kind": "ok", "entries", "random", "bug", "verdict"}. numeric: the central differences of
    model.init_params(config(seed, cfg)) on batch(seed) when the caller keeps them (they do not depend on the text),
    else computed here."""
    try:
        grads = gradients(load(text), seed, cfg)
    except ReaderError as exc:
        return exc.outcome
    return checks_of(grads, k, seed, cfg, numeric)


def checks_of(grads: dict, k: int = K, seed: int = 0, cfg: model.Config = CONFIG, numeric: dict | None = None) -> dict:
    """checks() of gradients already computed from the reader's code (run once, not again for each use)."""
    inputs, targets = batch(seed, cfg.V)
    if numeric is None:
        seeded = config(seed, cfg)
        numeric = gradcheck.numerical_grads(model.init_params(seeded), seeded, inputs, targets)
    entries, bug = entries_check(grads, numeric, inputs), matching_bug(grads, seed, cfg)
    return {"kind": "ok", "entries": entries, "random": random_check(grads, numeric, k, seed), "bug": bug,
            "verdict": verdict(entries, bug)}


def lab(text: str, k: int = K, steps: int = RECIPE.steps, seed: int = 0, cfg: model.Config = CONFIG,
        numeric: dict | None = None) -> dict:
    """Everything the page shows for the reader's text (the module docstring's shapes): checks() and the race."""
    out = checks(text, k, seed, cfg, numeric)
    return out if out["kind"] != "ok" else {**out, "race": race(load(text), steps, seed, cfg)}
