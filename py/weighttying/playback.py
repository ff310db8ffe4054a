"""Playback tables: what each section shows at every point of its PLAYBACK grid, computed at build in
CPython by the same `views.<id>.slots` the live lab runs, so site/player.js can answer every control
before Python has loaded in the browser. No Panel here.

One table per section (build.py writes it to dist/playback/<id>.json):
  keys       the grid's controls (field names of the section's State), in PLAYBACK order
  values     per key, its grid in slider order (views/kit.grid: the default and every preset value in)
  slots      slot names in display order
  fragments  every distinct HTML fragment once
  at         {slot: {"keys": the grid keys it depends on (view.DEPENDS), "index": its fragment at each
             point of their product, row-major}}: a slot is computed and stored only over its own keys
A point's slots are `slots(st, kit.with_results(view, st))`, as the prerender and the live lab show
them: the build's run results where the run settings are the defaults, "not computed yet" elsewhere.
"""
from __future__ import annotations

import dataclasses
import itertools
import json

from . import early, state
from .prerender import view
from .views import kit


def groups(v) -> dict[tuple[str, ...], list[str]]:
    """{grid keys: the slots depending on exactly those}, slots and keys in display / PLAYBACK order."""
    out: dict[tuple[str, ...], list[str]] = {}
    for name in v.SLOTS:
        keys = tuple(k for k in v.PLAYBACK if k in v.DEPENDS[name])
        out.setdefault(keys, []).append(name)
    return out


def table(sid: str) -> dict:
    """The playback table of one section (see the module docstring)."""
    v, default = view(sid), getattr(state.State(), sid)
    fragments: dict[str, int] = {}
    at: dict[str, dict] = {}
    results: dict = {}  # state -> the run results it shows: each heavy run once, whichever groups need it

    def slots(st) -> dict[str, str]:
        if st not in results:
            results[st] = kit.with_results(v, st)
        return v.slots(st, results[st])

    for keys, names in groups(v).items():
        index = {name: [] for name in names}
        for point in itertools.product(*(v.PLAYBACK[k] for k in keys)):
            out = slots(dataclasses.replace(default, **dict(zip(keys, point))))
            for name in names:
                index[name].append(fragments.setdefault(out[name], len(fragments)))
        at |= {name: {"keys": list(keys), "index": index[name]} for name in names}
    keys = list(v.PLAYBACK)
    return {"section": sid, "keys": keys, "values": [list(v.PLAYBACK[k]) for k in keys], "slots": list(v.SLOTS),
            "fragments": list(fragments), "at": {name: at[name] for name in v.SLOTS}, "early": early.answers(sid)}


def table_text(sid: str) -> str:
    """Section sid's table as compact JSON, as the build ships it."""
    return json.dumps(table(sid), separators=(",", ":"), ensure_ascii=False)
