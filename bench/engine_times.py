"""The instant-page times in every engine of the test matrix (tests/engines.py: Chromium, Firefox ESR, WebKitGTK),
for the served site and the classroom file, measured in the same run (bench/run.py --engines, or alone:
`.venv/bin/python bench/engine_times.py --dist dist --runs 2`). All ms on the page clock (0 = navigation start):

  readable_ms        DOMContentLoaded's end (the prose and prerendered figures are parsed and laid out;
                     WebDriver classic cannot stamp a frame before the page's scripts, so this one stamp for all)
  load_ms            the load event (the classroom file: when its 13 MB data block has been parsed and handled)
  first_response_ms  the first playback slider press answered and repainted (instant.ARM_JS), pressed as soon
                     as the harness sees the slider; first_keydown_ms: when that press arrived (the harness's
                     share: its round trips to the engine, WebDriver's the slowest)
  first_live_ms      the first section live; all_live_ms: every section live (window.__wt.timings)
  where_ms           where the time goes: the navigation's phases, the classroom loader's steps (payload
                     decoded, the worker's bytes posted, the page's files unpacked) and the worker's boot steps
  early_live_ms      another page, opened at an off-grid setting (?embed=sweep&sweep.sigma=0.0123, as
                     bench/stream.py): its first live answer, from a numerics worker before Panel (__wt.early),
                     and early_panel_live_ms, the same page's Panel section live; early_over_panel their ratio

Runs are interleaved (run 1 in every engine, then run 2) so machine load hits the engines alike; each run is
a fresh profile. The ratios are each engine's median over Chromium's, same run. A run (or an engine's launch) that
fails is recorded as failed with its error's first line (bench/failures.py), the others are kept: `failed` lists
each, and the exit code is then 1.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import engines  # tests/engines.py: the engine matrix's drivers
import failures  # bench/failures.py: a failed run is recorded, the others kept
import harness
import instant

KEYS = ("readable_ms", "load_ms", "first_keydown_ms", "first_response_ms", "first_live_ms", "all_live_ms",
        "early_live_ms", "early_panel_live_ms", "early_over_panel")
OFF_GRID = "embed=sweep&sweep.sigma=0.0123"  # a setting off the sweep's playback grid (bench/stream.py's)
TIMES_JS = """() => { const n = performance.getEntriesByType('navigation')[0] || {};
  const t = (window.__wt && window.__wt.timings) || {}, live = Object.values(t.live || {});
  const loader = window.__wt && window.__wt.transport && window.__wt.transport.timings;
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return {readable_ms: n.domContentLoadedEventEnd || null, load_ms: n.loadEventStart || null,
    first_live_ms: live.length ? Math.min(...live) : null, all_live_ms: t.interactive || null,
    where_ms: {response_end: n.responseEnd, dom_interactive: n.domInteractive,
      dcl_handlers: n.domContentLoadedEventEnd - n.domContentLoadedEventStart, fcp: fcp ? fcp.startTime : null,
      ...(loader ? {loader_decoded: loader.decoded, loader_posted: loader.posted, loader_page_files: loader.pageFiles} : {}),
      ...Object.fromEntries(Object.entries(t).filter(([, v]) => typeof v === 'number'))}}; }"""


def first_response(page) -> tuple[float, float]:
    """instant.first_response through the engine-neutral page: the sweep's playback slider, pressed at once:
    (keydown, repainted) ms. The keydown's time is the harness's (its round trips to the engine), the rest the page's."""
    page.wait("() => !!document.querySelector('#live-sweep .wt-player input[type=range]')", timeout=120, every=0.02)
    page.js(instant.ARM_JS, "sweep")
    page.js("() => document.querySelector('#live-sweep .wt-player input[type=range]').focus()")
    page.press("ArrowRight")
    return tuple(page.js("() => window.__benchAnswer"))


def one(engine, url: str, timeout_s: float) -> dict:
    page = engine.open(url)
    try:
        keydown, response = first_response(page)
        page.wait("() => window.__wt && window.__wt.status !== 'booting'", timeout=timeout_s, every=0.1)
        page.wait("() => performance.getEntriesByType('navigation')[0].loadEventStart > 0", timeout=timeout_s)
        r = page.js(TIMES_JS) | {"first_response_ms": response, "first_keydown_ms": keydown,
                                 "status": page.js("() => window.__wt.status")}
        r["off_origin"] = page.refused()
        return r
    finally:
        page.close()


def early(engine, url: str, timeout_s: float) -> dict:
    """A page opened at an off-grid setting: its first live answer (a numerics worker's, None if Panel came first)
    and its Panel section's first live, ms on its clock; how many answers it asked of the pool, and the pool's size."""
    page = engine.open(f"{url}?{OFF_GRID}")
    try:
        page.wait("() => !!(window.__wt && __wt.timings && __wt.timings.live && __wt.timings.live.sweep)", timeout=timeout_s, every=0.1)
        got = page.js("() => ({early: __wt.early.firstAt || null, panel: __wt.timings.live.sweep, asked: __wt.early.asked,"
                      " size: __wt.pool.size})")
        return {"early_live_ms": got["early"], "early_panel_live_ms": got["panel"], "early_asked": got["asked"],
                "pool_size": got["size"], "early_over_panel": got["early"] / got["panel"] if got["early"] else None}
    finally:
        page.close()


def one_run(engine, url: str, timeout_s: float, what: str) -> dict:
    """One run: the page (one) and the off-grid page (early), each recorded as failed on its own ("failed",
    "early_failed"), so a hiccup in one keeps the other's times."""
    r = failures.tried(what, one, engine, url, timeout_s)
    off_grid = failures.tried(f"{what}, off-grid page", early, engine, url, timeout_s)
    return r | ({"early_failed": off_grid["failed"]} if "failed" in off_grid else off_grid)


def summarise(runs: list[dict]) -> dict:
    """Medians over the runs that measured each key; `failed`, `early_failed`: runs whose page, whose off-grid page
    failed."""
    done = [r for r in runs if "failed" not in r]
    s = {"runs": len(runs), "ready": sum(r["status"] == "ready" for r in done),
         "failed": len(runs) - len(done), "early_failed": sum("early_failed" in r for r in runs)}
    for k in KEYS:
        xs = [r[k] for r in runs if r.get(k) is not None]
        s[k] = statistics.median(xs) if xs else None
    steps = {}
    for r in done:
        for k, v in r["where_ms"].items():
            if isinstance(v, (int, float)):
                steps.setdefault(k, []).append(v)
    s["where_ms"] = {k: statistics.median(v) for k, v in steps.items()}
    s["off_origin_requests"] = sum(len(r["off_origin"]) for r in done)
    return s


def launch_all(names, proxy) -> tuple[dict, dict]:
    """({name: its launched engine}, {name: {"skipped": why} or {"failed": its error}}) for the engines NAMES: one
    missing here or failing to launch is recorded, and the others are still measured."""
    launched, left = {}, {}
    for n in names:
        why = engines.missing(n)
        if why:
            left[n] = {"skipped": why}
            continue
        try:
            launched[n] = engines.launch(n, proxy)
        except Exception as e:  # the other engines are still measured
            left[n] = failures.record(e, f"launching {n}")
    return launched, left


def measure(server_url: str, classroom: Path | None, runs: int, names=engines.ENGINES, timeout_s: float = 600) -> dict:
    """{engine: {"served": summary, "file": summary, "version"}, "ratios_over_chromium": ...}, runs interleaved."""
    proxy = engines.OffOrigin()
    launched = {}
    raw: dict[str, dict[str, list]] = {n: {"served": [], "file": []} for n in names}
    try:
        launched, left = launch_all(names, proxy)
        raw |= left
        for i in range(runs):
            for n, e in launched.items():
                for where, url in (("served", server_url), ("file", classroom and classroom.as_uri())):
                    if url:
                        r = one_run(e, url, timeout_s, f"{n} {where} run {i + 1}/{runs}")
                        raw[n][where].append(r)
                        print(f"[bench] {n} {where} run {i + 1}/{runs}: " + ", ".join(
                            f"{k[:-3]} {r[k]:.0f}" for k in KEYS if r.get(k) is not None) + " ms", file=sys.stderr)
    finally:
        for n, e in launched.items():
            failures.tried(f"quitting {n}", e.quit)  # a dead session must not cost the report
        proxy.close()
    out = {n: ({"version": launched[n].version} | {w: summarise(rs) for w, rs in raw[n].items() if rs})
           if n in launched else raw[n] for n in names}
    base = out.get("chromium", {})
    out["ratios_over_chromium"] = {
        n: {w: {k: out[n][w][k] / base[w][k] for k in KEYS if out[n][w].get(k) and base.get(w, {}).get(k)}
            for w in ("served", "file") if w in out[n]} for n in launched if n != "chromium" and base}
    out["failed"] = [f"launching {n}: {raw[n]['failed']}" for n in names if "failed" in raw[n]] + [
        line for n in launched for where, rs in raw[n].items()
        for line in [*failures.failed(rs, f"{n} {where} run"),
                     *failures.failed(rs, f"{n} {where} off-grid page, run", "early_failed")]]
    out["runs_detail"] = raw
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--engines", default=",".join(engines.ENGINES))
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "engine_times.json")
    a = ap.parse_args(argv)
    classroom = a.dist.resolve() / "weighttying.html"
    with harness.serve(a.dist.resolve(), log_dir=Path(tempfile.gettempdir())) as srv:
        report = measure(srv.url, classroom if classroom.is_file() else None, a.runs, a.engines.split(","))
    report["when"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "runs_detail"}, indent=2))
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
