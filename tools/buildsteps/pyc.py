"""Stage compile: the wheels' and the stdlib's .py compiled to .pyc by Pyodide's own Python (tools/pyc.mjs)."""
from __future__ import annotations

import json
import tempfile
import time
import zipfile
from pathlib import Path

from . import base
from .archives import dist_info_of, write_wheel, write_zip
from .base import NPM_DIR, TOOLS, BuildError, log, run, sha256
from .fetch import Python


def compile_pyc(archives: dict[str, Path], python: Python, keep_source: set[str]) -> dict[str, Path]:
    """Each archive (a wheel, or python_stdlib.zip under the key "stdlib") with its .py files compiled
    to .pyc by Pyodide's Python (tools/pyc.mjs under Node): sourceless `mod.pyc` in place of `mod.py` (as
    Pyodide's own py-compiled distribution ships them; smaller and one lookup less), except for the
    archives named in KEEP_SOURCE, which keep their .py and gain `__pycache__/mod.<cache_tag>.pyc`.
    A file Pyodide's compiler rejects keeps its source. Each archive is cached by its hash, so a change
    to py/ recompiles only our wheel; the missing ones are compiled in one Node run."""
    tool = [sha256(TOOLS / "pyc.mjs"), json.loads((NPM_DIR / "package.json").read_text())["version"]]
    out = {k: base.CACHE / "pyc" / sha256("\n".join([*tool, sha256(v), str(k in keep_source)]).encode())[:16] / v.name
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
            with base.whole(out[k]) as part:
                if k == "stdlib":
                    write_zip(part, files, stored=True)
                else:
                    write_wheel(part, dist_info_of(files), files, stored=True)
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
