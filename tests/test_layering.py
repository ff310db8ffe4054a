"""The layering rule: everything outside app/ imports only numpy, the standard library and itself,
so the numerics run unchanged in Pyodide and never pull in Panel or Bokeh."""
import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "py" / "weighttying"
ALLOWED = set(sys.stdlib_module_names) | {"numpy", "weighttying", "js"}


def non_ui_modules():
    return sorted(p for p in PKG.rglob("*.py") if "app" not in p.relative_to(PKG).parts)


def test_non_ui_modules_import_only_numpy_and_stdlib():
    bad = []
    for path in non_ui_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            bad += [f"{path.relative_to(PKG)}: {n}" for n in names if n.split(".")[0] not in ALLOWED]
    assert not bad, bad


def test_importing_every_non_ui_module_with_panel_and_bokeh_blocked():
    mods = [".".join(("weighttying", *p.relative_to(PKG).with_suffix("").parts)).removesuffix(".__init__")
            for p in non_ui_modules()]
    code = ("import sys\nfor m in ('panel', 'bokeh', 'param'): sys.modules[m] = None\n"
            "import importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in mods))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(mods) > 10
