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
    state rules as data (prerender.rules), "says": the status lines' words (controls.SAYS), "readout": what the
    readout reads figures by (render.readout_rules), "vocabulary": what site/inert.js lets a slot draw
    (render.vocabulary.emitted), "colours": the stylesheet's light :root and figure rules
    (colours.page_css), "early_runs": the sections with a Run before Panel (early.emitted)}.
    Each section is cached on its own (section_part), so a test build (--with-test-sections) computes only its test
    sections and reuses the page's."""
    sys.path.insert(0, str(ROOT / "py"))
    import numpy
    from weighttying import colours, controls, early, prebuilt, prerender, render, state
    from weighttying.render import vocabulary

    sources = [Path(__file__), *sorted(package_files(ROOT / "py" / "weighttying"))]  # the cache is the machine's
    package = [sys.version, numpy.__version__, *(f"{p.relative_to(ROOT)}:{sha256(p)}" for p in sources)]
    tests = [f"{p.name}:{sha256(p)}" for p in test_section_files()]
    extra = {s.id for s in state.extra_sections()}
    paths = {sid: cached([*package, sid, *(tests if sid in extra else [])], f"computed-{sid}.json",
                         lambda out, sid=sid: section_part(sid, out)) for sid in state.SECTIONS}

    def make(out: Path) -> None:
        parts = {sid: json.loads(path.read_text()) for sid, path in paths.items()}
        out.write_text(json.dumps({
            "sections": {sid: p["section"] for sid, p in parts.items()},
            "results": prebuilt.dumps({sid: parts[sid]["results"] for sid in prebuilt.RUN_SECTIONS}).decode(),
            "tables": {sid: p["table"] for sid, p in parts.items()}, "rules": prerender.rules(),
            "says": controls.SAYS, "readout": render.readout_rules(), "vocabulary": vocabulary.emitted(),
            "colours": colours.page_css(), "early_runs": early.emitted()}))

    return cached([*package, *tests], "computed.json", make)


def section_part(sid: str, out: Path) -> None:
    """One section's share of computed() into OUT: its prerendered HTML, its default results (run sections;
    else None) and its playback table's text, in one process so the three share its heavy runs (views.kit's
    memo)."""
    from weighttying import playback, prebuilt, prerender, state
    from weighttying.views import kit

    st = getattr(state.State(), sid)
    results = kit.with_results(prerender.view(sid), st) if sid in prebuilt.RUN_SECTIONS else None
    out.write_text(json.dumps({"section": prerender.section(sid, st), "results": results,
                               "table": playback.table_text(sid)}))


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
