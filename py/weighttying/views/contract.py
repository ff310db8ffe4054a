"""The view contract: what a section's view module (`views/<id>.py`, state.Section.view) is. `view(sid)` loads it
into a `View`, whose fields say every member, its default and what it must be; a module that lacks a member
without a default, or holds a wrong one, fails there, naming the module and the member (`ViewError`).

A view module is everything its section shows that depends on the section's state, as named HTML fragments, with
no Panel. The same functions serve three ways: prerendered at build, played back from tables computed at build,
and live in the browser's Panel section. Its members:

- `SLOTS`: slot names in display order, the one order of the section's output (the prerender's `kit.compose` and
  the live `app.kit.layout` both place the slots by it); `slots(st, results=None) -> {name: html}` with exactly
  these keys, `st` the section's frozen State dataclass (e.g. `state.Sweep`). Numbers carry `data-testid` and
  `data-value="{repr}"` (`kit.hook`), so played-back and live values compare exactly.
- `results(st)`: the section's heavy work (training runs, studies, the gradient check) as plain data, pure;
  default `kit.no_results` (None: a section without any). `slots` also takes partial results (a live run
  streaming).
- `RUN_KEYS`: the fields whose change leaves `results` out of date until the reader presses Run (the slots then
  say so; the one policy, app.kit.RunSection: nothing starts by itself); default `()`, for a view whose results
  follow every control (the gradient check) or that has none. `kit.with_results(view, st)` is the results a state
  shows without a run, as the build ships them (`kit.as_built`: through JSON, `"origin": "build"`; memoised, so
  prerender, playback and results.json share each heavy run); `kit.source` says where they were computed.
- `PLAYBACK`: {field: values} (`kit.grid`, `kit.lin`, `kit.log`), the grid the playback tables cover (product over
  the fields; unlisted fields stay at their defaults). `DEPENDS`: {slot: fields it depends on}, so a table of one
  slot needs only the product over its own fields (tests/test_views_contract.py checks both against the slots).
- `OVERLAYS`: {overlay slot: the slot it is drawn over} (sweep's ring at the current setting over a heatmap that
  does not depend on it): the overlay is listed right after its slot, has the figure's viewBox, and the prerender
  and the live section stack the two in one place (`kit.compose`; live `Slots.figure`). Default `{}`.
- `FILLS`: {choice field: {"by": {choice: {field: value}}, "else": choice}}, a choice that fills in other controls
  (savings' preset and its five numbers): picking one fills them in, editing one of them away makes the choice
  "else", and a state whose fields are the defaults takes the choice's (on load). The live section does this
  itself; site/player.js does it from this before Python. Default `{}`.
- Layout: `CLAIM`, the slot that opens the section with the page's claim beside ours (before the controls;
  default "" for none); `PAIRS`, adjacent slots that compare, side by side where each gets 460 px (default `()`);
  `DATA`, the last slots, in the section's closed "Data and downloads" disclosure with every download (default
  `()`; a section with neither data slots nor downloads has no disclosure).
- A section with a Run (app.kit.RunSection): `steps(st)`, the Run's progress dicts (each with "step"; the last
  with everything `collect` needs), and `total(st)`, how many steps it has; both or neither (default None).
- A Run that splits across the pool of numerics workers (weighttying.pool; all three or none, default None):
  `split(st, n)` at most n parts of near-equal cost, `iter_part(st, part)` a part's progress dicts, `merge(st,
  streams)` the results so far; `LATEST`, the keys of a streamed point that supersede an earlier one's (only a
  batch's last point keeps them; default `()`); `QUIET_S`, for a Run whose parts run code the reader wrote, the
  seconds a part may go without sending a batch before the page ends its worker and the Run stops, saying so, the
  part never run again (default None: site/pool.js's HANG rule, which takes silence for a stuck worker and runs the
  part again in a new one); `prepare()`, what every Run of the reader's code computes first whatever the code, kept
  once computed (the code lab's central differences), which a numerics worker warmed for the section computes
  before a Run is asked (weighttying.early.prepare; default None).

Shared HTML pieces live in `views/kit/` (one module per idea, imported as `from .kit import ...`); no view imports
another.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import types
from typing import Any, Callable

from .. import state
from .kit import no_results


class ViewError(TypeError):
    """A view module that breaks the contract: the message names the module and the member."""


def _names(x) -> bool:
    return isinstance(x, tuple) and all(isinstance(n, str) for n in x)


def _pairs(x) -> bool:
    return isinstance(x, tuple) and all(isinstance(p, tuple) and len(p) == 2 and _names(p) for p in x)


def _optional_function(x) -> bool:
    return x is None or callable(x)


def _optional_seconds(x) -> bool:
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0)


def _dict(x) -> bool:
    return isinstance(x, dict)


def _text(x) -> bool:
    return isinstance(x, str)


def member(check: Callable[[Any], bool], what: str, default: Any = dataclasses.MISSING) -> Any:
    """A field of View: what a module's member must be (`check`, said as `what`), and its default if it has one."""
    meta = {"check": check, "what": what}
    if isinstance(default, dict):
        return dataclasses.field(default_factory=dict, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True, eq=False)
class View:
    """One section's view module as the contract reads it (the module docstring says each member); `module` is
    its name. Compared by identity: `view(sid)` makes one per module, which memos (kit.with_results) key on."""
    module: str
    SLOTS: tuple = member(_names, "a tuple of slot names")
    slots: Callable = member(callable, "a function slots(st, results=None) -> {name: html}")
    PLAYBACK: dict = member(_dict, "a dict {field: grid values}")
    DEPENDS: dict = member(_dict, "a dict {slot: fields}")
    results: Callable = member(callable, "a function results(st)", no_results)
    RUN_KEYS: tuple = member(_names, "a tuple of field names", ())
    OVERLAYS: dict = member(_dict, "a dict {overlay slot: figure slot}", {})
    FILLS: dict = member(_dict, "a dict {choice field: fill}", {})
    CLAIM: str = member(_text, "a slot name or \"\"", "")
    PAIRS: tuple = member(_pairs, "a tuple of (slot, slot) pairs", ())
    DATA: tuple = member(_names, "a tuple of slot names", ())
    steps: Callable | None = member(_optional_function, "a function steps(st) -> progress dicts", None)
    total: Callable | None = member(_optional_function, "a function total(st) -> int", None)
    split: Callable | None = member(_optional_function, "a function split(st, n) -> parts", None)
    iter_part: Callable | None = member(_optional_function, "a function iter_part(st, part) -> progress dicts", None)
    merge: Callable | None = member(_optional_function, "a function merge(st, streams) -> results", None)
    LATEST: tuple = member(_names, "a tuple of progress keys", ())
    QUIET_S: float | None = member(_optional_seconds, "a number of seconds > 0, or None", None)
    prepare: Callable | None = member(_optional_function, "a function prepare() that keeps what it computes", None)


MEMBERS = tuple(f.name for f in dataclasses.fields(View) if f.name != "module")
TOGETHER = (("steps", "total"), ("split", "iter_part", "merge"))  # members that come all or none


def of(module: types.ModuleType, state_class: type | None = None) -> View:
    """The View of a module, checked against the contract (and, given its State dataclass, the fields it names)."""
    name, values = module.__name__, {}
    for own in (n for n in vars(module) if n.isupper() and n not in MEMBERS):  # a misspelt member would go unread
        near = difflib.get_close_matches(own, MEMBERS, n=1, cutoff=0.85)
        if near:
            raise ViewError(f"view {name}: {own} is no member of a view; {near[0]}?")
    for f in dataclasses.fields(View)[1:]:
        if not hasattr(module, f.name):
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ViewError(f"view {name} lacks {f.name}: {f.metadata['what']} (views/contract.py)")
            continue
        value = values[f.name] = getattr(module, f.name)
        if not f.metadata["check"](value):
            raise ViewError(f"view {name}: {f.name} must be {f.metadata['what']}, not {value!r:.80}")
    view = View(name, **values)
    problem = _inconsistency(view, state_class)
    if problem:
        raise ViewError(f"view {name}: {problem}")
    return view


def _inconsistency(v: View, state_class: type | None) -> str:
    """What in v's members contradicts another member (or the State's fields), "" when nothing does."""
    slots = set(v.SLOTS)
    for group in TOGETHER:
        given = [m for m in group if getattr(v, m) is not None]
        if given and len(given) < len(group):
            return f"{', '.join(m for m in group if m not in given)} missing beside {', '.join(given)} (all or none)"
    if v.split is not None and v.steps is None:
        return "steps missing: a Run that splits across the pool is a Run (steps, total)"
    if v.QUIET_S is not None and v.split is None:
        return "QUIET_S without split: only a Run on the pool of numerics workers has a quiet limit"
    if v.prepare is not None and v.QUIET_S is None:
        return "prepare without QUIET_S: only a Run of the reader's code is prepared for"
    if set(v.DEPENDS) != slots:
        return f"DEPENDS names the slots {sorted(v.DEPENDS)}, SLOTS {sorted(slots)}"
    placed = {"CLAIM": {v.CLAIM} - {""}, "DATA": set(v.DATA), "PAIRS": {n for p in v.PAIRS for n in p},
              "OVERLAYS": set(v.OVERLAYS) | set(v.OVERLAYS.values())}
    for member_name, names in placed.items():
        if names - slots:
            return f"{member_name} names {sorted(names - slots)}, which SLOTS lacks"
    if state_class is not None:
        fields = {f.name for f in dataclasses.fields(state_class)}
        named = {"RUN_KEYS": set(v.RUN_KEYS), "PLAYBACK": set(v.PLAYBACK),
                 "DEPENDS": {k for d in v.DEPENDS.values() for k in d}}
        for member_name, names in named.items():
            if names - fields:
                return f"{member_name} names {sorted(names - fields)}, which {state_class.__name__} lacks"
    return ""


@functools.lru_cache(maxsize=None)
def load(module: str, state_class: type | None = None) -> View:
    """The View of the module named `module`, checked; one per module and State."""
    return of(importlib.import_module(module), state_class)


def view(sid: str) -> View:
    """Section sid's view (state.REGISTRY's declaration), checked against the contract."""
    section = state.SECTION[sid]
    return load(section.view, section.state)
