"""Stage wheels: what the worker installs. PyPI wheels slimmed of the browser assets, sdists made pure wheels,
and ours packed from py/."""
from __future__ import annotations

import tarfile
import tomllib
import zipfile
from pathlib import Path

from packaging.utils import canonicalize_name

from .archives import dist_info_of, write_wheel
from .base import ROOT, cached, log, sha256, split_filename
from .fetch import Inputs
from .numpy_slim import slim_numpy
from .sections import test_section_files

# Browser assets in the wheels that Python in the worker never reads (served as static files instead).
SLIM = {"panel": ("panel/dist/", "panel/tests/"), "bokeh": ("bokeh/server/static/", "bokeh/sampledata/")}
# Where an sdist keeps its pure-Python packages; C speedups are left out (both fall back to Python).
SDIST_SOURCES = {"markupsafe": ("src", ("markupsafe",)), "pyyaml": ("lib", ("yaml",))}


def wheels(inputs: Inputs) -> dict[str, Path]:
    """{package: wheel} the worker installs: Pyodide's (NumPy slimmed), every pinned PyPI file (slimmed, or an
    sdist made a pure wheel) except those only carried as a source of Pyodide's, and ours."""
    sources = {s.split(":", 1)[0] for s in inputs.pins["lock_wheels"]["sources"]}
    out = {name: slim_numpy(path) if name == "numpy" else path for name, path in inputs.lock_wheels.items()}
    for fname, path in inputs.pypi.items():
        project = canonicalize_name(split_filename(fname)[0])
        if fname in sources:
            continue
        if fname.endswith(".tar.gz"):
            out[project] = sdist_wheel(path, project)
        elif project in SLIM:
            out[project] = slim_wheel(path, SLIM[project])
        else:
            out[project] = path
    out["weighttying"] = our_wheel()
    return out


def slim_wheel(src: Path, drop: tuple[str, ...]) -> Path:
    """SRC without the members under DROP (the browser assets the worker never reads)."""
    def make(path: Path) -> None:
        with zipfile.ZipFile(src) as z:
            names = [n for n in z.namelist() if not n.startswith(drop)]
            write_wheel(path, dist_info_of(names), {n: z.read(n) for n in names})
        log(f"slimmed {src.name}: {src.stat().st_size >> 20} MB -> {path.stat().st_size >> 10} kB")
    return cached([sha256(src), *drop], src.name, make)


def sdist_wheel(src: Path, project: str) -> Path:
    """A pure-Python wheel of an sdist with optional C speedups: its Python packages + PKG-INFO."""
    root, packages = SDIST_SOURCES[project]
    name, version = split_filename(src.name)
    dist_info = f"{name}-{version}.dist-info"

    def make(path: Path) -> None:
        files = {}
        with tarfile.open(src) as t:
            top = t.getnames()[0].split("/")[0]
            for m in t.getmembers():
                rel = m.name[len(f"{top}/{root}/"):]
                if m.isfile() and m.name.startswith(f"{top}/{root}/") and rel.split("/")[0] in packages \
                        and rel.endswith((".py", "py.typed")):
                    files[rel] = t.extractfile(m).read()
            files[f"{dist_info}/METADATA"] = t.extractfile(f"{top}/PKG-INFO").read()
        write_wheel(path, dist_info, files)
    return cached([sha256(src), root, *packages], f"{name}-{version}-py3-none-any.whl", make)


def package_files(root: Path) -> list[Path]:
    """Our package's modules and its data (the shipped texts of the own-text section, texts/ORIGINS.md, and the
    calibration search's record, which the tasks section counts)."""
    return [*root.rglob("*.py"), *(root / "texts").glob("*.txt"), root / "texts" / "ORIGINS.md",
            root / "calibration.txt"]


def our_wheel() -> Path:
    """py/ as a wheel, cached by its content (worktrees may share one cache)."""
    meta = tomllib.loads((ROOT / "py" / "pyproject.toml").read_text())["project"]
    name, version = meta["name"], meta["version"]
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", f"Summary: {meta['description']}",
             f"Requires-Python: {meta['requires-python']}", *(f"Requires-Dist: {d}" for d in meta["dependencies"])]
    dist_info = f"{name}-{version}.dist-info"
    files = {f"{dist_info}/METADATA": ("\n".join(lines) + "\n").encode()}
    for f in sorted(package_files(ROOT / "py" / name)):
        files[f.relative_to(ROOT / "py").as_posix()] = f.read_bytes()
    files |= {f.name: f.read_bytes() for f in test_section_files()}
    key = [f"{n}:{sha256(d)}" for n, d in sorted(files.items())]
    return cached(key, f"{name}-{version}-py3-none-any.whl", lambda path: write_wheel(path, dist_info, files))
