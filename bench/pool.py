"""A Run on the pool of numerics workers against the same Run in the one Panel worker: bench/out/pool.json

    .venv/bin/python bench/pool.py [--dist DIR] [--runs 3] [--sections tasks,paper,repeat,pathdrop] [--variant NAME=DIST]

Per run section at its default settings (embed=SECTION, a brand-new Chromium profile per page), the modes one
after another (bench/out/pool.json is written after every page, so a pass cut short keeps what it measured):
  one     the pool cannot start (every Worker after the Panel worker's throws): the Panel worker runs the Run
  pool    the pool as this browser sizes it (site/pool.js's poolSize; this box: 2 cores, so 2)
  pool=N  navigator told N + 1 cores and 8 GB, so a pool of N (the tasks and paper Runs: 2, 3; the others: 2)
Each page boots, then presses Run --runs times: the first Run's wall time (click to "Done.") includes starting the
pool's workers, the later ones reuse them; the medians of the later ones are the comparison. During the pooled
Runs the renderer's resident set is sampled (the workers live in the page's renderer); after the last Run the
pool is released (__wt.pool.release(), what a minute idle does) and the resident set read every 0.5 s until it is
back within 5 % of its level before the first Run, at most 30 s (Chromium hands freed pages back lazily: after a
paper Run, seconds to tens of seconds): `rss_after_release_bytes` is the last reading, `release_s` how long it took
(None: not back within 30 s).
Each Run's streaming cost in the Panel worker is timed in it (COST_PY): batches taken in, merges, and the
progress dicts it handled (bar, status line, redraws), with their share of the Run's wall time. Each warm pooled Run's
numerics workers time their batches (PART_PY): `busiest_worker_share` is the busiest one's compute over the Run's
wall time, near 1 when the Run is its arithmetic and nothing else. After the Runs, each worker's WebAssembly memory
is read (it only grows: its peak): `largest_numerics_wasm_heap_mb`, beside the Panel worker's.
The floor (unless --floor 0): before the pages, each section's whole Run as one part (pool.Part batches, what one
numerics worker computes) in Node-Pyodide with --dist's lock and wheels (tests/node/run_pyodide.mjs), --floor times:
per mode `floor_s` (the median) and `floor_over_mode` = floor_s over the mode's warm median. A pool of 1 cannot go
below the floor, so `floor_over_mode` of "one" is the best a pool of 1 can reach against one worker.
--variant NAME=DIST (repeatable) measures another build too, interleaved page by page: its modes are "NAME:one"...
A page that fails is recorded as failed with its error's first line (bench/failures.py) and left out of the summary;
the other pages are kept: `failed` lists each, and the exit code is then 1.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import failures  # bench/failures.py: a failed page is recorded, the others kept
import memory  # bench/memory.py: RssSampler
import run  # bench/run.py: cold_browser, renderer_pids, proc_status_bytes
from run import ROOT, harness
from step_levers import find_lock, in_pyodide  # the build's one lock; a run in Node-Pyodide

BUTTON = {"tasks": "Run the seeds", "paper": "Run again", "repeat": "Train tied + untied", "pathdrop": "Train both"}
# The Panel worker's streaming cost, timed inside it by wrapping, so any build is timed alike: a part's batch taken
# in (Gather.add), the results merged (Gather.results) and encoded (pool.encode), and each progress dict the Run's
# Job hands its section (on_step: the Runner's bar and status line, and the redraws of the slots).
COST_PY = """
import time
from weighttying import pool as _P
from weighttying.app import jobs as _J
COST = {k: [0, 0.0] for k in ("add", "merge", "encode", "step")}
def _timed(key, fn):
    def call(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            COST[key][0] += 1
            COST[key][1] += time.perf_counter() - t
    return call
_P.Gather.add = _timed("add", _P.Gather.add)
_P.Gather.results = _timed("merge", _P.Gather.results)
_P.encode = _timed("encode", _P.encode)
_start = _J.Job.start
_J.Job.start = lambda self, steps, on_step, *a, **k: _start(self, steps, _timed("step", on_step), *a, **k)
"""
# Each numerics worker's time inside its part's batches (pool.Part.batch: training and encoding its points), so a
# pooled Run's wall time splits into the busiest worker's compute and the rest (starting parts, relaying, gathering).
PART_PY = """
import time
from weighttying import pool as _P
if not hasattr(_P.Part, "_timed"):
    PART = [0, 0.0]
    _batch = _P.Part.batch
    def _b(self, *a, **k):
        t = time.perf_counter()
        try:
            return _batch(self, *a, **k)
        finally:
            PART[0] += 1
            PART[1] += time.perf_counter() - t
    _P.Part.batch, _P.Part._timed = _b, True
"""
PART_TAKE_PY = "import json; _out = json.dumps(PART); PART[:] = [0, 0.0]; _out"
TAKE_PY = "import json; _out = json.dumps(COST); [v.__setitem__(slice(None), [0, 0.0]) for v in COST.values()]; _out"
IS_PANEL_JS = "() => !!(self.__wtWorker && self.__wtWorker.py && self.__wtWorker.py.runPython(\"'panel' in __import__('sys').modules\"))"
NO_POOL = ("(() => { const W = window.Worker; let n = 0; window.Worker = function (...a) {"
           " if (n++ >= 1) throw new Error('the bench allows one worker'); return new W(...a); }; })();")


# One Run as one part, as a numerics worker runs it (pool.Part, a batch at a time), wall seconds per repeat.
FLOOR_PY = """
import json, time
from weighttying import pool, state
out = {}
for section in SECTIONS:
    st = getattr(state.State(), section)
    spec = json.dumps(pool.split(section, st, 1)[0])
    out[section] = []
    for _ in range(REPEATS):
        t, part = time.perf_counter(), pool.Part(spec)
        while not part.done:
            part.batch()
        out[section].append(time.perf_counter() - t)
json.dumps(out)
"""


def floor(dist: Path, sections: list[str], repeats: int) -> dict[str, list[float]]:
    """{section: [wall s of its Run as one part in Node-Pyodide]} with DIST's lock and wheels (FLOOR_PY)."""
    code = f"SECTIONS = {sections!r}\nREPEATS = {repeats}\n" + FLOOR_PY
    return in_pyodide(code, find_lock(dist), "numpy,weighttying", "the floor's Node-Pyodide run")


def cores(n: int) -> str:
    """navigator saying n cores and 8 GB: a pool of n - 1."""
    return (f"Object.defineProperty(navigator, 'hardwareConcurrency', {{get: () => {n}}});"
            "Object.defineProperty(navigator, 'deviceMemory', {get: () => 8});")


def modes(section: str, only: str = "") -> dict[str, str]:
    """{mode: init script}: "pool" is this box's own size (here 1), so pool=1 is not measured twice; only: these."""
    sizes = (2, 3) if section == "tasks" or section == "paper" else (2,)  # the two Runs of more than two parts
    every = {"one": NO_POOL, "pool": "", **{f"pool={n}": cores(n + 1) for n in sizes}}
    return {m: init for m, init in every.items() if not only or m in only.split(",")}


def panel_worker(page):
    """The page's Panel worker (the numerics workers have no Panel)."""
    return next(w for w in page.workers if w.evaluate(IS_PANEL_JS))


def numerics_workers(page) -> list:
    """The page's numerics workers now (booted: Python is up in them), timing their batches (PART_PY)."""
    out = [w for w in page.workers if not w.evaluate(IS_PANEL_JS) and w.evaluate("() => !!(self.__wtWorker && self.__wtWorker.py)")]
    for w in out:
        w.evaluate(f"() => self.__wtWorker.py.runPython({json.dumps(PART_PY)})")
    return out


def wasm_heaps(page) -> dict:
    """{"panel": bytes, "numerics": [bytes per numerics worker alive now]}: each worker's WebAssembly memory (its
    Python heap and NumPy's arrays). It only grows, so read after the Runs it is each worker's peak; the worker's
    JS heap and compiled code are not in it."""
    heap = "() => self.__wtWorker && self.__wtWorker.py ? self.__wtWorker.py._module.HEAP8.length : null"
    got = [(w.evaluate(IS_PANEL_JS), w.evaluate(heap)) for w in page.workers]
    return {"panel": next((b for is_panel, b in got if is_panel), None),
            "numerics": [b for is_panel, b in got if not is_panel and b]}


def compute_s(workers) -> list[float]:
    """Each worker's seconds inside its batches since the last call (a worker ended meanwhile: left out)."""
    out = []
    for w in workers:
        with contextlib.suppress(Exception):
            out.append(json.loads(w.evaluate(f"() => self.__wtWorker.py.runPython({json.dumps(PART_TAKE_PY)})"))[1])
    return out


def time_streaming(page) -> None:
    """Start timing the Panel worker's streaming (COST_PY)."""
    panel_worker(page).evaluate(f"() => self.__wtWorker.py.runPython({json.dumps(COST_PY)})")


def taken(page, wall_s: float) -> dict:
    """The streaming cost timed since the last call ({key: {calls, s}}), its share of wall_s, and updates per second."""
    got = json.loads(panel_worker(page).evaluate(f"() => self.__wtWorker.py.runPython({json.dumps(TAKE_PY)})"))
    cost = {k: {"calls": n, "s": t} for k, (n, t) in got.items()}
    return cost | {"share_of_run": sum(c["s"] for c in cost.values()) / wall_s, "updates_per_s": cost["step"]["calls"] / wall_s}


def rss_now(profile: str) -> int | None:
    return max((b for p in run.renderer_pids(profile) if (b := run.proc_status_bytes(p, "VmRSS")) is not None), default=None)


def one_run(page, live: str, section: str, timeout_s: float) -> float:
    """Press the section's Run; seconds from the click until its status says Done."""
    page.locator(live).get_by_role("button", name=BUTTON[section]).click()
    t0 = time.monotonic()
    page.locator(f"{live} .wt-status", has_text="Step").first.wait_for(timeout=timeout_s * 1000)
    page.locator(f"{live} .wt-status", has_text="Done.").first.wait_for(timeout=timeout_s * 1000)
    return time.monotonic() - t0


def builds(dist: Path, variants: list[str]) -> dict[str, Path]:
    """{name: built site}: "" is --dist, each --variant NAME=DIST one more, measured interleaved with it."""
    return {"": dist, **{n: Path(d) for n, _, d in (v.partition("=") for v in variants)}}


def label(build: str, mode: str) -> str:
    """A mode's key in a report: "NAME:mode" for a --variant's build, the mode alone for --dist's."""
    return f"{build}:{mode}" if build else mode


def served(stack: contextlib.ExitStack, sites: dict[str, Path], logs: Path) -> dict[str, str]:
    """{name: URL}: each built site served by its own serve.py for as long as `stack` lasts."""
    return {b: stack.enter_context(harness.serve(d.resolve(), log_dir=logs)).url for b, d in sites.items()}


def released_rss(profile: str, before: int | None, timeout_s: float = 30.0) -> tuple[int | None, float | None]:
    """The renderer's resident set once it is back within 5 % of `before` (polled every 0.5 s), and the seconds
    that took; after timeout_s, the last reading and None."""
    t0 = time.monotonic()
    while True:
        now = rss_now(profile)
        if before and now and now <= 1.05 * before:
            return now, time.monotonic() - t0
        if time.monotonic() - t0 > timeout_s:
            return now, None
        time.sleep(0.5)


def visit(pw, exe: str, url: str, section: str, init: str, runs: int, timeout_s: float) -> dict:
    """One page of one mode: its Runs' wall times, pool size, renderer memory during the Runs and after release."""
    with run.cold_browser(pw, exe, timeout_s) as (ctx, page, _reqs, _asked, profile):
        if init:
            ctx.add_init_script(init)
        page.goto(f"{url}?embed={section}", wait_until="domcontentloaded")
        harness.wait_booted(page, timeout_s)
        live = f"#live-{section}[data-live=true]"
        before = rss_now(profile)
        time_streaming(page)
        sampler = memory.RssSampler(profile)
        sampler.start()
        walls, costs, computes = [], [], []
        try:
            for _ in range(runs):
                workers = numerics_workers(page)  # none before the first pooled Run starts them
                walls.append(one_run(page, live, section, timeout_s))
                costs.append(taken(page, walls[-1]))
                computes.append(compute_s(workers) if workers else None)
        finally:
            sampler.stopped.set()
        heaps = wasm_heaps(page)
        pool = page.evaluate("({size: __wt.pool.size, started: __wt.pool.started, notes: __wt.pool.notes})")
        page.evaluate("__wt.pool.release()")
        after, release_s = released_rss(profile, before) if pool["started"] else (rss_now(profile), None)  # nothing to release
        return {"wall_s": walls, "streaming": costs, "worker_compute_s": computes, "pool_size": pool["size"], "workers_started": pool["started"], "notes": pool["notes"],
                "rss_before_run_bytes": before, "rss_peak_during_runs_bytes": max((b for _, b in sampler.samples), default=None),
                "rss_after_release_bytes": after, "release_s": release_s, "wasm_heap_bytes": heaps}


def busiest(vs: list[dict]) -> float | None:
    """Median over the warm pooled Runs of the busiest numerics worker's compute over the Run's wall time (None:
    no pool): near 1, the Run is its slowest part's arithmetic and nothing else in it is left to win."""
    shares = [max(c) / w for v in vs for w, c in list(zip(v["wall_s"], v["worker_compute_s"]))[1:] if c]
    return statistics.median(shares) if shares else None


def summarise(visits: dict, floors: dict | None = None) -> dict:
    """Per section and mode: median warm wall time (every Run but the first), the first Run's, pool size,
    memory, the warm Runs' streaming share and updates per second; and each pooled mode's warm median over one
    worker's (of the same build: "NAME:pool" over "NAME:one")."""
    out = {}
    for section, by_mode in visits.items():
        rows = {}
        for mode, every in by_mode.items():
            vs = [v for v in every if "failed" not in v]  # a failed page: in the report's `failed`, not here
            if not vs:
                continue
            warm = [w for v in vs for w in v["wall_s"][1:]] or [w for v in vs for w in v["wall_s"]]
            costs = [c for v in vs for c in v["streaming"][1:]] or [c for v in vs for c in v["streaming"]]
            def mb(k):
                return statistics.median(v[k] for v in vs if v[k]) / 1e6 if any(v[k] for v in vs) else None
            rows[mode] = {"warm_median_s": statistics.median(warm), "first_run_s": statistics.median(v["wall_s"][0] for v in vs),
                          "streaming_share": statistics.median(c["share_of_run"] for c in costs),
                          "updates_per_s": statistics.median(c["updates_per_s"] for c in costs),
                          "busiest_worker_share": busiest(vs),
                          "pool_size": vs[-1]["pool_size"], "workers_started": vs[-1]["workers_started"],
                          "pages": len(vs), "failed": len(every) - len(vs),
                          "rss_before_run_mb": mb("rss_before_run_bytes"), "rss_peak_during_runs_mb": mb("rss_peak_during_runs_bytes"),
                          "rss_after_release_mb": mb("rss_after_release_bytes"),
                          "release_s": [v.get("release_s") for v in vs],
                          "largest_numerics_wasm_heap_mb": max((b / 1e6 for v in vs for b in v["wasm_heap_bytes"]["numerics"]), default=None),
                          "panel_wasm_heap_mb": statistics.median(v["wasm_heap_bytes"]["panel"] / 1e6 for v in vs)}
        f = (floors or {}).get(section)
        floor_s = statistics.median(f) if f else None
        for mode, r in rows.items():
            one = rows.get(label(mode.rpartition(":")[0], "one"), {}).get("warm_median_s")
            r["over_one_worker"] = r["warm_median_s"] / one if one else None
            r["floor_s"], r["floor_over_mode"] = floor_s, floor_s / r["warm_median_s"] if floor_s else None
        out[section] = rows
    return out


def failed(visits: dict) -> list[str]:
    """'SECTION MODE page N: its error' for each page that failed."""
    return [line for section, by_mode in visits.items() for mode, vs in by_mode.items()
            for line in failures.failed(vs, f"{section} {mode} page")]


def write(out: Path, visits: dict, load: list, floors: dict) -> None:
    report = {"summary": summarise(visits, floors), "visits": visits, "floors": floors, "failed": failed(visits),
              "cpus": os.cpu_count(),
              "loadavg": {"min_1m": min(x[0] for x in load), "max_1m": max(x[0] for x in load), "samples": load}}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--runs", type=int, default=3, help="Runs per page (the first starts the pool)")
    ap.add_argument("--sections", default="tasks,paper,repeat,pathdrop")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "pool.json")
    ap.add_argument("--modes", default="", help="only these modes (comma-separated: one,pool,pool=2,...)")
    ap.add_argument("--floor", type=int, default=3, help="repeats of each Run alone in Node-Pyodide (0: none)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIST", help="another build, interleaved")
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    sections = [s for s in a.sections.split(",") if s]
    sites = builds(a.dist, a.variant)
    visits: dict = {s: {label(b, m): [] for m in modes(s, a.modes) for b in sites} for s in sections}
    floors = floor(a.dist, sections, a.floor) if a.floor else {}
    for section, f in floors.items():
        print(f"[pool] {section} floor (one part in Node-Pyodide): {', '.join(f'{x:.2f}' for x in f)} s", file=sys.stderr)
    load = [os.getloadavg()]
    exe = harness.chromium_path()
    logs = Path(tempfile.mkdtemp(prefix="wt-pool-bench-"))  # the server's log, not in the working tree
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        urls = served(stack, sites, logs)
        for section in sections:
            for mode, init in modes(section, a.modes).items():
                for b, url in urls.items():  # the builds interleaved: a change of the machine's load hits each alike
                    v = failures.tried(f"{section} {label(b, mode)} page", visit, pw, exe, url, section, init, a.runs,
                                       a.timeout)
                    visits[section][label(b, mode)].append(v)
                    load.append(os.getloadavg())
                    write(a.out, visits, load, floors)  # after every page: a bench cut short keeps what it measured
                    if "failed" in v:
                        continue
                    shares = ", ".join(f"{100 * c['share_of_run']:.1f}" for c in v["streaming"])
                    print(f"[pool] {section} {label(b, mode)}: size {v['pool_size']}, runs {', '.join(f'{w:.2f}' for w in v['wall_s'])} s, "
                          f"streaming {shares} %, "
                          f"peak {(v['rss_peak_during_runs_bytes'] or 0) / 1e6:.0f} MB, after release "
                          f"{(v['rss_after_release_bytes'] or 0) / 1e6:.0f} MB, numerics wasm heaps "
                          f"{[round(b / 1e6) for b in v['wasm_heap_bytes']['numerics']]} MB, load {load[-1][0]:.1f}", file=sys.stderr)
    print(json.dumps(summarise(visits, floors), indent=1))
    print(f"[pool] wrote {a.out}", file=sys.stderr)
    return 1 if failed(visits) else 0


if __name__ == "__main__":
    sys.exit(main())
