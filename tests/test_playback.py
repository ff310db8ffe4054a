"""The playback tables (weighttying.playback) and the native controls (weighttying.controls): a built
table holds exactly what views.<id>.slots returns at sampled grid points (CPython here); the controls
carry the spec's labels, help and the grid; the built tables fit the wire budget and match the config."""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

from weighttying import controls, playback
from weighttying import state
from weighttying.prerender import view
from weighttying.views import kit

PLAYABLE = [sid for sid in state.SECTIONS if view(sid) is not None]
WIRE_BUDGET = 1_000_000  # bytes of every table together, as served (brotli, else gzip, else raw)
SAMPLES = 4  # random grid points per section checked against CPython, besides the default


def built(dist_dir, sid: str) -> dict:
    return json.loads((dist_dir / "playback" / f"{sid}.json").read_text())


def test_every_section_is_playable():
    assert PLAYABLE == list(state.SECTIONS)


def test_groups_follow_depends_in_display_and_grid_order():
    fake = SimpleNamespace(SLOTS=("a", "b", "c", "d"), PLAYBACK={"x": (1, 2), "y": (3,)},
                           DEPENDS={"a": ("y", "x", "seed"), "b": (), "c": ("x", "y"), "d": ("seed",)})
    assert playback.groups(fake) == {("x", "y"): ["a", "c"], (): ["b", "d"]}


def fragment(t: dict, point: dict, name: str) -> str:
    """What the table shows for slot NAME at a grid point ({key: value})."""
    at = t["at"][name]
    flat = 0
    for k in at["keys"]:
        values = t["values"][t["keys"].index(k)]
        flat = flat * len(values) + values.index(point[k])
    return t["fragments"][at["index"][flat]]


@pytest.mark.parametrize("sid", PLAYABLE)
def test_built_table_holds_the_views_slots_at_sampled_points(dist_dir, sid):
    t, v = built(dist_dir, sid), view(sid)
    default = getattr(state.State(), sid)
    assert t["slots"] == list(v.SLOTS) and t["keys"] == list(v.PLAYBACK)
    assert len(set(t["fragments"])) == len(t["fragments"]), "fragments are not deduplicated"
    assert t["values"] == [list(v.PLAYBACK[key]) for key in t["keys"]]  # their URL forms: test_views_contract
    rng = np.random.default_rng(0)
    points = [{k: getattr(default, k) for k in t["keys"]}]
    points += [{k: vals[rng.integers(len(vals))] for k, vals in zip(t["keys"], t["values"])} for _ in range(SAMPLES)]
    for point in points:
        st = dataclasses.replace(default, **point)
        for name, html in v.slots(st, kit.with_results(v, st)).items():
            assert fragment(t, point, name) == html, f"{sid} {point}: slot {name} differs from views.{sid}.slots"


@pytest.mark.parametrize("sid", PLAYABLE)
def test_controls_carry_the_spec_and_the_grid(sid):
    grid = view(sid).PLAYBACK
    out = controls.html_of(sid, grid)
    for c in (c for c in state.CONTROLS if c.section == sid):
        assert f'data-key="{c.name}"' in out and c.help.replace("'", "&#x27;") in out, c.key
        if c.name in grid and c.type in (int, float) and len(grid[c.name]) > 1:
            m = re.search(rf'<input type="range" id="wt-p-{sid}-{c.name}" min="0" max="(\d+)" step="1" value="(\d+)" '
                          r'data-grid="([^"]*)"', out)
            assert m, c.key
            urls = json.loads(m.group(3).replace("&quot;", '"'))
            assert int(m.group(1)) == len(urls) - 1 and urls[int(m.group(2))] == state.fmt(c.default)


def test_built_tables_fit_the_wire_and_match_the_config(dist_dir):
    page = (dist_dir / "index.html").read_text()
    config = json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert sorted(config["playback"]) == sorted(PLAYABLE)
    wire = 0
    for sid, entry in config["playback"].items():
        path = dist_dir / entry["file"]
        data = path.read_bytes()
        assert entry["integrity"] == "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()
        grid = ("keys", "values", "early")  # the page reads them before any table is fetched (site/early.js: offGrid)
        table = json.loads(data)
        assert {k: entry[k] for k in grid} == {k: table[k] for k in grid}, sid
        twins = [p.stat().st_size for p in (path.with_name(path.name + ".br"), path.with_name(path.name + ".gz")) if p.exists()]
        wire += min([len(data), *twins])
    print(f"[playback] {len(PLAYABLE)} tables: {wire} bytes on the wire")
    assert wire <= WIRE_BUDGET, f"the playback tables take {wire} bytes on the wire, over {WIRE_BUDGET}"
    assert config["live_bytes"] > 5_000_000  # the button states the live lab's real cost (runtime + wheels)
