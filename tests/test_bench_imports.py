"""Every bench script imports what it calls: each bench/*.py is loaded the way `python bench/X.py` loads it
(its folder first on sys.path, then whatever it puts before that, tests/ for most), without running its main,
and every `module.name` it reads off a module it imports must exist; and no module in bench/ has the file name of
one in tests/, which most bench scripts put first on sys.path. bench/run.py once stopped after minutes of
measuring with "module 'engines' has no attribute 'measure'": `import engines` found tests/engines.py, not the
bench script of that name. No browser is started here."""
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# peer_app.py is not a script: it is the Panel app bench/peer.py hands to `panel convert` (importing it builds it).
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if p.name != "peer_app.py")

# Run in a fresh interpreter per script, so what one script imported cannot satisfy another.
CHECK = r'''
import ast, importlib, importlib.util, sys, types
from pathlib import Path

path = Path(sys.argv[1])
sys.argv = [str(path)]
sys.path.insert(0, str(path.parent))  # what `python bench/X.py` does before X runs
spec = importlib.util.spec_from_file_location("bench_check_" + path.stem, path)
script = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)  # not __main__: its main() does not run
# a function's own import runs when bench/run.py calls it, with tests/ on sys.path (harness, in bench/peer.py)
sys.path.append(str(path.parents[1] / "tests"))
tree = ast.parse(path.read_text())


def bound(node):
    """{alias: module} for an import statement whose names are modules (a function's import, imported now)."""
    out = {}
    for a in node.names:
        alias = a.asname or a.name.split(".")[0]
        if isinstance(node, ast.Import):
            obj = script.__dict__.get(alias) or importlib.import_module(a.name if a.asname else alias)
        else:
            obj = script.__dict__.get(alias) or getattr(importlib.import_module(node.module), a.name, None)
        if isinstance(obj, types.ModuleType):
            out[alias] = obj
    return out


def rebound(fn):
    """Names a function binds itself (arguments, assignments, loop targets): there they are not the module."""
    args = fn.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    return names | {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


modules = {}
for node in ast.walk(tree):
    if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "level", 0) == 0:
        modules |= bound(node)
shadowed = {id(n): rebound(fn) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.Lambda))
            for n in ast.walk(fn)}
missing = sorted({f"line {n.lineno}: {n.value.id}.{n.attr} ({modules[n.value.id].__file__})"
                  for n in ast.walk(tree)
                  if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                  and n.value.id in modules and n.value.id not in shadowed.get(id(n), ())
                  and not hasattr(modules[n.value.id], n.attr)})
print("\n".join(missing))
sys.exit(1 if missing else 0)
'''


def bound_at_top(body: list) -> list[tuple[str, str, int]]:
    """(name, "import" or "other", line) for each name a module's own statements bind (not inside a def or class)."""
    out = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out += [((a.asname or a.name).split(".")[0], "import", node.lineno) for a in node.names]
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.name, "other", node.lineno))
            continue
        targets = [*getattr(node, "targets", []), getattr(node, "target", None),
                   *(item.optional_vars for item in getattr(node, "items", []))]  # =, x: T =, +=, for, with ... as
        out += [(n.id, "other", node.lineno) for t in targets if t is not None for n in ast.walk(t)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        for block in ("body", "orelse", "finalbody", "handlers"):  # if, for, while, with, try at module level
            out += bound_at_top(getattr(node, block, []))
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "bench").glob("*.py")))
def test_no_module_name_is_both_imported_and_defined(name):
    """bench/peer.py imported tools.buildsteps.compress and defined a function compress below it: the function
    replaced the module, and compress.brotlied() failed at the end of every fresh peer build."""
    names: dict[str, list] = {}
    for n, kind, line in bound_at_top(ast.parse((ROOT / "bench" / name).read_text()).body):
        names.setdefault(n, []).append((kind, line))
    twice = {n: b for n, b in names.items() if {"import", "other"} <= {kind for kind, _ in b}}
    assert not twice, f"bench/{name}: imported and bound again at module level: {twice}"


def check(script: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHECK, str(script)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def test_every_bench_script_is_checked():
    assert {"run.py", "engine_times.py", "memory.py", "numerics.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_bench_script_has_every_name_it_calls(name):
    out = check(ROOT / "bench" / name)
    assert out.returncode == 0, f"bench/{name}: names it reads that its imports lack:\n{out.stdout}{out.stderr}"


def test_the_check_catches_a_name_the_module_lacks(tmp_path):
    (tmp_path / "broken.py").write_text("import json\n\n\ndef main():\n    return json.measure\n")
    out = check(tmp_path / "broken.py")
    assert out.returncode == 1 and "line 5: json.measure" in out.stdout, out.stdout + out.stderr


def test_no_bench_module_has_the_name_of_one_in_tests():
    both = {p.name for p in (ROOT / "bench").glob("*.py")} & {p.name for p in (ROOT / "tests").glob("*.py")}
    assert not both, f"bench/ and tests/ both have {sorted(both)}: a bench script's `import` finds tests/'s"


KEEPS = r'''
import contextlib, json, sys, types
from pathlib import Path
sys.path.insert(0, "bench")
import run

out = Path(sys.argv[1])
measured = {"readable_ms": 1.0}


def measure(variants, a, code, classroom, tmp, keep):
    keep({"main": [measured]}, [])
    return {"main": [measured]}, []


def engines_fail(*args):
    raise RuntimeError("an engine failed to start")


run.variants_of = lambda a, tmp: {"main": tmp}
run.measure = measure
run.harness.serve = lambda d, log_dir: contextlib.nullcontext(types.SimpleNamespace(url="http://127.0.0.1:1/"))
run.engine_times.measure = engines_fail
try:
    run.main(["--no-peer", "--no-classroom", "--no-numerics", "--engines", "webkit", "--out", str(out)])
except Exception:  # summarising the one stand-in run fails (a KeyError): what was measured is on disk before that
    pass
print(out.with_suffix(".runs.json").read_text())
'''


def test_run_keeps_what_it_measured_when_a_later_step_fails(tmp_path):
    """bench/run.py writes the runs it measured as it goes (run.runs.json), so a failing engines step (or a failing
    summary) loses none of them, and the engines' failure is in the JSON, not lost in a traceback."""
    out = subprocess.run([sys.executable, "-c", KEEPS, str(tmp_path / "run.json")], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    kept = json.loads(out.stdout)
    assert kept["runs"] == {"main": [{"readable_ms": 1.0}]}
    assert kept["engines"] == {"measured": False, "error": "RuntimeError: an engine failed to start"}
