"""A Run on the pool of numerics workers against the same Run in the one Panel worker (issue 27): bench/out/pool.json

    .venv/bin/python bench/pool.py [--dist DIR] [--runs 3] [--sections tasks,paper,repeat,pathdrop]

Per run section at its default settings (embed=SECTION, a brand-new Chromium profile per page), the modes one
after another (bench/out/pool.json is written after every page, so a pass cut short keeps what it measured):
  one     the pool cannot start (every Worker after the Panel worker's throws): the Panel worker runs the Run
  pool    the pool as this browser sizes it (navigator.hardwareConcurrency - 1, clamped; this box: 2 cores, so 1)
  pool=N  navigator told N + 1 cores and 8 GB, so a pool of N (the tasks Run: 2, 3; the others: 2)
Each page boots, then presses Run --runs times: the first Run's wall time (click to "Done.") includes starting the
pool's workers, the later ones reuse them; the medians of the later ones are the comparison. During the pooled
Runs the renderer's resident set is sampled (the workers live in the page's renderer); after the last Run the
pool is released (__wt.pool.release(), what a minute idle does) and the resident set read again.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import memory  # noqa: E402  (bench/memory.py: RssSampler)
import run  # noqa: E402  (bench/run.py: cold_browser, renderer_pids, proc_status_bytes)
from run import ROOT, harness  # noqa: E402

BUTTON = {"tasks": "Run the seeds", "paper": "Run again", "repeat": "Train tied + untied", "pathdrop": "Train both"}
NO_POOL = ("(() => { const W = window.Worker; let n = 0; window.Worker = function (...a) {"
           " if (n++ >= 1) throw new Error('the bench allows one worker'); return new W(...a); }; })();")


def cores(n: int) -> str:
    """navigator saying n cores and 8 GB: a pool of n - 1."""
    return (f"Object.defineProperty(navigator, 'hardwareConcurrency', {{get: () => {n}}});"
            "Object.defineProperty(navigator, 'deviceMemory', {get: () => 8});")


def modes(section: str) -> dict[str, str]:
    """{mode: init script}: "pool" is this box's own size (here 1), so pool=1 is not measured twice."""
    sizes = (2, 3) if section == "tasks" else (2,)
    return {"one": NO_POOL, "pool": "", **{f"pool={n}": cores(n + 1) for n in sizes}}


def rss_now(profile: str) -> int | None:
    return max((b for p in run.renderer_pids(profile) if (b := run.proc_status_bytes(p, "VmRSS")) is not None), default=None)


def one_run(page, live: str, section: str, timeout_s: float) -> float:
    """Press the section's Run; seconds from the click until its status says Done."""
    page.locator(live).get_by_role("button", name=BUTTON[section]).click()
    t0 = time.monotonic()
    page.locator(f"{live} .wt-status", has_text="Step").first.wait_for(timeout=timeout_s * 1000)
    page.locator(f"{live} .wt-status", has_text="Done.").first.wait_for(timeout=timeout_s * 1000)
    return time.monotonic() - t0


def visit(pw, exe: str, url: str, section: str, init: str, runs: int, timeout_s: float) -> dict:
    """One page of one mode: its Runs' wall times, pool size, renderer memory during the Runs and after release."""
    with run.cold_browser(pw, exe, timeout_s) as (ctx, page, _reqs, _asked, profile):
        if init:
            ctx.add_init_script(init)
        page.goto(f"{url}?embed={section}", wait_until="domcontentloaded")
        harness.wait_booted(page, timeout_s)
        live = f"#live-{section}[data-live=true]"
        before = rss_now(profile)
        sampler = memory.RssSampler(profile)
        sampler.start()
        try:
            walls = [one_run(page, live, section, timeout_s) for _ in range(runs)]
        finally:
            sampler.stopped.set()
        pool = page.evaluate("({size: __wt.pool.size, started: __wt.pool.started, notes: __wt.pool.notes})")
        page.evaluate("__wt.pool.release()")
        time.sleep(2.0)  # the workers' memory goes back once they end
        return {"wall_s": walls, "pool_size": pool["size"], "workers_started": pool["started"], "notes": pool["notes"],
                "rss_before_run_bytes": before, "rss_peak_during_runs_bytes": max((b for _, b in sampler.samples), default=None),
                "rss_after_release_bytes": rss_now(profile)}


def summarise(visits: dict) -> dict:
    """Per section and mode: median warm wall time (every Run but the first), the first Run's, pool size,
    memory; and each pooled mode's warm median over one worker's."""
    out = {}
    for section, by_mode in visits.items():
        rows = {}
        for mode, vs in by_mode.items():
            warm = [w for v in vs for w in v["wall_s"][1:]] or [w for v in vs for w in v["wall_s"]]
            mb = lambda k: statistics.median(v[k] for v in vs if v[k]) / 1e6 if any(v[k] for v in vs) else None  # noqa: E731
            if not vs:
                continue
            rows[mode] = {"warm_median_s": statistics.median(warm), "first_run_s": statistics.median(v["wall_s"][0] for v in vs),
                          "pool_size": vs[-1]["pool_size"], "workers_started": vs[-1]["workers_started"],
                          "rss_before_run_mb": mb("rss_before_run_bytes"), "rss_peak_during_runs_mb": mb("rss_peak_during_runs_bytes"),
                          "rss_after_release_mb": mb("rss_after_release_bytes")}
        one = rows.get("one", {}).get("warm_median_s")
        for r in rows.values():
            r["over_one_worker"] = r["warm_median_s"] / one if one else None
        out[section] = rows
    return out


def write(out: Path, visits: dict, load: list) -> None:
    report = {"summary": summarise(visits), "visits": visits, "cpus": os.cpu_count(),
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
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    sections = [s for s in a.sections.split(",") if s]
    visits: dict = {s: {m: [] for m in modes(s)} for s in sections}
    load = [os.getloadavg()]
    exe = harness.chromium_path()
    logs = Path(tempfile.mkdtemp(prefix="wt-pool-bench-"))  # the server's log, not in the working tree
    with harness.serve(a.dist.resolve(), log_dir=logs) as server, sync_playwright() as pw:
        for section in sections:
            for mode, init in modes(section).items():
                v = visit(pw, exe, server.url, section, init, a.runs, a.timeout)
                visits[section][mode].append(v)
                load.append(os.getloadavg())
                print(f"[pool] {section} {mode}: size {v['pool_size']}, runs {', '.join(f'{w:.2f}' for w in v['wall_s'])} s, "
                      f"peak {(v['rss_peak_during_runs_bytes'] or 0) / 1e6:.0f} MB, after release "
                      f"{(v['rss_after_release_bytes'] or 0) / 1e6:.0f} MB, load {load[-1][0]:.1f}", file=sys.stderr)
                write(a.out, visits, load)  # after every visit: a bench cut short keeps what it measured
    print(json.dumps(summarise(visits), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
