"""Stage prerender's computation: what CPython computes for the page from py/ alone (sections' HTML, results,
playback tables, state rules), run in a child process that overlaps the other stages."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import base
from .base import ROOT, BuildError, cached, sha256
from .sections import test_section_files
from .wheels import package_files


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
    code = ("import sys; from pathlib import Path; from tools.buildsteps import base, compute; "
            "base.CACHE = Path(sys.argv[1]); print(compute.computed())")
    proc = subprocess.Popen([sys.executable, "-c", code, str(base.CACHE)], cwd=ROOT, stdout=subprocess.PIPE,
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
