"""What every stage of build.py shares: the repo's paths, the build's error and log, hashing, checked
subprocesses and the content-keyed cache of derived files."""
from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # tools/buildsteps/base.py
PINS = ROOT / "pins" / "artifacts.json"
SITE = ROOT / "site"
TOOLS = ROOT / "tools"


def user_cache() -> Path:
    """$WT_CACHE, else $XDG_CACHE_HOME/weighttying (~/.cache/weighttying): one cache for every checkout on the
    machine, as pip's and npm's are, so a fresh clone builds from what an earlier build already derived. Every
    entry is keyed by the hash of its inputs, and pinned downloads are checked again whenever they are used."""
    if os.environ.get("WT_CACHE"):
        return Path(os.environ["WT_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "weighttying"


CACHE = user_cache()
NPM_DIR = ROOT / "node_modules" / "pyodide"
DIST = ROOT / "dist"


class BuildError(Exception):
    """A reason to stop the build, worded for the person running it."""


def log(msg: str) -> None:
    print(f"[build] {msg}", file=sys.stderr, flush=True)


def sha256(data_or_path: bytes | Path) -> str:
    data = data_or_path.read_bytes() if isinstance(data_or_path, Path) else data_or_path
    return hashlib.sha256(data).hexdigest()


def sri(data: bytes) -> str:
    """The Subresource Integrity value of a file: sha256-<base64 digest>."""
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


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


@contextlib.contextmanager
def whole(path: Path):
    """Yield the file this process writes PATH into, then put it in place whole: other builds, in this checkout or
    another, may share the cache, so a file there is whole or absent and no two writers share a part."""
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    yield part
    part.replace(path)


def cached(key_parts: list[str], name: str, make) -> Path:
    """CACHE/built/<key>/<name>, made by make(path) once per distinct key; its folder's mtime says when a
    build last used it (prune_built)."""
    key = sha256("\n".join(key_parts).encode())[:16]
    path = CACHE / "built" / key / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with whole(path) as part:
            make(part)
    os.utime(path.parent)
    return path


def prune_built(days: float = 14) -> None:
    """Drop CACHE/built/<key> folders no build has used for DAYS: each py/ change leaves ~15 MB behind there."""
    cutoff = time.time() - days * 86400
    for folder in (CACHE / "built").glob("*"):
        try:
            if folder.stat().st_mtime < cutoff:
                for f in folder.iterdir():
                    f.unlink()
                folder.rmdir()
        except OSError:  # another build is using or pruning it: leave it
            pass
