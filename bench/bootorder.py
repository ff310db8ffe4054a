"""Which worker boots first on a machine with few cores, measured in the same run: bench/out/bootorder.json

    .venv/bin/python bench/bootorder.py [--dist DIR] [--variant NAME=DIST ...] [--runs 4] [--engines chromium,firefox]
                                        [--orders natural,together,numerics-first]

Each build (--dist as "main", each --variant) in each order; an order other than "natural" is forced by the bench
alone (globalThis.wtBenchBootOrder, set before the page's scripts; no reader sets it), in a build that reads it:
  natural         what the build does on this machine, unforced
  together        the Panel worker at once, a numerics worker on the first off-grid ask or Run (main's only rule)
  numerics-first  one numerics worker at once, the Panel worker once it is up (tried, not kept: bench/README.md)
`order_seen` says which order a page took (the Panel worker made after a numerics worker: numerics-first).
Per run, interleaved (every build and order, then the next run), a fresh profile per page, two pages each, ms on
the page clock:
  page      the whole page: first_live_ms and all_live_ms (window.__wt.timings), the Panel worker's boot steps
            (panel_runtime_ms ...: runtime_checked, runtime, packages, import, app), the first numerics worker's
            (__wt.pool.boots; numerics_*: spawned and ready = up, page clock; runtime_checked, runtime, packages,
            durations) and, in a build that records it, panel_started_ms (when the Panel worker was made)
  off-grid  ?embed=sweep&sweep.sigma=0.0123 (off the playback grid, as bench/engine_times.py): early_live_ms (the
            numerics worker's answer in place), early_panel_live_ms (the Panel section live), their ratio, and
            that page's boot steps (early_panel_*, early_numerics_*: the two workers booting at once)
Medians and [min, max] per engine, build and order, each over the first build-and-order's; the load before and after.
A page that fails is recorded as failed (bench/failures.py), the others kept; the exit code is then 1.
WebKit cannot run a script before the page's (tests/engines.py: can_init_script), so it gets the natural order only.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import engine_times  # bench/engine_times.py: launch_all
import engines  # tests/engines.py: the engine matrix's drivers
import failures  # bench/failures.py: a failed page is recorded, the others kept
import harness

OFF_GRID = "embed=sweep&sweep.sigma=0.0123"
STEPS = ("runtime_checked", "runtime", "packages", "import", "app")
PAGE_JS = """() => { const t = __wt.timings, live = Object.values(t.live || {}), b = (__wt.pool.boots || [])[0] || {};
  return {first_live_ms: live.length ? Math.min(...live) : null, all_live_ms: t.interactive || null,
    panel_started_ms: t.panel_started || null, status: __wt.status, pool_size: __wt.pool.size,
    steps: Object.fromEntries(Object.entries(t).filter(([k, v]) => typeof v === 'number' && !k.includes(':'))),
    numerics: b, early_ms: __wt.early.firstAt || null, early_asked: __wt.early.asked}; }"""
ALL_LIVE = "() => !!(window.__wt && (__wt.status === 'ready' || __wt.status === 'failed'))"
SWEEP_LIVE = "() => !!(window.__wt && __wt.timings && __wt.timings.live && __wt.timings.live.sweep)"


def init_js(order: str) -> str | None:
    """The script that forces ORDER before the page's own, or None for the natural one."""
    return None if order == "natural" else f"globalThis.wtBenchBootOrder = {json.dumps(order)};"


def flat(got: dict) -> dict:
    """The page's record as flat keys: the Panel worker's steps as panel_<step>_ms, the numerics worker's as
    numerics_<step>_ms (durations; numerics_spawned_ms and numerics_ready_ms are page-clock times)."""
    r = {k: v for k, v in got.items() if k not in ("steps", "numerics")}
    r |= {f"panel_{k}_ms": got["steps"][k] for k in STEPS if k in got["steps"]}
    r |= {f"numerics_{k}_ms": v for k, v in got["numerics"].items()}
    return r


def page(engine, url: str, order: str, timeout_s: float) -> dict:
    """The whole page, every section live."""
    p = engine.open(url, init_js(order))
    try:
        p.wait(ALL_LIVE, timeout=timeout_s, every=0.1)
        r = flat(p.js(PAGE_JS))
        r["order_seen"] = "numerics-first" if (r["panel_started_ms"] or 0) > (r.get("numerics_spawned_ms") or 1e12) else "together"
        return r
    finally:
        p.close()


def off_grid(engine, url: str, order: str, timeout_s: float) -> dict:
    """The page opened off the sweep's grid: its first live answer (None: Panel's came first) and Panel's."""
    p = engine.open(f"{url}?{OFF_GRID}", init_js(order))
    try:
        p.wait(SWEEP_LIVE, timeout=timeout_s, every=0.1)
        got = flat(p.js(PAGE_JS))
        panel = p.js("() => __wt.timings.live.sweep")
        return {f"early_{k}": v for k, v in got.items()} | {
            "early_live_ms": got["early_ms"], "early_panel_live_ms": panel,
            "early_over_panel": got["early_ms"] / panel if got["early_ms"] else None}
    finally:
        p.close()


def summarise(runs: list[dict]) -> dict:
    """Medians of every numeric key over the runs that measured it, [min, max] beside, and how many failed."""
    keys = sorted({k for r in runs for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
    out = {"runs": len(runs), "failed": sum("failed" in r or "off_grid_failed" in r for r in runs)}
    for k in keys:
        xs = [r[k] for r in runs if isinstance(r.get(k), (int, float))]
        out[k] = statistics.median(xs)
        out[f"{k}_spread"] = [min(xs), max(xs)]
    return out


def measure(builds: dict[str, str], names: list[str], orders: list[str], runs: int, timeout_s: float) -> dict:
    """{engine: {"version", "summary": {"build:order": medians}, "runs": ...}}; BUILDS: {name: its served URL}."""
    proxy = engines.OffOrigin()
    launched = {}
    try:
        launched, raw = engine_times.launch_all(names, proxy)
        for n, e in launched.items():
            mine = orders if e.can_init_script else ["natural"]
            raw[n] = {f"{b}:{o}": [] for b in builds for o in mine}
        for i in range(runs):
            for n, e in launched.items():
                for key in raw[n]:
                    build, o = key.split(":")
                    what = f"{n} {key} run {i + 1}/{runs}"
                    r = failures.tried(what, page, e, builds[build], o, timeout_s)
                    g = failures.tried(f"{what}, off-grid page", off_grid, e, builds[build], o, timeout_s)
                    r |= {"off_grid_failed": g["failed"]} if "failed" in g else g
                    raw[n][key].append(r)
                    print(f"[bench] {what}: " + ", ".join(f"{k} {r[k]:.0f}" for k in (
                        "panel_started_ms", "numerics_ready_ms", "first_live_ms", "all_live_ms", "early_live_ms",
                        "early_panel_live_ms") if isinstance(r.get(k), (int, float))), file=sys.stderr, flush=True)
    finally:
        for e in launched.values():
            failures.tried("quitting", e.quit)
        proxy.close()
    out = {}
    for n, by in raw.items():
        if n not in launched:  # skipped or failed to launch
            out[n] = by
            continue
        s = {key: summarise(rs) for key, rs in by.items()}
        base = next(iter(s.values()))
        for so in s.values():
            so["over_first"] = {k: failures.ratio(so.get(k), base.get(k)) for k in (
                "first_live_ms", "all_live_ms", "early_live_ms", "early_panel_live_ms")}
        out[n] = {"version": launched[n].version, "summary": s, "runs": by}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--engines", default="chromium")
    ap.add_argument("--orders", default="natural")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIST", help="another build, interleaved")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "bootorder.json")
    a = ap.parse_args(argv)
    dists = {"main": a.dist, **{v.split("=", 1)[0]: Path(v.split("=", 1)[1]) for v in a.variant}}
    load_before = os.getloadavg()
    with contextlib.ExitStack() as stack:
        builds = {name: stack.enter_context(harness.serve(d.resolve(), log_dir=Path(tempfile.gettempdir()))).url
                  for name, d in dists.items()}
        report = measure(builds, a.engines.split(","), a.orders.split(","), a.runs, a.timeout)
    report["machine"] = {"cpus": os.cpu_count(), "loadavg_before": load_before, "loadavg_after": os.getloadavg()}
    report["when"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    names = a.engines.split(",")
    report["failed"] = [f"launching {n}: {report[n]['failed']}" for n in names if "failed" in report[n]] + [
        f"{n} {o} run {i}: {r.get('failed') or r.get('off_grid_failed')}" for n in names if "runs" in report[n]
        for o, rs in report[n]["runs"].items() for i, r in enumerate(rs, 1) if "failed" in r or "off_grid_failed" in r]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({n: v["summary"] if isinstance(v, dict) and "summary" in v else v
                      for n, v in report.items()}, indent=2))
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
