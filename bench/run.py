"""The speed benchmark, one command: .venv/bin/python bench/run.py  ->  bench/out/run.json

    .venv/bin/python bench/run.py [--runs 5] [--moves 20] [--levers] [--variant NAME=DIST ...] [--dist DIR]

For each variant (default: "main" = `build.py --bench` into a temp dir, the shipped dist/ plus the worker
hook this benchmark times Python with; --levers adds one build per speed lever left out, `--without LEVER`,
plus "none" with every lever out)
it serves the site with its own serve.py (so compression is what serve.py sends) and, per run, in a
brand-new Chromium profile (cold HTTP and code cache): time to readable, ready and interactive (first
slider change round-tripped and repainted), bytes and requests up to interactive, the worker's boot
steps, peak memory (renderer VmHWM = page + worker, the page's JS heap from CDP Performance.getMetrics,
the worker's wasm heap), then a repeat visit in the same profile (warm cache) to interactive. Runs of
all variants are interleaved (run 1 of each, then run 2, ...) so machine load hits them alike.
The first variant's last run also times slider-to-repaint over --moves moves on the sweep and the repeat section, and runs bench/numerics.py
in the worker (bench/worker_hook.js, which build.py adds only with --bench) and in this CPython, reported as Pyodide/native ratios.
The peer (unless --no-peer): the same sections converted by `panel convert --to pyodide-worker`, served
offline from this machine (bench/peer.py builds it once, cached in ~/.cache/weighttying/peer/), measured interleaved
with the others the same way; `peer.ratio` = its interactive_ms / ours.
The classroom file (unless --no-classroom): dist/weighttying.html copied alone into an empty folder and opened
from file:// in a fresh profile, interleaved with the others: its size, time to readable, to every section
live (the worker's ready comes after the last section is embedded) and to first response (the first slider
change repainted), and its ratios to the served "main" of the same runs.
The engines (unless --engines ''): readable, first response, first live and all live of "main" served and of the
classroom file in Chromium, Firefox ESR and WebKitGTK (bench/engine_times.py), with where the time goes in each and
the ratios over Chromium of the same run. See bench/README.md for the JSON.
A run that fails (any variant's, the classroom file's, an engine's, the numerics in CPython) is recorded as failed
with its error's first line and left out of the medians; the others are kept: `failed` lists each, exit code 1.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import engine_times  # bench/engine_times.py: the instant page in each engine
import failures  # bench/failures.py: a failed run is recorded, the others kept
import harness  # tests/harness.py: serve(), Chromium, request origins, page helpers
import instant
import peer as peer_site
from numerics import sections as timed_sections  # bench/numerics.py: the default Runs it times
from weighttying.state import SECTIONS


LEVERS = ("pyc", "br")  # build.py --without ...: levers that change dist/ (see bench/README.md)
TARGETS = {"readable_ms": 500, "interactive_ms": 3000, "interactive_max_ms": 5000, "repeat_interactive_ms": 1500,
           "bytes": 12e6, "repaint_p95_ms": 50, "gradcheck_worker_ms": 100, "train600_worker_ms": 1000,
           "peer_ratio": 3.0, "classroom_bytes": 16e6, "first_response_ms": 1000, "first_response_peer_ratio": 10.0,
           "first_live_over_baseline_interactive": 0.6, "repeat_first_live_over_cold": 0.6, "cls": 0.01,
           "renderer_peak_rss_bytes": 450e6, "run_worker_over_cpython": 1.5, "tasks_worker_s": 1.5}
RUN_SECTIONS = (*timed_sections(), "lens")  # bench/numerics.py's timed default Runs, its lens study

# Runs in the page before any of its scripts: marks 'readable' (the first frame after DOMContentLoaded).
INIT_JS = """
(() => {
  const b = window.__bench = {readable: null};
  document.addEventListener('DOMContentLoaded', () => {
    requestAnimationFrame(() => requestAnimationFrame(() => { b.readable = performance.now(); }));
  });
})();
"""
FCP_JS = "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? null"

# The numerics run is one synchronous worker call of many seconds: the page's hang watch (boot.js: no pong
# for 8 s = hung, worker replaced) is stopped for this page first, and the wait is bounded either way.
BENCH_HOOK_JS = """
async (code) => {
  const w = window.__wt.worker;
  clearInterval(window.__wt.lab.watch.heartbeat);
  return await new Promise((resolve) => {
    const on = (e) => { if (e.data && e.data.type === 'bench') { w.removeEventListener('message', on); resolve(e.data); } };
    w.addEventListener('message', on);
    w.postMessage({type: 'bench', code});
    setTimeout(() => resolve({error: 'no answer from the worker within 600 s'}), 600000);
  });
}
"""


def descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def renderer_pids(profile: str) -> list[int]:
    """The renderer processes of the Chromium using PROFILE (each holds a page and its workers)."""
    browsers = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                cmd = open(f"/proc/{d}/cmdline", "rb").read().decode(errors="replace")
            except OSError:
                continue
            if profile in cmd and "--type=" not in cmd:
                browsers.append(int(d))
    pids = []
    for b in browsers:
        for p in descendants(b):
            try:
                if "--type=renderer" in open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace"):
                    pids.append(p)
            except OSError:
                continue
    return pids


def proc_status_bytes(pid: int, field: str) -> int | None:
    """A /proc/PID/status size (VmHWM: peak resident set, VmRSS: resident now) in bytes; None once PID is gone."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def renderer_peak_bytes(profile: str) -> int | None:
    """Max VmHWM (peak resident set) over the renderer processes of the Chromium using PROFILE."""
    return max((b for p in renderer_pids(profile) if (b := proc_status_bytes(p, "VmHWM")) is not None), default=None)


def wire_bytes(reqs) -> int:
    total = 0
    for r in reqs:
        try:
            s = r.sizes()
            total += s["responseBodySize"] + s["responseHeadersSize"]
        except Exception:
            pass
    return total


def booted(page, timeout_s: float, peer: bool):
    """Wait until the page is ready: (readable, ready, boot steps, its move_and_wait_repaint), ms on the page clock."""
    if not peer:
        page.wait_for_function("() => window.__bench && window.__bench.readable !== null")
        readable = page.evaluate("() => window.__bench.readable")
        harness.wait_booted(page, timeout_s)
        timings = page.evaluate("() => window.__wt.timings")
        return readable, timings.get("interactive"), timings, harness.move_and_wait_repaint
    # Panel's page: readable = its prerendered document on screen, ready = the loading class gone (peer.INIT_JS)
    page.wait_for_function("() => window.__peer && window.__peer.ready !== null", timeout=timeout_s * 1000, polling=50)
    p = page.evaluate("() => window.__peer")
    at = {msg.split()[0].lower(): ms for msg, ms in p["status"]}  # loading, unpacking, installing, executing, render
    def gap(a, b):
        return at[b] - at[a] if a in at and b in at else None
    steps = {"runtime": gap("loading", "unpacking"), "packages": gap("unpacking", "executing"),
             "import_and_app": gap("executing", "render"), "embed": p["ready"] - at["render"] if "render" in at else None}
    readable = p["shown"] if p["shown"] is not None else page.evaluate("() => window.__bench.readable")
    return readable, p["ready"], steps, peer_site.move_and_wait_repaint


def visit(page, url: str, reqs: list, timeout_s: float, peer: bool = False) -> dict:
    """Load URL in PAGE; readable, ready, interactive (ms on the page clock), bytes and requests to interactive."""
    n0 = len(reqs)
    page.goto(url, wait_until="commit")
    response = None if peer else instant.first_response(page, "sweep", timeout_s)
    readable, ready, timings, move = booted(page, timeout_s, peer)
    first = {}
    try:  # interactive: the first sigma change round-tripped and repainted
        first = move(page, "sweep.sigma", "ArrowRight")
        interactive, via = first["repainted"], "slider"
    except AssertionError as e:  # the sweep slider is not on the page: fall back to the worker's ready
        interactive, via = ready, f"ready ({e})"
    mine = reqs[n0:]
    # Without playback (the peer, a build before it) the first response is the first live one.
    first_live, all_live = (ready, ready) if peer else instant.live_times(page)
    return {"first_response_ms": interactive if response is None else response[0],
            "first_response_latency_ms": first.get("latency") if response is None else response[1],
            "first_live_ms": first_live, "all_live_ms": all_live, "cls": instant.cls(page), "readable_ms": readable, "fcp_ms": page.evaluate(FCP_JS), "ready_ms": ready,
            "interactive_ms": interactive, "interactive_via": via, "first_keydown_ms": first.get("keydown"),
            "first_change_ms": first.get("latency"), "boot_steps_ms": timings, "bytes": wire_bytes(mine),
            "requests": len(mine), "urls": [r.url for r in mine]}


@contextlib.contextmanager
def cold_browser(pw, exe: str, timeout_s: float, extra_args: tuple[str, ...] = ()):
    """A brand-new Chromium profile (cold HTTP and code caches) with INIT_JS: yields (context, page, finished
    requests, every URL asked for, also those that failed: an off-origin one fails here, no network; profile).
    EXTRA_ARGS: more Chromium flags (bench/memory.py's --js-flags)."""
    with tempfile.TemporaryDirectory(prefix="wt-bench-profile-") as profile:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=exe, args=[*harness.CHROMIUM_ARGS, *extra_args],
                                                   headless=True, viewport={"width": 1280, "height": 900})
        try:
            ctx.set_default_timeout(timeout_s * 1000)
            reqs: list = []
            asked: list = []
            ctx.on("requestfinished", lambda r: reqs.append(r))
            ctx.on("request", lambda r: asked.append(r.url))
            ctx.add_init_script(INIT_JS)
            ctx.add_init_script(instant.CLS_INIT_JS)
            yield ctx, ctx.pages[0] if ctx.pages else ctx.new_page(), reqs, asked, profile
        finally:
            ctx.close()


def one_run(pw, exe: str, url: str, origin: str, moves: int, numerics_code: str | None, timeout_s: float,
            peer: bool = False) -> dict:
    with cold_browser(pw, exe, timeout_s) as (ctx, page, reqs, asked, profile):
        if peer:
            ctx.add_init_script(peer_site.INIT_JS)
        cold = visit(page, url, reqs, timeout_s, peer)
        cold.pop("urls")
        cdp = ctx.new_cdp_session(page)
        cdp.send("Performance.enable")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        cold["page_js_heap_bytes"] = metrics.get("JSHeapTotalSize")
        if moves:  # the sweep (inScale) and repeat (sigma): five right, five left, ...
            for field, key in (("repaint_ms", "sweep.in_scale"), ("repaint_repeat_ms", "repeat.sigma")):
                cold[field] = [harness.move_and_wait_repaint(page, key, "ArrowRight" if (i // 5) % 2 == 0 else
                                                             "ArrowLeft")["latency"]
                               for i in range(moves if cold["interactive_via"] == "slider" else 0)]
        if numerics_code and has_hook(url):
            got = page.evaluate(BENCH_HOOK_JS, numerics_code)
            if "error" in got:
                cold["numerics_worker_error"] = got["error"]
            else:
                cold["numerics_worker_s"] = json.loads(got["result"])
            cold["worker_wasm_heap_bytes"] = got.get("wasm_bytes")
        elif has_hook(url):
            got = page.evaluate(BENCH_HOOK_JS, "'{}'")
            cold["worker_wasm_heap_bytes"] = got.get("wasm_bytes")
        cold["renderer_peak_rss_bytes"] = renderer_peak_bytes(profile)
        repeat = visit(page, url, reqs, timeout_s, peer)
        repeat.pop("urls")
        # both visits; the page's and its worker's requests, finished or not
        cold["off_origin"] = [u for u in asked if not u.startswith(("data:", "blob:")) and harness.origin_of(u) != origin]
        cold["repeat"] = repeat
        if not peer:  # every section alone, cold (its own fresh context), as a blog embeds it
            browser = pw.chromium.launch(executable_path=exe, args=harness.CHROMIUM_ARGS, headless=True)
            try:
                cold["embed_first_response_ms"] = instant.embed_responses(browser, url, SECTIONS, timeout_s)
            finally:
                browser.close()
        return cold


def classroom_run(pw, exe: str, path: Path, timeout_s: float) -> dict:
    """One cold open of the classroom file from disk in a fresh profile: visit()'s times, and every section live."""
    with cold_browser(pw, exe, timeout_s) as (ctx, page, reqs, asked, profile):
        r = visit(page, path.as_uri(), reqs, timeout_s)
        r.pop("urls")
        sections = page.evaluate("() => document.querySelectorAll('section.wt-section[id]').length")
        live = page.evaluate("() => document.querySelectorAll('[data-live=true]').length")
        # ready is stamped after the page embedded every section's root: the time to all live
        r["all_live_ms"] = r["ready_ms"] if live == sections else None
        r["first_response_ms"] = r["interactive_ms"]
        r["off_file"] = [u for u in asked if not u.startswith(("data:", "blob:", path.as_uri()))]
        print(f"[bench] classroom: readable {r['readable_ms']:.0f} ms, all live {r['all_live_ms'] or float('nan'):.0f} ms, "
              f"first response {r['first_response_ms']:.0f} ms", file=sys.stderr)
        return r


def copy_classroom(dist: Path, tmp: Path) -> Path:
    """dist/weighttying.html alone in an empty folder, as a teacher copies it."""
    (tmp / "usb-stick").mkdir()
    return Path(shutil.copy(dist / "weighttying.html", tmp / "usb-stick"))


def summarise_classroom(runs: list[dict], path: Path, main: dict) -> dict:
    """The classroom file's medians and spreads, and its ratios to the served site measured in the same runs."""
    if not runs:
        return {"measured": False, "why": "--no-classroom"}
    s = {"measured": True, "failed": sum("failed" in r for r in runs), "size_bytes": path.stat().st_size}
    runs = [r for r in runs if "failed" not in r]  # left out of every median
    s["runs"] = len(runs)
    for k in ("readable_ms", "fcp_ms", "first_response_ms", "all_live_ms"):
        xs = [r[k] for r in runs if r[k] is not None]
        s[k], s[k.replace("_ms", "_spread_ms")] = med(xs), [min(xs), max(xs)] if xs else None
    s["boot_steps_ms"] = boot_steps(runs)
    s["over_served"] = {k: s[k] / main[m] for k, m in (("fcp_ms", "fcp_ms"), ("first_response_ms", "interactive_ms"),
                                                       ("all_live_ms", "ready_ms")) if s[k] and main.get(m)}
    s["requests_off_file"] = sum(len(r["off_file"]) for r in runs)
    return {**s, "runs_detail": runs}


def numerics_cpython() -> dict:
    code = "import sys, json; sys.path[:0] = [%r, %r]; import numerics; print(json.dumps(numerics.run()))" % (
        str(ROOT / "py"), str(ROOT / "bench"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def worker_numerics_code() -> str:
    # bench/numerics.py's source as a module, then run(): the worker has weighttying installed.
    src = (ROOT / "bench" / "numerics.py").read_text()
    return ("import sys, types, json\nm = types.ModuleType('wt_bench_numerics')\n"
            f"exec(compile({src!r}, 'bench/numerics.py', 'exec'), m.__dict__)\njson.dumps(m.run())\n")


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs) -> list | None:
    """[min, max] of what was measured; None when nothing was."""
    xs = [x for x in xs if x is not None]
    return [min(xs), max(xs)] if xs else None


def within(x, limit) -> bool:
    """x <= limit; False when either was not measured (every run of it failed)."""
    return x is not None and limit is not None and x <= limit


def boot_steps(runs: list[dict]) -> dict:
    """{step: median ms} over the runs' worker timings (not timings.live, the {section: ms} the instant fields report)."""
    steps = {}
    for r in runs:
        for k, v in r["boot_steps_ms"].items():
            if isinstance(v, (int, float)):
                steps.setdefault(k, []).append(v)
    return {k: med(v) for k, v in steps.items()}


def summarise(runs: list[dict]) -> dict:
    """Medians (and spreads) of one variant's runs; `failed`: how many failed (left out of every median)."""
    s = {"failed": sum("failed" in r for r in runs)}
    runs = [r for r in runs if "failed" not in r]  # left out of every median
    s["runs"] = len(runs)

    def col(k, sub=None):
        return [(r[sub] if sub else r).get(k) for r in runs]
    for k in ("first_response_ms", "first_response_latency_ms", "first_live_ms", "all_live_ms", "cls", "readable_ms",
              "fcp_ms", "ready_ms", "interactive_ms", "bytes", "requests", "page_js_heap_bytes", "worker_wasm_heap_bytes",
              "renderer_peak_rss_bytes"):
        s[k] = med(col(k))
    for k in ("first_response_ms", "first_live_ms", "all_live_ms", "cls"):
        s[f"repeat_{k}"] = med(col(k, "repeat"))
    embeds = [r["embed_first_response_ms"] for r in runs if r.get("embed_first_response_ms")]
    s["embed_first_response_ms"] = {sid: med([e[sid] and e[sid][0] for e in embeds]) for sid in embeds[0]} if embeds else None
    s["embed_first_response_latency_ms"] = {sid: med([e[sid] and e[sid][1] for e in embeds]) for sid in embeds[0]} if embeds else None
    s["interactive_spread_ms"] = spread(col("interactive_ms"))
    # interactive less the harness's own time from ready to the key press (finding and focusing the slider)
    s["ready_plus_first_change_ms"] = med([r["ready_ms"] + r["first_change_ms"] for r in runs
                                          if r["ready_ms"] is not None and r.get("first_change_ms") is not None])
    s["readable_spread_ms"] = spread(col("readable_ms"))
    s["repeat_interactive_ms"] = med(col("interactive_ms", "repeat"))
    s["repeat_interactive_spread_ms"] = spread(col("interactive_ms", "repeat"))
    s["repeat_bytes"] = med(col("bytes", "repeat"))
    s["boot_steps_ms"] = boot_steps(runs)
    s["off_origin_requests"] = sum(len(r["off_origin"]) for r in runs)
    return s


def instant_met(m: dict, summary: dict) -> dict:
    """The instant-page targets: first response (full page and every embed), against the peer and a
    --variant baseline=DIST (the build before playback, measured in the same run), repeat visit, CLS, RSS."""
    embeds = m["embed_first_response_ms"] or {}
    worst = max([m["first_response_ms"], *embeds.values()], key=lambda x: float("inf") if x is None else x)
    met = {"first_response_ms": within(worst, TARGETS["first_response_ms"]),
           "repeat_first_live_over_cold": within(failures.ratio(m["repeat_first_live_ms"], m["first_live_ms"]),
                                                 TARGETS["repeat_first_live_over_cold"]),
           "cls": within(m["cls"], TARGETS["cls"]) and within(m["repeat_cls"], TARGETS["cls"]),
           "renderer_peak_rss_bytes": within(m["renderer_peak_rss_bytes"], TARGETS["renderer_peak_rss_bytes"])}
    if "peer" in summary:
        met["first_response_peer_ratio"] = within(TARGETS["first_response_peer_ratio"],  # at least 10x the peer's
                                                  failures.ratio(summary["peer"]["first_response_ms"], m["first_response_ms"]))
    if "baseline" in summary:
        met["first_live_over_baseline_interactive"] = within(failures.ratio(m["first_live_ms"], summary["baseline"]["interactive_ms"]),
                                                             TARGETS["first_live_over_baseline_interactive"])
    return met


def build_variant(name: str, without: str, out: Path) -> Path:
    """dist/ as build.py --bench makes it (worker.js answers bench/run.py's hook), less the levers WITHOUT."""
    print(f"[bench] building variant {name}: build.py --bench --without {without!r}", file=sys.stderr)
    subprocess.run([sys.executable, "build.py", "--offline", "--bench", "--out", str(out), "--without", without],
                   cwd=ROOT, check=True)
    return out


def has_hook(url: str) -> bool:
    """Whether the site at URL was built with build.py --bench (its worker answers BENCH_HOOK_JS)."""
    if not url.startswith("http"):
        return False
    try:
        with urllib.request.urlopen(url + "worker.js") as r:
            return b"bench/worker_hook.js" in r.read()
    except urllib.error.HTTPError:  # no worker.js at all: the peer's worker is peer_app.js
        return False


def variants_of(a, tmp: Path) -> dict[str, Path]:
    """{name: built site} to measure: main (a bench build, or --dist), each lever left out, --variant, the peer."""
    variants = {"main": a.dist.resolve() if a.dist else build_variant("main", "", tmp / "main")}
    if a.levers:
        for lever in LEVERS:
            variants[f"without_{lever}"] = build_variant(lever, lever, tmp / lever)
        variants["without_all"] = build_variant("all", ",".join(LEVERS), tmp / "all")
    for v in a.variant:
        name, _, d = v.partition("=")
        variants[name] = Path(d).resolve()
    if not a.no_peer:  # built once and cached; pip downloads its pinned wheels the first time only
        variants["peer"] = peer_site.build_peer(offline=False)
    return variants


def measure(variants: dict[str, Path], a, code: str | None, classroom: Path | None, tmp: Path, keep):
    """Every run of every variant and of the classroom file, interleaved (run 1 of each, then run 2, ...) so
    machine load hits them alike; main's last run also times repaints and the worker numerics.
    keep(runs, classroom_runs) is called after each run, so a later failure loses none of them."""
    from playwright.sync_api import sync_playwright

    exe = harness.chromium_path()
    runs: dict[str, list] = {n: [] for n in variants}
    classroom_runs = []
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        servers = {n: stack.enter_context(harness.serve(d, log_dir=tmp)) for n, d in variants.items()}
        for i in range(a.runs):
            for n, srv in servers.items():
                last = i == a.runs - 1 and n == "main"
                r = failures.tried(f"{n} run {i + 1}/{a.runs}", one_run, pw, exe, srv.url, srv.origin,
                                   a.moves if last else 0, code if last else None, a.timeout, peer=n == "peer")
                runs[n].append(r)
                if "failed" not in r:
                    print(f"[bench] {n} run {i + 1}/{a.runs}: readable {r['readable_ms']:.0f} ms, interactive "
                          f"{r['interactive_ms']:.0f} ms, repeat {r['repeat']['interactive_ms']:.0f} ms, "
                          f"{r['bytes'] / 1e6:.2f} MB / {r['requests']} req", file=sys.stderr)
                keep(runs, classroom_runs)
            if classroom:
                classroom_runs.append(failures.tried(f"classroom run {i + 1}/{a.runs}", classroom_run, pw, exe,
                                                     classroom, a.timeout))
            keep(runs, classroom_runs)
    return runs, classroom_runs


REPAINTS = (("repaint_ms", "repaint"), ("repaint_repeat_ms", "repaint_repeat"))  # the sweep, repeat


def judged(runs: dict[str, list], variants: dict[str, Path], code: str | None) -> dict:
    """The report: per-variant summaries, main's repaint series, numerics, levers and peer beside main, targets met."""
    summary = {n: summarise(rs) for n, rs in runs.items()}
    m = summary["main"]
    last = next((r for r in reversed(runs["main"]) if "failed" not in r), {})  # the repaints and numerics are in it
    for field, prefix in REPAINTS:
        lat = last.get(field, [])
        m.update({f"{prefix}_moves": len(lat), f"{prefix}_median_ms": med(lat), f"{prefix}_p95_ms": percentile(lat, 0.95)})
    numerics = None
    if code:
        native = failures.tried("the numerics in CPython", numerics_cpython)
        worker = last.get("numerics_worker_s")
        numerics = {"cpython_s": native, "worker_s": worker, "error": last.get("numerics_worker_error"),
                    "pyodide_over_native": {k: worker[k] / native[k] for k in native}
                    if worker and "failed" not in native else None}
    levers = {n: {k: (summary[n][k], m[k]) for k in ("interactive_ms", "ready_ms", "repeat_interactive_ms", "bytes")}
              for n in summary if n not in ("main", "peer")}
    peer = {"measured": False, "why": "--no-peer"}
    if "peer" in summary:
        p = summary["peer"]
        peer = {"measured": True, "site": str(variants["peer"]), "summary": p,
                "ratio": failures.ratio(p["interactive_ms"], m["interactive_ms"]),  # peer / ours: how many times faster
                "ratios": {k: p[k] / m[k] for k in ("readable_ms", "ready_ms", "interactive_ms", "ready_plus_first_change_ms",
                                                    "repeat_interactive_ms", "bytes", "requests") if p[k] and m[k]},
                "offline": p["off_origin_requests"] == 0,
                "how": "bench/peer_app.py through `panel convert --to pyodide-worker`, CDN URLs pointed at this "
                       "origin; deviations from stock in bench/README.md ('The peer') and bench/peer.py"}
    met = {
        "readable_ms": within(m["readable_ms"], TARGETS["readable_ms"]),
        "interactive_ms": within(m["interactive_ms"], TARGETS["interactive_ms"]),
        "interactive_max_ms": within((m["interactive_spread_ms"] or [None, None])[1], TARGETS["interactive_max_ms"]),
        "repeat_interactive_ms": within(m["repeat_interactive_ms"], TARGETS["repeat_interactive_ms"]),
        "bytes": within(m["bytes"], TARGETS["bytes"]),
        **{f"{prefix}_p95_ms": within(m[f"{prefix}_p95_ms"], TARGETS["repaint_p95_ms"]) for _, prefix in REPAINTS},
    }
    if numerics and numerics["worker_s"]:
        met["gradcheck_worker_ms"] = numerics["worker_s"]["gradcheck_s"] * 1000 <= TARGETS["gradcheck_worker_ms"]
        met["train600_worker_ms"] = numerics["worker_s"]["train600_s"] * 1000 <= TARGETS["train600_worker_ms"]
        met["tasks_worker_s"] = numerics["worker_s"]["tasks_s"] <= TARGETS["tasks_worker_s"]
    if numerics and numerics["pyodide_over_native"]:
        met |= {f"{name}_worker_over_cpython": numerics["pyodide_over_native"][f"{name}_s"] <= TARGETS["run_worker_over_cpython"]
                for name in RUN_SECTIONS}
    if peer["measured"]:
        met["peer_ratio"] = within(TARGETS["peer_ratio"], peer["ratio"])  # at least 3x
    met |= instant_met(m, summary)
    return {"summary": summary, "targets": TARGETS, "met": met, "levers": levers, "numerics": numerics, "peer": peer}


def failures_of(runs: dict[str, list], classroom_runs: list[dict], report: dict) -> list[str]:
    """Every failure of the bench, one line each: a variant's or the classroom file's run, the numerics in CPython,
    the engines step or one of its runs."""
    out = [line for n, rs in runs.items() for line in failures.failed(rs, f"{n} run")]
    out += failures.failed(classroom_runs, "classroom run")
    native = (report["numerics"] or {}).get("cpython_s") or {}
    out += [f"numerics in CPython: {native['failed']}"] if "failed" in native else []
    engines = report["engines"]
    return out + ([f"engines: {engines['error']}"] if engines.get("error") else []) + \
        [f"engines: {line}" for line in engines.get("failed", [])]


def engines_step(a, dist: Path, classroom: Path | None, tmp: Path) -> dict:
    """bench/engine_times.py's report for the served DIST and the classroom file; a failure is reported, not raised,
    so the runs measured before it are still summarised."""
    try:
        with harness.serve(dist, log_dir=tmp) as srv:
            return engine_times.measure(srv.url, classroom, a.engine_runs, a.engines.split(","))
    except Exception as e:  # any engine's failure: the report says which, and the exit code is 1
        traceback.print_exc()
        return {"measured": False, "error": f"{type(e).__name__}: {e}"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIST", help="a built site to measure too")
    ap.add_argument("--levers", action="store_true", help="also build and measure dist without each lever")
    ap.add_argument("--dist", type=Path, default=None, help="measure this built site as 'main' (default: build one "
                    "with build.py --bench; a site built without --bench gets no worker numerics or wasm heap)")
    ap.add_argument("--no-numerics", action="store_true")
    ap.add_argument("--no-peer", action="store_true", help="leave out the panel-convert peer (bench/peer.py)")
    ap.add_argument("--no-classroom", action="store_true", help="leave out the classroom file (dist/weighttying.html)")
    ap.add_argument("--engines", default="chromium,firefox,webkit", help="engines to time main and the classroom "
                    "file in (bench/engine_times.py); '' for none")
    ap.add_argument("--engine-runs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "run.json")
    ap.add_argument("--summarise", type=Path, metavar="RUNS_JSON", help="measure nothing: summarise the runs a "
                    "previous run kept beside its --out (run.runs.json)")
    a = ap.parse_args(argv)

    raw = a.summarise or a.out.with_suffix(".runs.json")  # minutes of measuring: kept even if summarising fails
    if a.summarise:
        kept = json.loads(raw.read_text())
        variants, code = {n: Path(d) for n, d in kept["variants"].items()}, kept["code"]
        runs, classroom_runs, classroom = kept["runs"], kept["classroom_runs"], kept["classroom"] and Path(kept["classroom"])
        engine_report = kept.get("engines")
    else:
        tmp = Path(tempfile.mkdtemp(prefix="wt-bench-"))
        variants = variants_of(a, tmp)
        code = None if a.no_numerics else worker_numerics_code()
        classroom = None if a.no_classroom else copy_classroom(variants["main"], tmp)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        kept = {"runs": {}, "classroom_runs": [], "code": code, "engines": None,
                "variants": {n: str(d) for n, d in variants.items()}, "classroom": classroom and str(classroom)}

        def keep(**parts):  # rewritten after every step: what was measured survives a later step's failure
            kept.update(parts)
            raw.write_text(json.dumps(kept, indent=1) + "\n")

        runs, classroom_runs = measure(variants, a, code, classroom, tmp,
                                       lambda rs, cs: keep(runs=rs, classroom_runs=cs))
        engine_report = engines_step(a, variants["main"], classroom, tmp) if a.engines else None
        keep(engines=engine_report)
    report = judged(runs, variants, code)
    report["classroom"] = summarise_classroom(classroom_runs, classroom, report["summary"]["main"])
    if report["classroom"]["measured"]:
        report["met"]["classroom_bytes"] = report["classroom"]["size_bytes"] <= TARGETS["classroom_bytes"]
    report["engines"] = engine_report or {"measured": False, "why": "--engines ''"}
    report["failed"] = failures_of(runs, classroom_runs, report)
    report |= {"runs": runs, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
               "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg": os.getloadavg(),
                           "chromium": harness.chromium_path()}}
    a.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("summary", "met", "levers", "numerics")}
                     | {"peer": {k: v for k, v in report["peer"].items() if k != "summary"},
                        "classroom": {k: v for k, v in report["classroom"].items() if k != "runs_detail"},
                        "engines": {k: v for k, v in report["engines"].items() if k != "runs_detail"}}, indent=2))
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    # the page left its origin, or a run or the engines step failed (the report says which)
    return 1 if report["summary"]["main"]["off_origin_requests"] or report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
