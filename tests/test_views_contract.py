"""The view contract (views/contract.py): every view keeps it, checked at load with the view and the member
named; its declarations say what its slots really depend on, no view imports another, and the prerender
composes the slots."""
import ast
import dataclasses
import functools
import itertools
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from harness import probe_env
from weighttying import pool, prerender
from weighttying import state
from weighttying.views import contract, kit

ROOT = Path(__file__).resolve().parents[1]
VIEWS = ROOT / "py" / "weighttying" / "views"
view = prerender.view


@functools.lru_cache(maxsize=None)
def default_results(sid):
    v = view(sid)
    return v.results(getattr(state.State(), sid))


def shown_results(sid, st):
    """kit.with_results, reusing the default run (the slow part) instead of recomputing it per state."""
    v = view(sid)
    if v.RUN_KEYS and all(getattr(st, k) == getattr(type(st)(), k) for k in v.RUN_KEYS):
        return default_results(sid)
    return kit.with_results(v, st)


def test_every_section_has_a_view():
    assert {p.stem for p in VIEWS.glob("*.py")} - {"__init__", "contract"} == set(state.SECTIONS)
    assert all(isinstance(view(sid), contract.View) for sid in state.SECTIONS)


GOOD = {"SLOTS": ("a", "b"), "slots": lambda st, results=None: {"a": "", "b": ""}, "PLAYBACK": {"sigma": (0.25,)},
        "DEPENDS": {"a": ("sigma",), "b": ()}}


FAKES = itertools.count()  # a module name per fake: views load once per module name


def fake_view(monkeypatch, **members) -> str:
    """The id of a section "fake" (the sweep's State) whose view module holds `members` (None: left out)."""
    module = types.ModuleType(f"wt_test_view_{next(FAKES)}")
    module.__dict__.update({k: v for k, v in {**GOOD, **members}.items() if v is not None})
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(state.SECTION, "fake", state.Section("fake", state.Sweep, module.__name__, None, ""))
    return "fake"


def test_a_view_keeping_the_contract_gets_the_defaults(monkeypatch):
    v = view(fake_view(monkeypatch))
    assert (v.results, v.RUN_KEYS, v.OVERLAYS, v.FILLS, v.CLAIM, v.PAIRS, v.DATA, v.LATEST) == \
        (kit.no_results, (), {}, {}, "", (), (), ())
    assert v.steps is v.total is v.split is v.iter_part is v.merge is v.prepare is None and not pool.parted("fake")


@pytest.mark.parametrize("members,says", [
    ({"SLOTS": None}, "lacks SLOTS: a tuple of slot names"),
    ({"DEPENDS": None}, "lacks DEPENDS"),
    ({"slots": None}, "lacks slots"),
    ({"SLOTS": ["a", "b"]}, "SLOTS must be a tuple of slot names, not ['a', 'b']"),
    ({"RUN_KEYS": "sigma"}, "RUN_KEYS must be a tuple of field names"),
    ({"results": {}}, "results must be a function results(st)"),
    ({"PAIRS": ("a", "b")}, "PAIRS must be a tuple of (slot, slot) pairs"),
    ({"OVERLAY": {"b": "a"}}, "OVERLAY is no member of a view; OVERLAYS?"),
    ({"split": len}, "iter_part, merge missing beside split (all or none)"),
    ({"steps": iter}, "total missing beside steps"),
    ({"DEPENDS": {"a": ()}}, "DEPENDS names the slots ['a'], SLOTS ['a', 'b']"),
    ({"DATA": ("c",)}, "DATA names ['c'], which SLOTS lacks"),
    ({"RUN_KEYS": ("sigmaa",)}, "RUN_KEYS names ['sigmaa'], which Sweep lacks"),
    ({"prepare": dict}, "prepare without QUIET_S: only a Run of the reader's code is prepared for"),
])
def test_a_view_breaking_the_contract_fails_at_load_naming_itself_and_the_member(monkeypatch, members, says):
    sid = fake_view(monkeypatch, **members)
    with pytest.raises(contract.ViewError) as err:
        view(sid)
    assert str(err.value).startswith(f"view {state.SECTION[sid].view}") and says in str(err.value), err.value


def test_the_build_stops_on_a_view_that_breaks_the_contract(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from tools.buildsteps import base, sections

    fake_view(monkeypatch, SLOTS=None)
    monkeypatch.setattr(state, "REGISTRY", (*state.REGISTRY, state.SECTION["fake"]))
    monkeypatch.setattr(state, "missing_parts", lambda root: [])
    with pytest.raises(base.BuildError, match=r"section 'fake' breaks the view contract: view wt_test_view_\d+ lacks SLOTS"):
        sections.registry()


def test_the_test_only_probe_keeps_the_contract():
    code = "from weighttying import prerender; print(prerender.view('probe').SLOTS)"
    proc = subprocess.run([sys.executable, "-c", code], env=probe_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["('double',", "'words')"], proc.stderr[-2000:]


def test_the_contracts_members_are_what_design_names():
    """docs/DESIGN.md's view section names only members the contract has."""
    design = (ROOT / "docs" / "DESIGN.md").read_text()
    section = design.split("### A view module", 1)[1].split("\n#", 1)[0]
    named = set(re.findall(r"`([A-Z][A-Z_]+)`", section)) | set(re.findall(r"`([a-z_]+)\(", section))
    assert named <= set(contract.MEMBERS), named - set(contract.MEMBERS)
    assert set(contract.MEMBERS) <= set(re.findall(r"`([A-Za-z_]+)", section)), "DESIGN leaves a member out"


@pytest.mark.parametrize("sid", state.SECTIONS)
def test_declarations_name_real_fields_and_values_in_bounds(sid):
    v, fields = view(sid), {f.name for f in dataclasses.fields(getattr(state.State(), sid))}
    assert set(v.RUN_KEYS) <= fields and set(v.PLAYBACK) <= fields and v.PLAYBACK
    assert set(v.DEPENDS) == set(v.SLOTS) and all(set(d) <= fields for d in v.DEPENDS.values())
    for key, fill in v.FILLS.items():  # a choice filling fields: its choices and the fields are real
        assert set(fill["by"]) | {fill["else"]} <= set(kit.control(sid, key).choices), key
        assert all(set(filled) <= fields - {key} for filled in fill["by"].values()), key
    for key, values in v.PLAYBACK.items():
        c = kit.control(sid, key)
        assert c.default in values and len(set(values)) == len(values)
        for x in values:
            ok, note = state.parse_value(c, state.fmt(x))
            assert note is None and ok == x, (key, x, note)  # every grid value is a valid, unclamped URL value


@pytest.mark.parametrize("sid", state.SECTIONS)
def test_slots_are_the_declared_ones_in_order_with_and_without_results(sid):
    v, st = view(sid), getattr(state.State(), sid)
    assert tuple(v.slots(st, shown_results(sid, st))) == v.SLOTS
    assert tuple(v.slots(st)) == v.SLOTS


def changed_states(sid):
    """One state per PLAYBACK field and non-default value (up to 3 each): the rest at defaults."""
    v, st = view(sid), getattr(state.State(), sid)
    for key, values in v.PLAYBACK.items():
        others = [x for x in values if x != getattr(st, key)]
        for x in others[:1] + others[len(others) // 2:][:1] + others[-1:]:
            yield key, dataclasses.replace(st, **{key: x})


@pytest.mark.parametrize("sid", state.SECTIONS)
def test_a_slot_changes_only_with_the_fields_it_declares(sid):
    v, st = view(sid), getattr(state.State(), sid)
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
    sections = set(state.SECTIONS)
    for path in VIEWS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = {node.module} if node.module else {a.name for a in node.names}
                assert not names & sections, f"{path.name} imports {names & sections}"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert not node.module.startswith("weighttying.views."), path.name


def test_prerender_composes_the_slots_in_order():
    out = prerender.sections()
    assert set(out) == set(state.SECTIONS)
    for sid, html in out.items():
        assert re.findall(r'<div class="wt-slot" data-slot="([\w-]+)">', html) == list(view(sid).SLOTS)


def test_with_results_runs_only_at_the_run_keys_defaults():
    st = state.Tasks(steps=20, seeds=1)
    assert kit.with_results(view("tasks"), st) is None
    assert kit.with_results(view("sweep"), state.Sweep()) is None  # a section without a run
    tying = view("tying").slots(state.Tying())
    assert "tying-saved" in tying["readout"] and "Not run" not in "".join(tying.values())


def test_grids():
    assert kit.lin(0.0, 1.0, 0.25) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert kit.log(1e-2, 1e2, 1) == [0.01, 0.1, 1.0, 10.0, 100.0]
    assert kit.grid("sweep", "grid") == ("coarse", "fine") and kit.grid("repeat", "tied") == (False, True)
    # the default and every preset's value join a grid; out-of-bounds values leave it
    assert kit.grid("sweep", "sigma", (1e-9, 1.0)) == (0.227, 0.25, 1.0)


@pytest.mark.parametrize("sid", state.SECTIONS)
def test_overlays_follow_their_slot_share_its_viewbox_and_are_stacked(sid):
    v, st = view(sid), getattr(state.State(), sid)
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
    from weighttying.views import sweep

    g = sweep.scales("coarse")
    i, j = 2, len(g["sigmas"]) - 2
    st = state.Sweep(sigma=float(g["sigmas"][j]), in_scale=float(g["in_scales"][i]))
    out = sweep.slots(st)
    cells = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', out["resid"])
    x, y, w, h = map(float, cells[i * len(g["sigmas"]) + j])  # row i (inScale), column j (sigma)
    cx, cy, inside = ring(out["resid_at"])
    assert inside and abs(cx - (x + w / 2)) < 0.2 and abs(cy - (y + h / 2)) < 0.2
    assert out["logit_at"] == out["resid_at"]
    far = sweep.slots(state.Sweep(sigma=1e6, in_scale=float(g["in_scales"][i])))
    fx, fy, inside = ring(far["resid_at"])
    assert not inside and fy == cy and fx > cx  # at the right-hand edge, same row
    assert far["resid"] == out["resid"]  # the heatmap itself does not follow sigma


def test_savings_point_sits_on_the_curve_at_the_current_v():
    from weighttying.views import savings

    for V in (int(savings.CURVE_V[10]), int(savings.CURVE_V[-5])):
        out = savings.slots(state.Savings(preset="custom", V=V))
        line = re.search(r'<polyline class="wt-s0" fill="none" points="([^"]+)"', out["curve"]).group(1)
        points = [tuple(map(float, p.split(","))) for p in line.split()]
        k = list(savings.CURVE_V).index(V)
        cx, cy, inside = ring(out["curve_at"])
        assert inside and abs(cx - points[k][0]) < 0.11 and abs(cy - points[k][1]) < 0.11
    off = ring(savings.slots(state.Savings(preset="custom", V=10 ** 8))["curve_at"])
    assert not off[2]
