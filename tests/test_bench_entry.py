"""Each bench entry point's set-up at its smallest size, so a break in it fails the suite and not the next person who
measures (bench/peer.py's own function `compress` shadowed the module it called, and every fresh peer
build died; one WebDriver hiccup in WebKit lost bench/engine_times.py's whole JSON). Per script: its main() with a small
command, the browser, the server and each long step replaced by a stand-in of a line or two, and one run failing:
its JSON must be written, the failed run named with its error's first line, the other runs kept, the exit code 1.
The peer's build runs for real on stand-in inputs (pip, `panel convert` and the Pyodide runtime are the stand-ins).
Every command bench/README.md documents must parse with its script's own arguments. Nothing is launched or
measured. Each case runs in a child interpreter, as `python bench/X.py` would, so its stand-ins replace nothing in
this process."""
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from weighttying import colours

ROOT = Path(__file__).resolve().parents[1]
ERROR = "RuntimeError: Could not parse script result"  # the first line of what the stand-ins raise

# Before each case: bench/ first on sys.path (what `python bench/X.py` does), no browser, no server.
PRELUDE = r'''
import contextlib, json, sys, types
from importlib import import_module
from pathlib import Path

ROOT, TMP = Path.cwd(), Path(sys.argv[1])
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(1, str(ROOT / "tests"))
import harness

stand_in = types.SimpleNamespace
SERVER = stand_in(url="http://127.0.0.1:9/", origin="http://127.0.0.1:9")
BROWSER = stand_in(chromium=stand_in(launch=lambda **options: stand_in(close=lambda: None)))
harness.serve = lambda *args, **kwargs: contextlib.nullcontext(SERVER)
harness.chromium_path = lambda: "/usr/bin/chromium"
# what `from playwright.sync_api import sync_playwright` finds (the real module takes most of a second to import)
sys.modules["playwright.sync_api"] = stand_in(sync_playwright=lambda: contextlib.nullcontext(BROWSER))
DIST = TMP / "dist"
(DIST / "pyodide").mkdir(parents=True)
(DIST / "pyodide" / "pyodide-lock.json").write_text("{}")
(DIST / "weighttying.html").write_text("<!doctype html><title>the classroom file</title>")


def flaky(record, fails=(1,)):
    """A stand-in run: the calls numbered in FAILS raise as WebKit's WebDriver once did; the others return RECORD."""
    calls = []

    def one_run(*args, **kwargs):
        calls.append(args)
        if len(calls) in fails:
            raise RuntimeError("Could not parse script result\n  (the engine's own log, many lines)")
        return json.loads(json.dumps(record))
    return one_run


def finish(code, out):
    print(json.dumps({"exit": code, "json": json.loads(Path(out).read_text())}))
'''

RUN = r'''
import run
compile(run.worker_numerics_code(), "bench/numerics.py", "exec")  # what the worker is sent
page = {"readable_ms": 1.0, "first_response_ms": 1.0, "first_live_ms": 2.0, "ready_ms": 2.0, "interactive_ms": 2.0,
        "bytes": 1, "requests": 1, "boot_steps_ms": {"runtime": 1.0}, "off_origin": [], "repeat": {"interactive_ms": 3.0}}
run.one_run = flaky(page)  # main's first run fails; the peer's two and main's second are kept
run.classroom_run = flaky({"readable_ms": 1.0, "fcp_ms": 1.0, "first_response_ms": 2.0, "all_live_ms": 2.0,
                           "boot_steps_ms": {}, "off_file": []}, fails=(2,))
run.peer_site.build_peer = lambda offline: DIST
import engine_times
engine_times.engines.missing = lambda name: None
engine_times.engines.launch = lambda name, proxy: stand_in(version="0", quit=lambda: None)
engine_times.one = flaky({"status": "ready", "first_live_ms": 5.0, "where_ms": {}, "off_origin": []}, fails=(2,))
engine_times.early = lambda engine, url, timeout_s: {"early_live_ms": 4.0}
out = TMP / "run.json"
finish(run.main(["--runs", "2", "--moves", "0", "--no-numerics", "--dist", str(DIST), "--engines", "chromium",
                 "--engine-runs", "1", "--out", str(out)]), out)
'''

ENGINE_TIMES = r'''
import engine_times
engine_times.engines.missing = lambda name: None


def launch(name, proxy):
    if name == "firefox":
        raise RuntimeError("Could not parse script result")
    return stand_in(version=name, quit=lambda: None)


engine_times.engines.launch = launch
# per run: chromium served, chromium file, webkit served, webkit file: WebKit's second served run fails
engine_times.one = flaky({"status": "ready", "first_live_ms": 5.0, "where_ms": {"fcp": 1.0}, "off_origin": []}, fails=(7,))
engine_times.early = flaky({"early_live_ms": 4.0, "early_over_panel": 0.5}, fails=(3,))
out = TMP / "engine_times.json"
finish(engine_times.main(["--dist", str(DIST), "--runs", "2", "--engines", "chromium,firefox,webkit", "--out", str(out)]), out)
'''

POOL = r'''
import pool
pool.visit = flaky({"wall_s": [2.0], "streaming": [{"share_of_run": 0.1, "updates_per_s": 3.0}], "worker_compute_s": [None],
                    "pool_size": 1, "workers_started": 1, "notes": [], "rss_before_run_bytes": 1, "release_s": None,
                    "rss_peak_during_runs_bytes": 2, "rss_after_release_bytes": 1,
                    "wasm_heap_bytes": {"panel": 1e6, "numerics": [1e6]}})
out = TMP / "pool.json"
finish(pool.main(["--dist", str(DIST), "--variant", f"b={DIST}", "--runs", "1", "--sections", "repeat", "--modes", "one",
                  "--floor", "0", "--out", str(out)]), out)
'''

STREAM = r'''
import stream
stream.stream_page = flaky({"run_s": 2.0, "pool_size": 1, "patches_per_s": 1.0, "page_ms_per_update": 1.0,
                            "page_share_of_run": 0.1, "panel_worker_share": 0.1, "repaint_p95_ms": 50.0})
stream.early_page = flaky({"build": "", "early_live_ms": 1.0, "panel_live_ms": 2.0, "early_over_panel": 0.5}, fails=())
stream.time = stand_in(sleep=lambda s: None)  # its pause between rounds
out = TMP / "stream.json"
finish(stream.main(["--dist", str(DIST), "--pages", "1", "--moves", "1", "--out", str(out)]), out)
'''

MEMORY = r'''
import memory
memory.one_visit = flaky({"renderer_peak_rss_bytes": 2e8, "first_live_ms": 1.0})
out = TMP / "memory.json"
finish(memory.main(["--runs", "1", "--dist", str(DIST), "--states", "blank,click", "--out", str(out)]), out)
'''

OWNTEXT = r'''
import owntext
owntext.visit = flaky({"runs": [{"first_points_ms": 1.0, "result_ms": 2.0}], "size": 1, "started": 1})
owntext.cpython = lambda text: {"first_points_ms": 0.5, "result_ms": len(text) / 250}  # a 1 kB text: 4.0
out = TMP / "owntext.json"
finish(owntext.main(["--runs", "1", "--kb", "1", "--dist", str(DIST), "--out", str(out)]), out)
'''

CODELAB = r'''
import codelab as lab
lab.visit = flaky({"fcp_ms": 1.0, "live_ms": 2.0, "first_result_ms": 3.0, "error_ms": [1.0], "pool_started": 1,
                   "runs": [{"click_ms": 2.0, "result_ms": 1.0, "done_ms": 5.0}, {"click_ms": 9.0, "result_ms": 0.5, "done_ms": 4.0}]})
lab.cpython = lambda presses: {"numeric_ms": 1.0, "checked_ms": [0.25] * presses, "median_checked_ms": 0.25}
out = TMP / "codelab.json"
finish(lab.main(["--runs", "2", "--presses", "2", "--dist", str(DIST), "--out", str(out)]), out)
'''

STEP_LEVERS = r'''
import step_levers


def in_pyodide(code, lock, packages, what="the Pyodide run"):
    assert lock == DIST / "pyodide" / "pyodide-lock.json" and "SOURCES = " in code
    sys.exit(f"{what} failed (exit 1):\nNode's last words")


step_levers.in_pyodide = in_pyodide
step_levers.in_cpython = lambda code, tmp: {"sections": {}}
out = TMP / "step_levers.json"
finish(step_levers.main(["--dist", str(DIST), "--against", "HEAD", "--repeats", "1", "--steps", "1", "--out", str(out)]), out)
'''

REPORT = r'''
import report_bench
report_bench.baseline = lambda: None
report_bench.report_in_child = flaky({"wall": 1.5, "cpu": 1.0, "rows": 3})
out = TMP / "report.json"
finish(report_bench.main(["--runs", "2", "--out", str(out)]), out)
'''

# The peer build on inputs of a few bytes: the converted app a page over 4 kB (so it gets both twins) and a worker
# script with the three lines peer.patch_worker changes; every wheel a stub. Panel is imported only for its version.
PEER = r'''
import io
from contextlib import redirect_stdout

sys.modules["panel"] = stand_in(__version__="0")  # inputs_key's one use of Panel: importing it takes seconds
import peer
wheels = TMP / "wheels"
wheels.mkdir()


def stubs(names):
    return {n: peer.stub_wheel(*peer.base.split_filename(n)[:2], "", wheels) for n in names}


def convert(work, wheel):
    out = work / "converted"
    out.mkdir()
    page = '<script src="https://cdn.jsdelivr.net/pyodide/v0.27.7/full/pyodide.js"></script>\n'
    (out / "peer_app.html").write_text(page + "<p>prerendered</p>\n" * 400)
    (out / "peer_app.js").write_text('importScripts("https://cdn.jsdelivr.net/pyodide/v0.27.7/full/pyodide.js");\n'
                                     "  self.pyodide = await loadPyodide();\n      import micropip\n")
    return out


peer.fetch.pypi_files = lambda pins, offline: stubs(f"{p}-1.0-py3-none-any.whl" for p in peer.INDEX_FROM_PINS)
peer.peer_pypi = lambda pins, offline: stubs(pins["index"])
peer.convert = convert
peer.runtime = lambda site, pins, pypi, peer_wheels: (site / "pyodide").mkdir()
peer.cdn_wheels = lambda pypi: {}
peer.static_files = lambda site, pypi, html, cdn: None
printed = io.StringIO()
with redirect_stdout(printed):
    code = peer.main(["--offline"])
site = Path(printed.getvalue().strip())
print(json.dumps({"exit": code, "site": str(site.relative_to(TMP)), "files": sorted(
    str(p.relative_to(site)) for p in site.rglob("*") if p.is_file()), "index": (site / "index.html").read_text()[:200],
    "worker": (site / "peer_app.js").read_text(), "css": (site / "style.css").read_text()}))
'''

# README's commands, parsed by each script's own parser (stopped right after parsing: nothing runs).
PARSES = r'''
import argparse


class Parsed(Exception):
    pass


parse = argparse.ArgumentParser.parse_args


def parse_only(self, args=None, namespace=None):
    raise Parsed(parse(self, args, namespace))


argparse.ArgumentParser.parse_args = parse_only
wrong = []
for script, argv in json.loads(sys.argv[2]):
    try:
        import_module(Path(script).stem).main(argv)
        wrong.append(f"{script} {argv}: main() ran past its argument parsing")
    except Parsed:
        pass
    except SystemExit as e:  # argparse's error, its message on stderr
        wrong.append(f"{script} {argv}: exit {e.code}")
print(json.dumps(wrong))
'''


def child(script: str, tmp_path: Path, *args: str) -> dict:
    """SCRIPT after PRELUDE in a fresh interpreter (its caches and temp folders in tmp_path): its last line, as JSON."""
    env = {**os.environ, "WT_CACHE": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", PRELUDE + script, str(tmp_path), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip(), proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_run_keeps_every_run_but_the_failed_one(tmp_path):
    got = child(RUN, tmp_path)
    report = got["json"]
    assert got["exit"] == 1
    assert report["runs"]["main"][0] == {"failed": ERROR} and report["runs"]["main"][1]["readable_ms"] == 1.0
    assert (report["summary"]["main"]["runs"], report["summary"]["main"]["failed"]) == (1, 1)
    assert report["summary"]["peer"]["runs"] == 2 and report["peer"]["ratio"] == 1.0
    assert (report["classroom"]["runs"], report["classroom"]["failed"]) == (1, 1)
    assert report["engines"]["chromium"]["served"]["first_live_ms"] == 5.0
    assert report["failed"] == [f"main run 1: {ERROR}", f"classroom run 2: {ERROR}",
                                f"engines: chromium file run 1: {ERROR}"]
    assert json.loads((tmp_path / "run.runs.json").read_text())["runs"]["peer"][0]["interactive_ms"] == 2.0


def test_engine_times_writes_its_json_when_a_run_or_a_launch_fails(tmp_path):
    got = child(ENGINE_TIMES, tmp_path)
    report = got["json"]
    assert got["exit"] == 1
    assert report["firefox"] == {"failed": ERROR}
    webkit = report["webkit"]["served"]
    assert (webkit["runs"], webkit["failed"], webkit["early_failed"], webkit["ready"]) == (2, 1, 1, 1)
    assert (webkit["first_live_ms"], webkit["early_live_ms"]) == (5.0, 4.0)
    assert report["runs_detail"]["webkit"]["served"][1] == {"failed": ERROR, "early_live_ms": 4.0, "early_over_panel": 0.5}
    assert report["runs_detail"]["webkit"]["served"][0]["early_failed"] == ERROR  # its off-grid page, its other times kept
    assert report["ratios_over_chromium"]["webkit"]["served"]["first_live_ms"] == 1.0
    assert report["failed"] == [f"launching firefox: {ERROR}", f"webkit served run 2: {ERROR}",
                                f"webkit served off-grid page, run 1: {ERROR}"]


def test_pool_keeps_the_pages_after_a_failed_one(tmp_path):
    got = child(POOL, tmp_path)
    assert got["exit"] == 1
    assert got["json"]["visits"]["repeat"]["one"] == [{"failed": ERROR}]
    assert got["json"]["summary"]["repeat"]["b:one"]["warm_median_s"] == 2.0 and "one" not in got["json"]["summary"]["repeat"]
    assert got["json"]["failed"] == [f"repeat one page 1: {ERROR}"]


def test_stream_keeps_the_pages_after_a_failed_one(tmp_path):
    got = child(STREAM, tmp_path)
    assert got["exit"] == 1
    assert got["json"]["summary"]["pool"]["run_s"] == 2.0 and got["json"]["summary"]["one"]["run_s"] is None
    assert got["json"]["summary"]["early"]["early_over_panel"] == 0.5
    assert got["json"]["failed"] == [f"one page 1: {ERROR}"]


def test_memory_keeps_the_states_after_a_failed_one(tmp_path):
    got = child(MEMORY, tmp_path)
    summary = got["json"]["summary"]
    assert got["exit"] == 1
    assert (summary["blank"]["runs"], summary["blank"]["failed"]) == (0, 1)
    assert summary["click"]["median"]["renderer_peak_rss_bytes"] == 2e8
    assert got["json"]["failed"] == [f"blank run 1: {ERROR}"]


def test_owntext_keeps_the_modes_after_a_failed_one(tmp_path):
    got = child(OWNTEXT, tmp_path)
    report = got["json"]
    assert got["exit"] == 1
    assert set(report["summary"]) == {"pool", "pool=2"} and report["pool2_over_cpython"] == 0.5
    assert report["text_chars"] == 1000
    assert report["failed"] == [f"one page: {ERROR}"]


def test_codelab_keeps_the_pages_after_a_failed_one(tmp_path):
    got = child(CODELAB, tmp_path)
    report = got["json"]
    assert got["exit"] == 1
    assert report["pages"][0] == {"failed": ERROR} and report["pages"][1]["first_result_ms"] == 3.0
    summary = report["summary"]
    assert (summary["pages"], summary["failed"], summary["warm_presses"]) == (1, 1, 1)
    assert (summary["warm_result_ms"], summary["first_press_result_ms"]) == (0.5, 1.0)
    assert report["warm_over_cpython"] == 2.0 and report["met"] == {"warm_result_ms": True, "first_result_ms": True}
    assert report["first"] == "before"
    assert report["failed"] == [f"page 1: {ERROR}"]


def test_step_levers_keeps_cpython_when_pyodide_fails(tmp_path):
    got = child(STEP_LEVERS, tmp_path)
    assert got["exit"] == 1
    assert got["json"]["cpython"] == {"sections": {}} and got["json"]["against"] == "HEAD"
    assert got["json"]["failed"] == ["pyodide: SystemExit: the Pyodide run failed (exit 1):"]


def test_report_bench_keeps_the_runs_after_a_failed_one(tmp_path):
    got = child(REPORT, tmp_path)
    assert got["exit"] == 1
    assert got["json"]["report_s"] == 1.5 and len(got["json"]["report_all"]) == 2
    assert got["json"]["failed"] == [f"our report, run 1: {ERROR}"]


def test_the_peer_builds_from_a_cold_cache(tmp_path):
    """The break this file was written for: every fresh peer build stopped in its last step (compressing the site)."""
    got = child(PEER, tmp_path)
    assert got["exit"] == 0 and got["site"].startswith("cache/peer/site-")
    assert {"index.html", "index.html.br", "index.html.gz", "peer_app.js", "serve.py", "style.css"} <= set(got["files"])
    assert {"simple/narwhals/index.json", "simple/param/index.json"} <= set(got["files"])
    assert got["index"].startswith('<script src="pyodide/pyodide.js">')
    assert got["worker"].startswith("const LOCAL = ") and "micropip.set_index_urls" in got["worker"]
    # the page's stylesheet as the build writes it: its light colours in their slot, as the measured page has them
    assert colours.root_css() in got["css"] and "/*build:colours*/" not in got["css"]


def documented() -> list[tuple[str, list[str]]]:
    """(script, argv) of every `.venv/bin/python bench/X.py ...` command in bench/README.md, on a line of its own or
    in backticks (which may wrap): its optional flags given ([--runs N] -> --runs 1), comments and output arrows cut,
    a "..." after a value (more of the same) dropped."""
    text = (ROOT / "bench" / "README.md").read_text()
    found = re.findall(r"`\.venv/bin/python (bench/\w+\.py)([^`]*)`", text)
    found += re.findall(r"^ *\.venv/bin/python (bench/\w+\.py)(.*)$", text, re.MULTILINE)
    out = []
    for script, rest in found:
        words = shlex.split(re.split(r"#|->", rest)[0].replace("[", " ").replace("]", " "))
        argv = ["1" if w == "N" else w for i, w in enumerate(words) if not (w == "..." and not words[i - 1].startswith("--"))]
        out.append((script, argv))
    return out


def test_every_documented_command_parses(tmp_path):
    commands = documented()
    assert {s for s, _ in commands} >= {"bench/run.py", "bench/engine_times.py", "bench/pool.py", "bench/peer.py"}
    assert child(PARSES, tmp_path, json.dumps(commands)) == []

