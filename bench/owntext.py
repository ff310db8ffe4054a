"""The own-text section's Run on a pasted 50 kB text, in the browser's worker: .venv/bin/python bench/owntext.py

    .venv/bin/python bench/owntext.py [--runs 3] [--dist dist] [--kb 50]   ->  bench/out/owntext.json

Per run, a brand-new Chromium profile opens dist/?embed=owntext, waits for the live lab, pastes a text of
--kb kB (words of the shipped prose sample in a seeded random order, so it is not the sample itself) and
presses Run at the default settings; on the page clock, from the click: the first curve points drawn
(`first_points_ms`) and "Done." (`result_ms`). The same run in this CPython (views.owntext.iter_runs, no
drawing) is the baseline: `worker_over_cpython` = result_ms / CPython's. Targets (issue 28): first points
within 1 s, result within 10 s, on this machine idle; the JSON records the load average beside them.
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
import harness  # noqa: E402  (tests/harness.py: serve(), Chromium, the test helpers in every page)
from weighttying import owntext as O  # noqa: E402
from weighttying import state as S  # noqa: E402
from weighttying.views import owntext as V  # noqa: E402

TARGETS = {"first_points_ms": 1000, "result_ms": 10_000}
# Polls the section (its panes are in shadow roots, which a MutationObserver on the page does not see) every
# animation frame from the Run click: when the curves slot first holds a figure, and when the status says Done.
ARM_JS = """() => {
  const w = window.__own = {};
  const root = document.getElementById('live-owntext');
  document.addEventListener('click', () => { if (w.click === undefined) w.click = performance.now(); }, {capture: true});
  const poll = () => {
    if (w.click !== undefined) {
      if (w.first === undefined && __wtTest.deep(root, '[data-slot=curves] svg')) w.first = performance.now();
      if (__wtTest.all(root, '.wt-status').some((e) => e.textContent.includes('Done.'))) { w.done = performance.now(); return; }
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}"""


def text_of(kb: int, seed: int = 0) -> str:
    """About kb kB of English words (the prose sample's) in a seeded random order, lines of 12 words."""
    words = O.shipped("prose").split()
    rng, out, size = np.random.default_rng(seed), [], 0
    while size < kb * 1000:
        line = " ".join(rng.choice(words, 12)) + "\n"
        out.append(line)
        size += len(line.encode())
    return "".join(out)[: kb * 1000]


def cpython(text: str) -> dict:
    """The same Run in this CPython: seconds to its first curve point and to its end."""
    t0, first = time.perf_counter(), None
    for p in V.iter_runs(S.Owntext(sample="yours"), text):
        if first is None and "point" in p:
            first = time.perf_counter() - t0
    return {"first_points_ms": 1000 * first, "result_ms": 1000 * (time.perf_counter() - t0)}


def visit(browser, url: str, text: str) -> dict:
    """One cold visit: boot, paste, Run; {first_points_ms, result_ms} from the click."""
    ctx = harness.new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(url, wait_until="domcontentloaded")
        harness.wait_booted(page)
        live = "#live-owntext[data-live=true]"
        box = page.locator(f"{live} textarea")
        box.fill(text)
        box.press("Tab")
        page.locator(f"{live} [data-testid=owntext-input]", has_text="Ready").wait_for(timeout=60_000)
        page.evaluate(ARM_JS)
        page.locator(live).get_by_role("button", name="Run", exact=True).click()
        page.wait_for_function("() => window.__own.done !== undefined", timeout=300_000, polling=100)
        w = page.evaluate("() => window.__own")
        return {"first_points_ms": w["first"] - w["click"], "result_ms": w["done"] - w["click"]}
    finally:
        ctx.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--kb", type=int, default=50)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    text = text_of(args.kb)
    load = os.getloadavg()
    runs = []
    with harness.serve(args.dist) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=harness.chromium_path())
        try:
            for i in range(args.runs):
                runs.append(visit(browser, f"{server.url}?embed=owntext", text))
                print(f"run {i + 1}: {runs[-1]}", file=sys.stderr)
        finally:
            browser.close()
    base = cpython(text)
    median = {k: statistics.median(r[k] for r in runs) for k in TARGETS}
    out = {"text_bytes": len(text.encode()), "text_chars": len(text), "runs": runs, "median": median,
           "cpython": base, "worker_over_cpython": median["result_ms"] / base["result_ms"],
           "targets": TARGETS, "met": {k: median[k] <= v for k, v in TARGETS.items()},
           "loadavg_before": load, "loadavg_after": os.getloadavg(), "cpus": os.cpu_count()}
    dest = ROOT / "bench" / "out" / "owntext.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=1))
    print(json.dumps({k: out[k] for k in ("median", "cpython", "worker_over_cpython", "met", "loadavg_before")}))


if __name__ == "__main__":
    main()
