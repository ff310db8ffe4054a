"""The section contract (views/__init__.py): every view has the same shape, its declarations say what
its slots really depend on, no view imports another, and the prerender composes the slots."""
import ast
import dataclasses
import functools
import importlib
import re
from pathlib import Path

import pytest

from weighttying import prerender
from weighttying import state as S
from weighttying.views import kit

VIEWS = Path(__file__).resolve().parents[1] / "py" / "weighttying" / "views"


def view(sid):
    return importlib.import_module(f"weighttying.views.{sid}")


@functools.lru_cache(maxsize=None)
def default_results(sid):
    v = view(sid)
    return v.results(getattr(S.State(), sid))


def shown_results(sid, st):
    """kit.with_results, reusing the default run (the slow part) instead of recomputing it per state."""
    v = view(sid)
    if v.RUN_KEYS and all(getattr(st, k) == getattr(type(st)(), k) for k in v.RUN_KEYS):
        return default_results(sid)
    return kit.with_results(v, st)


def test_every_section_has_a_view():
    assert {p.stem for p in VIEWS.glob("*.py")} - {"__init__", "kit"} == set(S.SECTIONS)


@pytest.mark.parametrize("sid", S.SECTIONS)
def test_declarations_name_real_fields_and_values_in_bounds(sid):
    v, fields = view(sid), {f.name for f in dataclasses.fields(getattr(S.State(), sid))}
    assert set(v.RUN_KEYS) <= fields and set(v.PLAYBACK) <= fields and v.PLAYBACK
    assert set(v.DEPENDS) == set(v.SLOTS) and all(set(d) <= fields for d in v.DEPENDS.values())
    for key, fill in v.FILLS.items():  # a choice filling fields: its choices and the fields are real
        assert set(fill["by"]) | {fill["else"]} <= set(kit.control(sid, key).choices), key
        assert all(set(filled) <= fields - {key} for filled in fill["by"].values()), key
    for key, values in v.PLAYBACK.items():
        c = kit.control(sid, key)
        assert c.default in values and len(set(values)) == len(values)
        for x in values:
            ok, note = S.parse_value(c, S.fmt(x))
            assert note is None and ok == x, (key, x, note)  # every grid value is a valid, unclamped URL value


@pytest.mark.parametrize("sid", S.SECTIONS)
def test_slots_are_the_declared_ones_in_order_with_and_without_results(sid):
    v, st = view(sid), getattr(S.State(), sid)
    assert tuple(v.slots(st, shown_results(sid, st))) == v.SLOTS
    assert tuple(v.slots(st)) == v.SLOTS


def changed_states(sid):
    """One state per PLAYBACK field and non-default value (up to 3 each): the rest at defaults."""
    v, st = view(sid), getattr(S.State(), sid)
    for key, values in v.PLAYBACK.items():
        others = [x for x in values if x != getattr(st, key)]
        for x in others[:1] + others[len(others) // 2:][:1] + others[-1:]:
            yield key, dataclasses.replace(st, **{key: x})


@pytest.mark.parametrize("sid", S.SECTIONS)
def test_a_slot_changes_only_with_the_fields_it_declares(sid):
    v, st = view(sid), getattr(S.State(), sid)
    base = v.slots(st, shown_results(sid, st))
    moved = set()
    for key, changed in changed_states(sid):
        now = v.slots(changed, shown_results(sid, changed))
        for name in v.SLOTS:
            if now[name] != base[name]:
                assert key in v.DEPENDS[name], f"{sid}.{name} changed with {key} but does not declare it"
                moved.add(key)
    assert moved, "no playback field changes anything: the table would answer nothing"


def test_no_view_imports_another():
    sections = set(S.SECTIONS)
    for path in VIEWS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = {node.module} if node.module else {a.name for a in node.names}
                assert not names & sections, f"{path.name} imports {names & sections}"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert not node.module.startswith("weighttying.views."), path.name


def test_prerender_composes_the_slots_in_order():
    out = prerender.sections()
    assert set(out) == set(S.SECTIONS)
    for sid, html in out.items():
        assert re.findall(r'<div class="wt-slot" data-slot="([\w-]+)">', html) == list(view(sid).SLOTS)


def test_with_results_runs_only_at_the_run_keys_defaults():
    st = S.Tasks(steps=20, seeds=1)
    assert kit.with_results(view("tasks"), st) is None
    assert kit.with_results(view("sweep"), S.Sweep()) is None  # a section without a run
    tying = view("tying").slots(S.Tying())
    assert "tying-saved" in tying["readout"] and "Not run" not in "".join(tying.values())


def test_grids():
    assert kit.lin(0.0, 1.0, 0.25) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert kit.log(1e-2, 1e2, 1) == [0.01, 0.1, 1.0, 10.0, 100.0]
    assert kit.grid("sweep", "grid") == ("coarse", "fine") and kit.grid("repeat", "tied") == (False, True)
    # the default and every preset's value join a grid; out-of-bounds values leave it
    assert kit.grid("sweep", "sigma", (1e-9, 1.0)) == (0.227, 0.25, 1.0)


@pytest.mark.parametrize("sid", S.SECTIONS)
def test_overlays_follow_their_slot_share_its_viewbox_and_are_stacked(sid):
    v, st = view(sid), getattr(S.State(), sid)
    out = v.slots(st, shown_results(sid, st))
    box = re.compile(r'<svg class="wt-fig[^"]*" viewBox="([\d ]+)"')
    for over, base in v.OVERLAYS.items():
        assert v.SLOTS.index(over) == v.SLOTS.index(base) + 1
        assert box.findall(out[over]) == box.findall(out[base])[:1] and "wt-over" in out[over]
        assert f'<div class="wt-stack">{kit.slot(base, out[base])}{kit.slot(over, out[over])}</div>' in \
            prerender.section(sid, st)


def ring(svg: str) -> tuple[float, float, bool]:
    m = re.search(r'<circle class="wt-at" cx="([\d.]+)" cy="([\d.]+)" r="7"( stroke-dasharray)?', svg)
    return float(m.group(1)), float(m.group(2)), not m.group(3)


def test_sweep_ring_sits_on_the_current_cell_and_is_dashed_off_the_grid():
    sweep, g = view("sweep"), view("sweep").scales("coarse")
    i, j = 2, len(g["sigmas"]) - 2
    st = S.Sweep(sigma=float(g["sigmas"][j]), in_scale=float(g["in_scales"][i]))
    out = sweep.slots(st)
    cells = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', out["resid"])
    x, y, w, h = map(float, cells[i * len(g["sigmas"]) + j])  # row i (inScale), column j (sigma)
    cx, cy, inside = ring(out["resid_at"])
    assert inside and abs(cx - (x + w / 2)) < 0.2 and abs(cy - (y + h / 2)) < 0.2
    assert out["logit_at"] == out["resid_at"]
    far = sweep.slots(S.Sweep(sigma=1e6, in_scale=float(g["in_scales"][i])))
    fx, fy, inside = ring(far["resid_at"])
    assert not inside and fy == cy and fx > cx  # at the right-hand edge, same row
    assert far["resid"] == out["resid"]  # the heatmap itself does not follow sigma


def test_savings_point_sits_on_the_curve_at_the_current_v():
    savings = view("savings")
    for V in (int(savings.CURVE_V[10]), int(savings.CURVE_V[-5])):
        out = savings.slots(S.Savings(preset="custom", V=V))
        line = re.search(r'<polyline class="wt-s0" fill="none" points="([^"]+)"', out["curve"]).group(1)
        points = [tuple(map(float, p.split(","))) for p in line.split()]
        k = list(savings.CURVE_V).index(V)
        cx, cy, inside = ring(out["curve_at"])
        assert inside and abs(cx - points[k][0]) < 0.11 and abs(cy - points[k][1]) < 0.11
    off = ring(savings.slots(S.Savings(preset="custom", V=10 ** 8))["curve_at"])
    assert not off[2]
