"""The own-text section's Run on a pasted 50 kB text, on the pool of numerics workers and in the one Panel worker:
.venv/bin/python bench/owntext.py

    .venv/bin/python bench/owntext.py [--runs 4] [--dist dist] [--kb 50] [--out bench/out/owntext.json]

One page per mode (a brand-new Chromium profile each), in the same bench run: "one" (every Worker after the Panel
worker's throws, so the pool cannot start and the Panel worker trains tied and untied in turn), "pool" (this
browser's own pool size: on 2 cores, 1 numerics worker running both parts in turn) and "pool=2" (navigator told 3
cores: tied and untied side by side on 2 workers). Each page opens dist/?embed=owntext, waits for the live lab,
pastes a text of --kb kB (words of the shipped prose sample in a seeded random order) and presses Run --runs times
at the default settings; on the page clock, from each click: the first curve points drawn (`first_points_ms`) and
"Done." (`result_ms`). The first Run starts the pool's workers; the medians are over the later ("warm") Runs, and
each mode's `over_one` is its warm median over "one"'s. The same run in this CPython (views.owntext.iter_runs, no
drawing) is a second baseline. Targets: first points within 1 s, result within 10 s, this machine idle;
the JSON records the load average beside them. A page (or the CPython run) that fails is recorded as failed with
its error's first line (bench/failures.py); the others are kept: `failed` lists each, and the exit code is then 1.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
import failures  # bench/failures.py: a failed page is recorded, the others kept
import harness  # tests/harness.py: serve(), Chromium, the test helpers in every page
from pool import NO_POOL, cores  # bench/pool.py: the modes' init scripts
from weighttying import owntext, state
from weighttying.views import owntext as owntext_view

TARGETS = {"first_points_ms": 1000, "result_ms": 10_000}
MODES = {"one": NO_POOL, "pool": "", "pool=2": cores(3)}
# Polls the section (its panes are in shadow roots, which a MutationObserver on the page does not see) every
# animation frame from the Run click: when the curves slot first holds a figure after the click cleared it, and
# when the status says Done after it said something else (the previous Run's figure and "Done." linger a moment).
ARM_JS = """() => {
  const w = window.__own = {};
  const root = document.getElementById('live-owntext');
  const run = __wtTest.all(root, 'button').find((b) => b.textContent.trim() === 'Run');
  run.addEventListener('click', () => { if (w.click === undefined) w.click = performance.now(); }, {capture: true});
  const poll = () => {
    if (w.click !== undefined) {
      const drawn = __wtTest.deep(root, '[data-slot=curves] svg');
      const done = __wtTest.all(root, '.wt-status').some((e) => e.textContent.includes('Done.'));
      if (!drawn) w.cleared = true;
      if (!done) w.started = true;
      if (w.first === undefined && w.cleared && drawn) w.first = performance.now();
      if (w.started && done && w.first !== undefined) { w.done = performance.now(); return; }
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}"""


def text_of(kb: int, seed: int = 0) -> str:
    """About kb kB of English words (the prose sample's) in a seeded random order, lines of 12 words."""
    words = owntext.shipped("prose").split()
    rng, out, size = np.random.default_rng(seed), [], 0
    while size < kb * 1000:
        line = " ".join(rng.choice(words, 12)) + "\n"
        out.append(line)
        size += len(line.encode())
    return "".join(out)[: kb * 1000]


def cpython(text: str) -> dict:
    """The same Run in this CPython: seconds to its first curve point and to its end."""
    t0, first = time.perf_counter(), None
    for p in owntext_view.iter_runs(state.Owntext(sample="yours", text=text)):
        if first is None and "point" in p:
            first = time.perf_counter() - t0
    return {"first_points_ms": 1000 * first, "result_ms": 1000 * (time.perf_counter() - t0)}


def one_run(page, live: str) -> dict:
    """Press Run; {first_points_ms, result_ms} from the click, on the page clock."""
    page.evaluate(ARM_JS)
    page.locator(live).get_by_role("button", name="Run", exact=True).click()
    try:
        page.wait_for_function("() => window.__own.done !== undefined", timeout=180_000, polling=100)
    except Exception:  # a Run that never ends is recorded with what the section said, and the bench goes on
        said = page.evaluate("() => __wtTest.all(document.getElementById('live-owntext'), '.wt-status')"
                             ".map((e) => e.textContent).join(' | ')")
        return {"first_points_ms": None, "result_ms": None, "timed_out": said}
    w = page.evaluate("() => window.__own")
    return {"first_points_ms": w["first"] - w["click"], "result_ms": w["done"] - w["click"]}


def visit(browser, url: str, text: str, init: str, runs: int) -> dict:
    """One cold page of one mode: boot, paste, Run `runs` times; every Run's times and the pool's size."""
    ctx = harness.new_context(browser)
    try:
        if init:
            ctx.add_init_script(init)
        page = ctx.new_page()
        page.goto(url, wait_until="domcontentloaded")
        harness.wait_booted(page)
        live = "#live-owntext[data-live=true]"
        box = page.locator(f"{live} textarea")
        box.fill(text)
        box.press("Tab")
        page.locator(f"{live} [data-testid=owntext-input]", has_text="Ready").wait_for(timeout=60_000)
        times = [one_run(page, live) for _ in range(runs)]
        pool = page.evaluate("() => ({size: __wt.pool ? __wt.pool.size : 0, started: __wt.pool ? __wt.pool.started : 0})")
        return {"runs": times, **pool}
    finally:
        ctx.close()


def summary(visits: dict) -> dict:
    """Per mode: the warm Runs' medians (every Run but the first), the first Run's, and the warm result over one's
    (a mode whose page failed has no row)."""
    out = {}
    for mode, v in visits.items():
        if "failed" in v:
            continue
        ended = [r for r in v["runs"] if r["result_ms"] is not None]
        warm = ended[1:] or ended or [{k: float("nan") for k in TARGETS}]
        out[mode] = {**{f"warm_{k}": statistics.median(r[k] for r in warm) for k in TARGETS},
                     "first_run_result_ms": v["runs"][0]["result_ms"], "timed_out": len(v["runs"]) - len(ended),
                     "pool_size": v["size"], "workers_started": v["started"]}
    one = out.get("one", {}).get("warm_result_ms")
    for row in out.values():
        row["over_one"] = row["warm_result_ms"] / one if one else None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4, help="Runs per page (the first starts the pool)")
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--kb", type=int, default=50)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "owntext.json")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    text = text_of(args.kb)
    load, visits = [os.getloadavg()], {}
    with harness.serve(args.dist) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=harness.chromium_path(), args=harness.CHROMIUM_ARGS)
        try:
            for mode, init in MODES.items():
                visits[mode] = failures.tried(f"{mode} page", visit, browser, f"{server.url}?embed=owntext", text, init,
                                              args.runs)
                load.append(os.getloadavg())
                print(f"{mode}: {visits[mode]}", file=sys.stderr)
        finally:
            browser.close()
    base = failures.tried("the CPython run", cpython, text)
    rows = summary(visits)
    failed = [f"{mode} page: {v['failed']}" for mode, v in visits.items() if "failed" in v]
    failed += [f"the CPython run: {base['failed']}"] if "failed" in base else []
    out = {"text_bytes": len(text.encode()), "text_chars": len(text), "summary": rows, "visits": visits,
           "cpython": base, "pool2_over_cpython": failures.ratio(rows.get("pool=2", {}).get("warm_result_ms"),
                                                                 base.get("result_ms")),
           "targets": TARGETS, "met": {m: {k: r[f"warm_{k}"] <= v for k, v in TARGETS.items()} for m, r in rows.items()},
           "failed": failed, "loadavg_1m": [x[0] for x in load], "cpus": os.cpu_count()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    print(json.dumps({k: out[k] for k in ("summary", "cpython", "met", "failed", "loadavg_1m")}, indent=1))
    print(f"[owntext] wrote {args.out}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
