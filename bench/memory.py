"""Where the renderer's memory goes, and what a repeat visit recomputes: bench/out/memory.json

    .venv/bin/python bench/memory.py [--runs 3] [--dist DIR] [--variant NAME=DIST ...]

States, each visit in a brand-new Chromium profile (bench/run.py's cold_browser), all interleaved run by run
(run 1 of every state, then run 2, ...) so machine load hits them alike:
  blank      about:blank: the renderer Chromium starts for any page
  click      main's page with ?live=click: the page and its playback tables, no worker
  main       main's page until every section is live, then a repeat visit in the same profile (warm caches)
  no_tierup  main under --js-flags=--no-wasm-tier-up: Liftoff code only, so main - no_tierup ~ TurboFan's code
  NAME       each --variant NAME=DIST, measured as main is (a lever built into DIST); ratios against main
Per visit: the renderer's peak resident set (VmHWM, as bench/run.py reports it), its resident set sampled every
100 ms (at the first section live, at every section live), what is resident at the end by kind (/proc/PID/smaps:
file-backed = Chromium's binary and libraries, anon_exec = JIT code, JS and wasm, shared = shared memory,
anon = heaps: V8's, Blink's, PartitionAlloc, the wasm memory), the page's JS heap (CDP) and the worker's wasm
heap and the bytes of the files in Pyodide's file system (the bench hook: DIST built with build.py --bench),
the profile's code caches after the cold visit, and the worker's boot steps of both visits.
A visit that fails is recorded as failed with its error's first line (bench/failures.py) and left out of the
medians; the others are kept: `failed` lists each, and the exit code is then 1.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import failures  # bench/failures.py: a failed visit is recorded, the others kept
import run  # bench/run.py: cold_browser, renderer_pids, build_variant, has_hook, BENCH_HOOK_JS
from run import ROOT, harness, med

NO_TIERUP = ("--js-flags=--no-wasm-tier-up",)
QUIET_S = 6.0  # no section went live for this long and none is being built: a variant that builds fewer is done
STEPS = ("runtime", "runtime_checked", "packages", "import", "app", "embed")


class RssSampler(threading.Thread):
    """The largest renderer's VmRSS every 0.1 s while a visit runs: [(seconds since start, bytes)]."""

    def __init__(self, profile: str):
        super().__init__(daemon=True)
        self.profile, self.samples, self.stopped = profile, [], threading.Event()
        self.t0 = time.monotonic()

    def run(self):
        pids, found_at = [], 0.0
        while not self.stopped.wait(0.1):
            now = time.monotonic()
            if now - found_at > 0.5:  # a navigation may move the page to a new renderer
                pids, found_at = run.renderer_pids(self.profile), now
            rss = [b for p in pids if (b := run.proc_status_bytes(p, "VmRSS")) is not None]
            if rss:
                self.samples.append((now - self.t0, max(rss)))

    def at(self, seconds: float | None) -> int | None:
        """The sample nearest SECONDS after start (the page clock starts at navigation, ~ when sampling did)."""
        if seconds is None or not self.samples:
            return None
        return min(self.samples, key=lambda s: abs(s[0] - seconds))[1]


def resident_by_kind(profile: str) -> dict[str, int]:
    """Resident bytes of the largest renderer by mapping kind (see the module's docstring)."""
    pids = run.renderer_pids(profile)
    pid = max(pids, key=lambda p: run.proc_status_bytes(p, "VmRSS") or 0, default=None)
    kinds = {"file": 0, "anon_exec": 0, "shared": 0, "anon": 0}
    if pid is None:
        return kinds
    kind = None
    with contextlib.suppress(OSError), open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):  # a mapping's header line
                perms, path = head[1], head[5] if len(head) > 5 else ""
                kind = ("shared" if "s" in perms or path.startswith(("/dev/shm", "/memfd:", "memfd:"))
                        else "file" if path.startswith("/") else "anon_exec" if "x" in perms else "anon")
            elif head[0] == "Rss:" and kind:
                kinds[kind] += int(head[1]) * 1024
    return kinds


def code_cache_bytes(profile: str) -> dict[str, int]:
    """Bytes in the profile's code caches (V8's compiled JS, compiled wasm modules) so far."""
    root = Path(profile) / "Default" / "Code Cache"
    return {kind: sum(f.stat().st_size for f in (root / kind).rglob("*") if f.is_file()) if (root / kind).is_dir() else 0
            for kind in ("js", "wasm")}


# Run in the worker (bench hook): the bytes of the files Pyodide's file system holds, which MEMFS keeps in the
# worker's JS heap (not in the wasm heap): the stdlib zip, the installed packages, their compiled modules.
MEMFS_CODE = """
import os, json
total = 0
for top in ("/lib", "/home"):
    for d, _, fs in os.walk(top):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in fs)
json.dumps(total)
"""


def live_visit(page, url: str, timeout_s: float, sampler: RssSampler) -> dict:
    """Load URL and wait for every section live, or (a variant that builds fewer) QUIET_S without a new one."""
    sampler.t0, sampler.samples = time.monotonic(), []
    page.goto(url, wait_until="commit")
    page.wait_for_function("() => window.__wt && window.__wt.timings && window.__wt.timings.live", timeout=timeout_s * 1000)
    deadline, last_change, seen = time.monotonic() + timeout_s, time.monotonic(), -1
    while time.monotonic() < deadline:
        w = page.evaluate("() => ({status: __wt.status, error: __wt.error, live: Object.keys(__wt.timings.live).length,"
                          " building: !!(__wt.lab && __wt.lab.schedule && __wt.lab.schedule.building)})")
        if w["error"] and w["status"] != "booting":
            raise AssertionError(f"the page did not boot: {w}")
        if w["live"] != seen or w["building"]:
            seen, last_change = w["live"], time.monotonic()
        if w["status"] == "ready" or (seen > 0 and time.monotonic() - last_change > QUIET_S):
            break
        time.sleep(0.25)
    else:
        raise AssertionError(f"no section live within {timeout_s} s")
    t = page.evaluate("() => __wt.timings")
    live = [ms for ms in t["live"].values() if ms is not None]
    first, last = min(live), max(live)
    # The worker reports each step's duration; they run back to back up to the first section asked for, so
    # counting back from that stamp places each step on the page clock, beside the resident-set samples.
    ends, at = {}, min(v for k, v in t.items() if k.startswith("asked:"))
    for step in ("app", "import", "packages", "runtime"):
        ends[step], at = at, at - t.get(step, 0)
    peak_s, peak = max(sampler.samples, key=lambda s: s[1])
    return {"first_live_ms": first, "last_live_ms": last, "sections_live": len(live),
            "all_live": t.get("interactive") is not None,
            "rss_at_first_live_bytes": sampler.at(first / 1000), "rss_at_last_live_bytes": sampler.at(last / 1000),
            "rss_sampled_peak_bytes": peak, "rss_sampled_peak_at_ms": peak_s * 1000,
            "step_ends_ms": ends, "rss_series_mb": [[round(s * 1000), round(b / 1e6)] for s, b in sampler.samples[::5]],
            "boot_steps_ms": {k: v for k, v in t.items() if isinstance(v, (int, float))}}


def one_visit(pw, exe: str, state: str, url: str, timeout_s: float) -> dict:
    """One state in a fresh Chromium: its memory at the end, and for a live page its times and a repeat visit."""
    args = NO_TIERUP if state == "no_tierup" else ()
    with run.cold_browser(pw, exe, timeout_s, args) as (ctx, page, _reqs, _asked, profile):
        sampler = RssSampler(profile)
        sampler.start()
        try:
            r = {}
            if state == "blank":
                time.sleep(2.0)  # the initial about:blank, settled
            elif state == "click":
                page.goto(url + "?live=click", wait_until="load")
                page.wait_for_function("() => window.__bench && window.__bench.readable !== null")
                time.sleep(3.0)  # the tables are parsed when the page is idle after load (site/player.js)
            else:
                r = live_visit(page, url, timeout_s, sampler)
            time.sleep(1.0)
            if state != "blank":
                cdp = ctx.new_cdp_session(page)
                cdp.send("HeapProfiler.collectGarbage")  # live objects only: what the page keeps, not garbage
                cdp.send("Performance.enable")
                metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                r["page_js_heap_used_bytes"] = metrics.get("JSHeapUsedSize")
                r["page_js_heap_bytes"] = metrics.get("JSHeapTotalSize")
            if r.get("sections_live") and run.has_hook(url):
                got = page.evaluate(run.BENCH_HOOK_JS, MEMFS_CODE)
                r["worker_wasm_heap_bytes"], r["worker_files_bytes"] = got.get("wasm_bytes"), json.loads(got["result"])
            r["code_cache_after_cold_bytes"] = code_cache_bytes(profile)
            r["renderer_peak_rss_bytes"] = run.renderer_peak_bytes(profile)
            r["renderer_end_rss_bytes"] = sampler.samples[-1][1] if sampler.samples else None
            r["resident_by_kind_bytes"] = resident_by_kind(profile)
            if r.get("sections_live"):  # the same page again, same profile: HTTP cache, code caches warm
                r["repeat"] = live_visit(page, url, timeout_s, sampler)
                r["repeat"]["renderer_peak_rss_bytes"] = run.renderer_peak_bytes(profile)
            return r
        finally:
            sampler.stopped.set()


def flat(r: dict, prefix: str = "") -> dict[str, float]:
    """{dotted.key: number} of one visit's record (nested dicts flattened), for medians."""
    out = {}
    for k, v in r.items():
        if isinstance(v, dict):
            out |= flat(v, f"{prefix}{k}.")
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[prefix + k] = v
    return out


def summarise(runs: dict[str, list[dict]]) -> dict:
    """Per state: the median and [min, max] of every number over its runs (a failed one left out), and its ratio to
    main's median."""
    out = {}
    for state, every in runs.items():
        rs = [r for r in every if "failed" not in r]
        cols: dict[str, list] = {}
        for r in rs:
            for k, v in flat(r).items():
                cols.setdefault(k, []).append(v)
        out[state] = {"runs": len(rs), "failed": len(every) - len(rs), "median": {k: med(v) for k, v in sorted(cols.items())},
                      "spread": {k: [min(v), max(v)] for k, v in sorted(cols.items())}}
    main = out.get("main", {}).get("median", {})
    for state, s in out.items():
        s["over_main"] = {k: v / main[k] for k, v in s["median"].items() if main.get(k)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dist", type=Path, help="main's site (default: build one with build.py --bench)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIST", help="a lever's build to measure too")
    ap.add_argument("--states", default="blank,click,main,no_tierup", help="which of the fixed states to measure")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "memory.json")
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="wt-memory-"))
    sites = {"main": a.dist.resolve() if a.dist else run.build_variant("main", "", tmp / "main")}
    sites |= {n: Path(d).resolve() for n, d in (v.partition("=")[::2] for v in a.variant)}
    states = [s for s in a.states.split(",") if s] + [n for n in sites if n != "main"]
    exe = harness.chromium_path()
    runs: dict[str, list] = {s: [] for s in states}
    load = [os.getloadavg()]
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        urls = {n: stack.enter_context(harness.serve(d, log_dir=tmp)).url for n, d in sites.items()}
        for i in range(a.runs):
            for state in states:
                r = failures.tried(f"{state} run {i + 1}/{a.runs}", one_visit, pw, exe, state,
                                   urls.get(state, urls["main"]), a.timeout)
                runs[state].append(r)
                if "failed" in r:
                    continue
                print(f"[memory] {state} run {i + 1}/{a.runs}: peak {r['renderer_peak_rss_bytes'] / 1e6:.0f} MB, "
                      f"first live {r.get('first_live_ms') or 0:.0f} ms, repeat first live "
                      f"{(r.get('repeat') or {}).get('first_live_ms') or 0:.0f} ms, load {os.getloadavg()[0]:.1f}",
                      file=sys.stderr)
            load.append(os.getloadavg())
    report = {"summary": summarise(runs), "sites": {n: str(d) for n, d in sites.items()}, "runs": runs,
              "failed": [line for state, rs in runs.items() for line in failures.failed(rs, f"{state} run")],
              "loadavg": {"min_1m": min(x[0] for x in load), "max_1m": max(x[0] for x in load), "samples": load},
              "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cpus": os.cpu_count()}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=1) + "\n")
    keys = ("renderer_peak_rss_bytes", "renderer_end_rss_bytes", "rss_at_first_live_bytes", "first_live_ms",
            "repeat.first_live_ms", "page_js_heap_used_bytes", "worker_wasm_heap_bytes")
    for state, s in report["summary"].items():
        print(state, {k: round(s["median"][k]) for k in keys if k in s["median"]},
              {k: round(v, 3) for k, v in s["over_main"].items() if k in keys}, file=sys.stderr)
    print(f"[memory] wrote {a.out}", file=sys.stderr)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
