"""Cold-load benchmark of the built site in headless Chromium: writes bench/out/load.json.

    .venv/bin/python bench/load_bench.py [--runs 3] [--moves 20] [--dist DIR] [--no-build]

Each run launches Chromium with a brand-new profile directory (cold HTTP and code caches), serves
dist/ with its own serve.py on 127.0.0.1, loads the page and measures, all from the page's clock
(performance.now(), 0 = navigation start):
  readable_ms     first animation frame after DOMContentLoaded with the prerendered sweep section
                  in the DOM (the page can be read); fcp_ms is Chromium's first-contentful-paint
  ready_ms        the boot reports done (progress bar full, live widgets in place)
  interactive_ms  the first sigma-slider change round-tripped through the worker and repainted:
                  key press -> readout text changes -> next animation frame
  bytes, requests every response of the page and its worker (encoded body + headers, as
                  reported by Chromium) up to interactive; off_origin must be 0
Then, in the last run's page, --moves slider moves (alternating directions so the value always
changes) give slider-to-repaint latencies: keydown on the slider -> readout changed -> next frame.
The JSON holds every run and the median over runs (and median/p95 over moves).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import conftest as harness  # noqa: E402  (serve(), Chromium flags, dist staleness, site hooks)

BASELINE = {"interactive_ms": 7900, "bytes": 22.3e6, "requests": 33, "repaint_median_ms": 31, "repaint_p95_ms": 47,
            "note": "throwaway prototype of the same stack (issue 3), this machine, cold, median of 3"}

# Runs in the page before any of its scripts: marks 'readable' and stamps key presses.
INIT_JS = """
(() => {
  const b = window.__bench = {readable: null, keydown: null};
  document.addEventListener('keydown', () => { b.keydown = performance.now(); }, true);
  document.addEventListener('DOMContentLoaded', () => {
    requestAnimationFrame(() => requestAnimationFrame(() => { b.readable = performance.now(); }));
  });
})();
"""

FCP_JS = "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? null"


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def one_run(pw, exe: str, url: str, origin: str, moves: int, timeout_s: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="wt-bench-profile-") as profile:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=exe, args=harness.CHROMIUM_ARGS, headless=True,
            viewport={"width": 1280, "height": 900})
        try:
            ctx.set_default_timeout(timeout_s * 1000)
            reqs = []
            ctx.on("requestfinished", lambda r: reqs.append(r))
            failed = []
            ctx.on("requestfailed", lambda r: failed.append(r.url))
            ctx.add_init_script(INIT_JS)
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            t_wall = time.monotonic()
            page.goto(url, wait_until="commit")
            page.wait_for_function("() => window.__bench && window.__bench.readable !== null")
            readable = page.evaluate("() => window.__bench.readable")
            assert harness.prerendered_present(page), "the prerendered sweep section is not in the page"
            harness.wait_booted(page, timeout_s)
            ready = page.evaluate("() => window.__wt.timings.interactive")  # stamped by boot.js at 'ready'
            timings = page.evaluate("() => window.__wt.timings")
            first = harness.move_and_wait_repaint(page, "sweep.sigma", "ArrowRight")
            interactive = first["repainted"]
            n_at_interactive = len(reqs)
            sizes = []
            for r in reqs[:n_at_interactive]:
                try:
                    s = r.sizes()
                    sizes.append(s["responseBodySize"] + s["responseHeadersSize"])
                except Exception:  # a request whose sizes Chromium no longer holds
                    sizes.append(0)
            urls = [r.url for r in reqs]
            off = [u for u in urls + failed if not u.startswith(("data:", "blob:")) and harness.origin_of(u) != origin]
            out = {
                "readable_ms": readable,
                "fcp_ms": page.evaluate(FCP_JS),
                "ready_ms": ready,
                "interactive_ms": interactive,
                "first_change_ms": first["latency"],
                "boot_steps_ms": timings,
                "bytes": sum(sizes),
                "requests": n_at_interactive,
                "failed_requests": failed,
                "off_origin": off,
                "wall_s": round(time.monotonic() - t_wall, 3),
            }
            if moves:
                lat = []
                for i in range(moves):
                    key = "ArrowRight" if (i // 5) % 2 == 0 else "ArrowLeft"
                    lat.append(harness.move_and_wait_repaint(page, "sweep.in_scale", key)["latency"])
                out["repaint_ms"] = lat
            return out
        finally:
            ctx.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="cold runs (>= 3 for a median)")
    ap.add_argument("--moves", type=int, default=20, help="slider moves for the repaint latency")
    ap.add_argument("--dist", type=Path, default=None, help="built site (default: dist/, built if stale)")
    ap.add_argument("--no-build", action="store_true", help="never run build.py")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per page load")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "load.json")
    a = ap.parse_args(argv)

    dist = (a.dist or ROOT / "dist").resolve()
    if a.dist is None and not a.no_build:
        why = harness.dist_is_stale(dist)
        if why:
            print(f"[bench] building dist/: {why}", file=sys.stderr)
            subprocess.run([sys.executable, "build.py"], cwd=ROOT, check=True)
    if not (dist / "index.html").is_file():
        sys.exit(f"[bench] no built site at {dist}")
    exe = harness.chromium_path()
    if not exe:
        sys.exit("[bench] no Chromium (set WT_CHROMIUM)")

    from playwright.sync_api import sync_playwright

    runs = []
    with tempfile.TemporaryDirectory() as logs, harness.serve(dist, log_dir=Path(logs)) as srv, sync_playwright() as pw:
        for i in range(a.runs):
            r = one_run(pw, exe, srv.url, srv.origin, a.moves if i == a.runs - 1 else 0, a.timeout)
            runs.append(r)
            print(f"[bench] run {i + 1}/{a.runs}: readable {r['readable_ms']:.0f} ms, ready {r['ready_ms']:.0f} ms, "
                  f"interactive {r['interactive_ms']:.0f} ms, {r['bytes'] / 1e6:.2f} MB / {r['requests']} requests",
                  file=sys.stderr)

    def med(k):
        return statistics.median(r[k] for r in runs if r.get(k) is not None)

    lat = runs[-1].get("repaint_ms", [])
    summary = {
        "runs": a.runs,
        "readable_ms": med("readable_ms"),
        "fcp_ms": med("fcp_ms") if any(r["fcp_ms"] is not None for r in runs) else None,
        "ready_ms": med("ready_ms"),
        "interactive_ms": med("interactive_ms"),
        "interactive_spread_ms": [min(r["interactive_ms"] for r in runs), max(r["interactive_ms"] for r in runs)],
        "bytes": med("bytes"),
        "requests": med("requests"),
        "off_origin_requests": sum(len(r["off_origin"]) for r in runs),
        "repaint_moves": len(lat),
        "repaint_median_ms": statistics.median(lat) if lat else None,
        "repaint_p95_ms": percentile(lat, 0.95),
    }
    report = {
        "summary": summary,
        "baseline": BASELINE,
        "runs": runs,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "chromium": exe},
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    return 1 if summary["off_origin_requests"] else 0


if __name__ == "__main__":
    sys.exit(main())
