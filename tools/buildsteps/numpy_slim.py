"""NumPy's wheel as the page loads it: Pyodide compiles every shared library of a wheel when it installs it,
so what the page never imports is left out, and the extension modules `import numpy` loads but the page never
calls become stubs that say so when used. Deterministic, like every archive of the build (write_wheel)."""
from __future__ import annotations

import ast
import zipfile
from pathlib import Path

from .archives import dist_info_of, write_wheel
from .base import BuildError, cached, log, sha256

# Never read in a browser: typing stubs, Cython declarations, C sources, headers and static libraries, and the
# entry points (f2py's script, a PyInstaller hook).
SUFFIXES = (".pyi", ".pxd", ".pyx", ".c", ".h", ".a", ".pc", ".ini", ".dist-info/entry_points.txt")
# Under numpy/: the subpackages and modules `import numpy` never imports (or leaves to numpy.__getattr__) and the
# page never asks for, nor Panel nor Bokeh (tests/test_wheels.py; asked for, each is "No module named ..."), and
# the C/Cython build inputs.
MODULES = ("f2py/", "_pyinstaller/", "testing/", "fft/", "polynomial/", "ma/", "doc/", "compat/", "ctypeslib.py",
           "matlib.py", "lib/recfunctions.py", "lib/user_array.py", "lib/_user_array_impl.py",
           "typing/mypy_plugin.py", "_utils/_pep440.py", "random/_examples/", "_core/include/", "_core/lib/",
           "random/lib/")
# Extension modules nothing imports: NumPy's own test helpers (but _multiarray_tests, which _add_newdocs
# imports) and lapack_lite (numpy.linalg runs on _umath_linalg).
EXTENSIONS = ("_core/_umath_tests", "_core/_rational_tests", "_core/_struct_ufunc_tests",
              "_core/_operand_flag_tests", "_core/_simd", "linalg/lapack_lite")
# Extension modules `import numpy` imports but the page never calls, and why each can go.
LEGACY = "the legacy RandomState API and its bit generators; np.random.default_rng(seed) is in"
STUBS = {
    "linalg/_umath_linalg": "LAPACK (np.linalg's inv, solve, det, eig, svd, qr, cholesky, lstsq, pinv); "
                            "np.linalg.norm's vector and Frobenius norms need none",
    "random/mtrand": LEGACY, "random/_mt19937": LEGACY, "random/_philox": LEGACY, "random/_sfc64": LEGACY,
}
STUB = '''"""{module}: left out of this page's NumPy wheel by weighttying's build (tools/buildsteps/numpy_slim.py).
Why: {why}.
Stand-ins for the names the rest of NumPy imports from it keep `import numpy` working; using one raises ImportError.
"""
__all__ = {names!r}
_WHY = "{module} is left out of this page's NumPy wheel: {why}"


class _LeftOut:
    def __init__(self, *args, **kwargs):
        raise ImportError(f"{{type(self).__name__}}: {{_WHY}}")


globals().update({{name: type(name, (_LeftOut,), {{"__module__": __name__}}) for name in __all__}})


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise ImportError(f"{{name}}: {{_WHY}}")
'''


def slim_numpy(src: Path) -> Path:
    """SRC (Pyodide's NumPy wheel) slimmed, cached by its hash and this module's rules."""
    def make(path: Path) -> None:
        before, after = write_slim(src, path)
        log(f"slimmed {src.name}: {before[0]} files, {before[1] / 1e6:.1f} MB -> "
            f"{after[0]} files, {after[1] / 1e6:.1f} MB")
    return cached([sha256(src), sha256(Path(__file__))], src.name, make)


def write_slim(src: Path, path: Path) -> tuple[tuple[int, int], tuple[int, int]]:
    """Write SRC less what the page never reads, with STUBS in place of theirs, to PATH (members stored: the
    compile stage stores them anyway, and stored bytes depend on no zlib). (files, bytes) before and after."""
    with zipfile.ZipFile(src) as z:
        files = {n: z.read(n) for n in z.namelist()}
    kept = {n: d for n, d in files.items() if not left_out(n)}
    for stub, why in STUBS.items():
        module = "numpy." + stub.replace("/", ".")
        names = sorted(imported_names(kept, module))
        kept[f"numpy/{stub}.py"] = STUB.format(module=module, why=why, names=names).encode()
    write_wheel(path, dist_info_of(kept), kept, stored=True)
    with zipfile.ZipFile(path) as z:
        after = z.infolist()
    return (len(files), sum(map(len, files.values()))), (len(after), sum(i.file_size for i in after))


def left_out(name: str) -> bool:
    """Whether member NAME of NumPy's wheel stays out of the page's."""
    parts = name.split("/")
    extension = name.split(".cpython-")[0] if name.endswith(".so") else None
    return (name.endswith(SUFFIXES) or "tests" in parts[:-1] or name.startswith(tuple(f"numpy/{m}" for m in MODULES))
            or extension in {f"numpy/{e}" for e in (*EXTENSIONS, *STUBS)})


def imported_names(files: dict[str, bytes], module: str) -> set[str]:
    """The names the modules in FILES import from MODULE (dotted); for `from MODULE import *`, the names the
    importer's first `__all__` lists (numpy.random's legacy functions, which come from mtrand)."""
    names = set()
    for name, data in files.items():
        if not name.endswith(".py"):
            continue
        tree = ast.parse(data)
        package = name[:-3].replace("/", ".").removesuffix(".__init__")
        package = package if name.endswith("__init__.py") else package.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and resolved(node, package) == module:
                names |= set(first_all(tree)) if node.names[0].name == "*" else {a.name for a in node.names}
    return names


def resolved(node: ast.ImportFrom, package: str) -> str:
    """The absolute module an ImportFrom in PACKAGE names."""
    if not node.level:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0]
    return f"{base}.{node.module}" if node.module else base


def first_all(tree: ast.Module) -> list[str]:
    """The literal list of a module's first `__all__ = [...]`."""
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets):
            return ast.literal_eval(n.value)
    raise BuildError("a NumPy module star-imports a stubbed module but lists no __all__: the stub cannot know "
                     "which names to stand in for (tools/buildsteps/numpy_slim.py)")
