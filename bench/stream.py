"""What a streaming Run costs the page, and how soon an off-grid setting is live:
bench/out/stream.json

    .venv/bin/python bench/stream.py [--dist DIR] [--pages 3] [--moves 12] [--variant NAME=DIST]

stream  a page showing the paper study and the sweep (hide= the rest) presses the study's Run and, while it
        streams, moves the sweep's in_scale slider --moves times (harness.move_and_wait_repaint: key press to
        the readout repainted). Per page: the Run's wall time; updates per second (the Panel worker's patches the
        page applies, and the pool's batches it relays); the page's own time per update (every worker message
        handler and BokehJS patch application on the main thread, timed in the page) and its share of the
        Run's time; the Panel worker's own streaming cost (bench/pool.py's COST_PY) and its share; the repaints'
        median and p95. Modes: "one" (the pool cannot start: the Panel worker trains)
        and "pool" (as this browser sizes it).
early   a page opened at ?embed=sweep&sweep.sigma=0.0123 (off the playback grid): the first live answer
        (__wt.early.firstAt: a numerics worker's slots in place) and the Panel section's first live
        (__wt.timings.live), both on the page clock of the same page, and their ratio.
A brand-new Chromium profile per page; medians over --pages pages; the machine's load average is recorded.
--variant NAME=DIST (repeatable) measures another build too, interleaved page by page (modes "NAME:one", ...).
A page that fails is recorded as failed with its error's first line (bench/failures.py) and left out of the medians;
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
import pool  # bench/pool.py: NO_POOL
import run  # bench/run.py: cold_browser
from run import ROOT, harness

PAPER_ONLY = "hide=tying,gradcheck,pathdrop,repeat,tasks,owntext,savings"
OFF_GRID = "embed=sweep&sweep.sigma=0.0123"
# Main-thread time spent on what the workers send: every Worker message handler, and BokehJS's patch application
# (run in a task of its own, boot.js's applyPatches), each timed; installed before the page's scripts.
COST_JS = """
window.__benchCost = { handled: [], patched: [] };
(() => {
  const proto = Worker.prototype, desc = Object.getOwnPropertyDescriptor(proto, "onmessage");
  Object.defineProperty(proto, "onmessage", { configurable: true, get() { return desc.get.call(this); },
    set(fn) { desc.set.call(this, (e) => { const t = performance.now(); try { return fn.call(this, e); }
      finally { __benchCost.handled.push([t, performance.now() - t]); } }); } });
  const wrap = () => {
    const doc = window.Bokeh && Bokeh.documents && Bokeh.documents[0];
    if (!doc) return setTimeout(wrap, 50);
    const p = Object.getPrototypeOf(doc), apply = p.apply_json_patch;
    p.apply_json_patch = function (...a) { const t = performance.now(); try { return apply.apply(this, a); }
      finally { __benchCost.patched.push([t, performance.now() - t]); } };
  };
  wrap();
})();
"""


def p95(xs: list[float]) -> float | None:
    return sorted(xs)[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))] if xs else None


def stream_page(pw, exe: str, url: str, init: str, moves: int, timeout_s: float) -> dict:
    """One page: the paper study's Run streaming while the sweep's slider moves."""
    with run.cold_browser(pw, exe, timeout_s) as (ctx, page, _reqs, _asked, _profile):
        ctx.add_init_script(COST_JS)
        if init:
            ctx.add_init_script(init)
        page.goto(f"{url}?{PAPER_ONLY}", wait_until="domcontentloaded")
        harness.wait_booted(page, timeout_s)
        live = "#live-paper[data-live=true]"
        t0 = page.evaluate("performance.now()")
        before = page.evaluate("({p: __wt.patchesReceived})")
        pool.time_streaming(page)
        page.locator(live).get_by_role("button", name=pool.BUTTON["paper"]).click()
        page.locator(f"{live} .wt-status", has_text="Step").first.wait_for(timeout=timeout_s * 1000)
        repaints = []
        for i in range(moves):
            if page.locator(f"{live} .wt-status", has_text="Done.").count():
                break
            repaints.append(harness.move_and_wait_repaint(page, "sweep.in_scale", "ArrowRight" if i % 4 < 2 else "ArrowLeft")["latency"])
        page.locator(f"{live} .wt-status", has_text="Done.").first.wait_for(timeout=timeout_s * 1000)
        t1 = page.evaluate("performance.now()")
        cost = page.evaluate(f"""(() => {{ const w = (xs) => xs.filter(([t]) => t >= {t0} && t <= {t1}).map(([, ms]) => ms);
            return {{ handled: w(__benchCost.handled), patched: w(__benchCost.patched), patches: __wt.patchesReceived - {before['p']},
                      size: __wt.pool.size }}; }})()""")
        run_s = (t1 - t0) / 1000
        worker = pool.taken(page, run_s)
        page_ms = sum(cost["handled"]) + sum(cost["patched"])
        relayed = len(cost["handled"]) - cost["patches"]  # messages other than patches: the pool's batches, progress
        return {"run_s": run_s, "pool_size": cost["size"], "patches": cost["patches"], "patches_per_s": cost["patches"] / run_s,
                "messages_per_s": len(cost["handled"]) / run_s, "other_messages": relayed,
                "page_ms_per_update": page_ms / max(1, cost["patches"]), "page_share_of_run": page_ms / (run_s * 1000),
                "handler_ms_p95": p95(cost["handled"]), "patch_ms_p95": p95(cost["patched"]),
                "repaint_ms": repaints, "repaint_median_ms": statistics.median(repaints) if repaints else None,
                "repaint_p95_ms": p95(repaints), "panel_worker": worker, "panel_worker_share": worker["share_of_run"]}


def early_page(pw, exe: str, url: str, timeout_s: float, build: str = "") -> dict:
    """One page opened at an off-grid setting: its first live answer (numerics worker) and Panel's first live."""
    with run.cold_browser(pw, exe, timeout_s) as (_ctx, page, _reqs, _asked, _profile):
        page.goto(f"{url}?{OFF_GRID}", wait_until="domcontentloaded")
        page.locator(".wt-player[data-section=sweep][data-early=true]").wait_for(timeout=timeout_s * 1000)
        harness.wait_booted(page, timeout_s)
        page.locator("#live-sweep[data-live=true]").wait_for(timeout=timeout_s * 1000)
        got = page.evaluate("({early: __wt.early.firstAt, panel: __wt.timings.live.sweep, answer: __wt.early.shown.sweep.ms})")
        return {"build": build, "early_live_ms": got["early"], "panel_live_ms": got["panel"], "early_answer_ms": got["answer"],
                "early_over_panel": got["early"] / got["panel"]}


def median_of(rows: list[dict], key: str):
    xs = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(xs) if xs else None


def summary(report: dict) -> dict:
    out = {mode: {k: median_of(rows, k) for k in ("run_s", "patches_per_s", "messages_per_s", "page_ms_per_update",
                                                    "page_share_of_run", "panel_worker_share", "repaint_median_ms", "repaint_p95_ms")}
           for mode, rows in report["stream"].items() if rows}
    for mode in [m for m in out if m.endswith("pool")]:
        one = out.get(mode[:-4] + "one")
        if one and one["repaint_p95_ms"]:
            out[mode + "_over_one"] = {k: (out[mode][k] / one[k]) if out[mode][k] and one[k] else None
                                       for k in ("run_s", "page_ms_per_update", "repaint_p95_ms")}
    for build in {r["build"] for r in report["early"]}:
        rows = [r for r in report["early"] if r["build"] == build]
        out[f"{build}:early" if build else "early"] = {k: median_of(rows, k) for k in ("early_live_ms", "panel_live_ms", "early_over_panel")}
    return out


def failed(report: dict) -> list[str]:
    """'MODE page N: its error' for each page that failed (the off-grid pages: 'BUILD:early page N')."""
    return [line for mode, rows in report["stream"].items() for line in failures.failed(rows, f"{mode} page")] + [
        line for build in dict.fromkeys(r["build"] for r in report["early"])
        for line in failures.failed([r for r in report["early"] if r["build"] == build], f"{pool.label(build, 'early')} page")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--pages", type=int, default=3, help="pages per mode")
    ap.add_argument("--moves", type=int, default=12, help="slider moves while the study streams")
    ap.add_argument("--only", choices=("stream", "early"), help="one of the two measures")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "stream.json")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIST", help="another build, interleaved")
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    sites, label = pool.builds(a.dist, a.variant), pool.label
    report: dict = {"stream": {label(b, m): [] for b in sites for m in ("one", "pool")}, "early": [], "failed": [],
                    "cpus": os.cpu_count(), "load": [os.getloadavg()]}
    exe = harness.chromium_path()
    logs = Path(tempfile.mkdtemp(prefix="wt-stream-bench-"))
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        urls = pool.served(stack, sites, logs)
        for _ in range(a.pages):  # the modes and builds interleaved, so a change of the machine's load hits each alike
            for b, url in urls.items():
                for mode, init in ({} if a.only == "early" else {"one": pool.NO_POOL, "pool": ""}).items():
                    r = failures.tried(f"{label(b, mode)} page", stream_page, pw, exe, url, init, a.moves, a.timeout)
                    report["stream"][label(b, mode)].append(r)
                    if "failed" not in r:
                        print(f"[stream] {label(b, mode)}: size {r['pool_size']}, run {r['run_s']:.1f} s, {r['patches_per_s']:.1f} patches/s, "
                              f"{r['page_ms_per_update']:.2f} ms each ({100 * r['page_share_of_run']:.1f} % of the run), Panel "
                              f"worker {100 * r['panel_worker_share']:.1f} %, repaint p95 {r['repaint_p95_ms']} ms", file=sys.stderr)
                if a.only != "stream":
                    report["early"].append(r := {"build": b} | failures.tried(f"{label(b, 'early')} page", early_page, pw, exe,
                                                                             url, a.timeout, b))
                    if "failed" not in r:
                        print(f"[stream] {label(b, 'early')} live {r['early_live_ms']:.0f} ms, Panel live {r['panel_live_ms']:.0f} ms "
                              f"({r['early_over_panel']:.2f}x)", file=sys.stderr)
                report["load"].append(os.getloadavg())
                report["summary"] = summary(report)
                report["failed"] = failed(report)
                a.out.parent.mkdir(parents=True, exist_ok=True)
                a.out.write_text(json.dumps(report, indent=2) + "\n")  # after every round: a bench cut short keeps it
                time.sleep(1.0)
    print(json.dumps(report["summary"], indent=1))
    print(f"[stream] wrote {a.out}", file=sys.stderr)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
