"""The page's NumPy wheel (tools/buildsteps/numpy_slim.py): slimmed to at most half of what it was, the same
bytes from every slim of the same input, pinned by the trimmed lock, and honest under Pyodide: what the page
uses works, what was left out says so. And nothing the page runs (our package, Panel, Bokeh) asks for a NumPy
module the slim leaves out.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tools.buildsteps import numpy_slim
from tools.buildsteps.archives import ZIP_DATE

ROOT = Path(__file__).resolve().parents[1]
# dist/'s NumPy wheel before the slim (0870788): the slim must keep at most half of it.
BEFORE = 12_735_268


def numpy_wheel(dist: Path) -> tuple[Path, dict]:
    """(dist's NumPy wheel, its entry in dist's trimmed lock)."""
    entry = json.loads((dist / "pyodide" / "pyodide-lock.json").read_text())["packages"]["numpy"]
    return dist / "pyodide" / entry["file_name"], entry


def modules(names) -> set[str]:
    """The dotted modules of a wheel's member NAMES (sources, pycs, extension modules)."""
    out = set()
    for n in names:
        if n.endswith((".so", ".py", ".pyc")):
            stem = n.split(".cpython-")[0] if n.endswith(".so") else n.rsplit(".", 1)[0]
            out.add(stem.replace("/", ".").removesuffix(".__init__"))
    return out


def test_the_pages_numpy_is_slimmed_to_half_and_pinned_by_the_lock(dist_dir):
    wheel, entry = numpy_wheel(dist_dir)
    assert wheel.stat().st_size <= BEFORE / 2, f"{wheel.name}: {wheel.stat().st_size} bytes"
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]  # what pyodide.loadPackage checks
    assert entry["file_name"].endswith("-cp312-cp312-pyodide_2024_0_wasm32.whl") and entry["imports"] == ["numpy"]
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if "/tests/" in n or n.endswith((".pyi", ".h", ".pxd"))
                or n.startswith(("numpy/f2py/", "numpy/fft/", "numpy/_pyinstaller/", "numpy/testing/"))]
    shared = {n.split("/")[-1].split(".")[0] for n in names if n.endswith(".so")}
    assert "_multiarray_umath" in shared and "_generator" in shared
    assert not shared & {"_pocketfft_umath", "_umath_linalg", "lapack_lite", "mtrand", "_umath_tests"}, shared
    for stub in numpy_slim.STUBS:  # each stands in as a module (compiled, or a source without pycs)
        assert {f"numpy/{stub}.pyc", f"numpy/{stub}.py"} & set(names), stub


def test_slimming_is_deterministic(tmp_path):
    from tools.buildsteps.fetch import fetch
    src = fetch(offline=True, wheels_from=None).lock_wheels["numpy"]  # checked against the pinned lock
    a, b = tmp_path / "a.whl", tmp_path / "b.whl"
    (files_before, _), (files_after, _) = numpy_slim.write_slim(src, a)
    numpy_slim.write_slim(src, b)
    assert a.read_bytes() == b.read_bytes()
    infos = zipfile.ZipFile(a).infolist()
    assert files_after == len(infos) < files_before / 2
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    fixed = {(ZIP_DATE, zipfile.ZIP_STORED, 0o644)}  # no clock, no zlib, no umask in the bytes
    assert {(i.date_time, i.compress_type, i.external_attr >> 16) for i in infos} == fixed
    assert numpy_slim.slim_numpy(src).read_bytes() == a.read_bytes()  # the build's cached slim is these bytes


HONEST = r'''
import json
import numpy as np
out = {"random": float(np.random.default_rng(3).random()), "norm": float(np.linalg.norm(np.full((2, 2), 2.0)))}
for name, use in [("seed", lambda: np.random.seed(0)), ("RandomState", lambda: np.random.RandomState(0)),
                  ("inv", lambda: np.linalg.inv(np.eye(2))), ("fft", lambda: np.fft.fft)]:
    try:
        use()
        out[name] = "ran"
    except ImportError as e:
        out[name] = str(e)
json.dumps(out)
'''


@pytest.mark.node
def test_under_pyodide_what_the_page_uses_works_and_what_is_left_out_says_so(dist_dir, tmp_path):
    assert shutil.which("node"), "node is not on PATH (./dev installs nodejs as root)"
    code = tmp_path / "honest.py"
    code.write_text(HONEST)
    proc = subprocess.run(["node", str(ROOT / "tests" / "node" / "run_pyodide.mjs"), "--lock",
                           str(dist_dir / "pyodide" / "pyodide-lock.json"), "--packages", "numpy", "--code", str(code)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1].removeprefix("WT_RESULT "))
    import numpy as np
    assert out["random"] == float(np.random.default_rng(3).random()) and out["norm"] == 4.0
    for name in ("seed", "RandomState", "inv"):
        assert out[name].startswith(f"{name}: numpy.") and "left out of this page's NumPy wheel" in out[name], out
    assert out["fft"] == "No module named 'numpy.fft'"


def numpy_names(tree: ast.Module) -> set[str]:
    """What a module takes from NumPy: np.X and np.X.Y (as "X", "X.Y"; numpy. alike), `import numpy.X`,
    `from numpy[.X] import`."""
    def numpy(node) -> bool:
        return isinstance(node, ast.Name) and node.id in ("np", "numpy")

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and numpy(node.value):
            names.add(node.attr)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and numpy(node.value.value):
            names.add(f"{node.value.attr}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy":
            names |= {a.name for a in node.names}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            dotted = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            names |= {d.split(".")[1] for d in dotted if d.startswith("numpy.")}
    return names


def test_our_package_names_nothing_the_slim_leaves_out_or_stubs():
    """Static, over py/weighttying and the code lab's text: no left-out module (numpy.fft, ...) and none of the
    names numpy.random's stubs stand in for (np.random.seed, RandomState, ...). np.linalg's LAPACK is left to
    the Node parity test, which runs every np.linalg.norm the numerics make."""
    left = {m.rstrip("/").removesuffix(".py") for m in numpy_slim.MODULES if "/" not in m.rstrip("/")}
    assert {"fft", "ma", "polynomial", "testing"} <= left
    stubbed = {f"random.{n}" for m in numpy_slim.STUBS if m.startswith("random/")
               for n in importlib.import_module("numpy." + m.replace("/", ".")).__all__}
    assert {"random.seed", "random.RandomState", "random.MT19937"} <= stubbed
    sources = [*(ROOT / "py" / "weighttying").rglob("*.py"), ROOT / "py" / "weighttying" / "texts" / "code.txt"]
    used = {name for path in sources for name in numpy_names(ast.parse(path.read_text()))}
    assert "random.default_rng" in used and not used & (left | stubbed), sorted(used & (left | stubbed))


def test_the_live_sections_import_only_what_the_slim_keeps(dist_dir):
    """Build every live section in CPython as the worker does (our package, Panel, Bokeh): every NumPy module it
    imports is in the page's wheel, as itself or a stub."""
    script = ("import sys\nfrom bokeh.document import Document\nfrom weighttying import state\n"
              "from weighttying.app import main, pooled\nfrom weighttying import pool, early\n"
              "from weighttying.app.sections import SECTIONS\nfrom weighttying.app.store import Store\n"
              "store = Store(state.State())\nfor sid in SECTIONS:\n    main.add_root(Document(), store, sid)\n"
              "print(' '.join(m for m in sys.modules if m.split('.')[0] == 'numpy'))")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    imported = set(proc.stdout.split())
    assert "numpy.random._generator" in imported
    kept = modules(zipfile.ZipFile(numpy_wheel(dist_dir)[0]).namelist())
    assert imported <= kept, sorted(imported - kept)
