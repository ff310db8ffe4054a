"""Long session and containment: random interactions across every live section, in one page.

    WT_SOAK=300 .venv/bin/python -m pytest tests/test_soak.py     # the full soak (several minutes)
    ./dev test                                                    # runs it at WT_SOAK's default, 60

Interactions go to the live sections in rounds (each round touches every section once, in a seeded
random order: WT_SOAK_SEED, default 0), so even the CI size touches every section; within a section
the element is drawn from whatever it offers, found generically so new sections are covered: slider handles (arrow/page/home/end keys), buttons (Run,
Cancel, Reset, radio groups, downloads), checkboxes, number boxes (typed values, some invalid) and
selects. Actions come fast (0-150 ms apart, never waiting for the worker); every 20 the page must be
live, with no error box and no worker crash.

At the end: no console errors, no uncaught errors, no unhandled promise rejections; the
Content-Security-Policy (sent by serve.py and in a <meta> tag) was never violated (page events, console
"Refused to ..." messages from the page or its worker); zero requests left the serving origin; and the
worker's wasm heap (linear memory never shrinks: its high-water mark) grew by less than
LATE_GROWTH_BOUND_MB over the second half of the session and stayed under TOTAL_BOUND_MB, and Python's
live objects grew by less than OBJECTS_BOUND.
"""
from __future__ import annotations

import os
import random
import re
import time
import urllib.request

import pytest

from harness import assert_same_origin
from robust import booted, error_box, live_sections, settle, worker_memory

pytestmark = pytest.mark.browser

N = int(os.environ.get("WT_SOAK", "60"))
SEED = int(os.environ.get("WT_SOAK_SEED", "0"))
FIRST_QUERY = "sweep.grid=fine"
# Wasm linear memory only grows, to the peak of what any one computation needed (the fine sweep grid
# alone lifts it by ~75 MB once). A leak shows as growth that keeps on: so the bound is on the second
# half of the session (after every kind of computation has run), plus a ceiling on the total.
LATE_GROWTH_BOUND_MB = 32
TOTAL_BOUND_MB = 512
OBJECTS_BOUND = 0.25  # fraction of the live Python objects at the start
TYPED = ["0.3", "1e-8", "1e8", "abc", "-5", "1e999", "nan", "0", "12", "3.5", "", "99999999"]
KEYS = ["ArrowLeft", "ArrowRight", "PageUp", "PageDown", "Home", "End", "ArrowUp", "ArrowDown"]


def candidates(page) -> dict[str, list[tuple[str, object]]]:
    """Each live section's interactive elements, as (kind, locator)."""
    out = {}
    for sid in live_sections(page):
        root = f"#live-{sid}"
        out[sid] = ([("slider", h) for h in page.locator(f"{root} .noUi-handle").all()]
                    + [("button", b) for b in page.locator(f"{root} button").all()]
                    + [("check", c) for c in page.locator(f"{root} input[type=checkbox]").all()]
                    + [("type", i) for i in page.locator(f"{root} input.bk-input[type=text], {root} input[type=number]").all()]
                    + [("select", s) for s in page.locator(f"{root} select").all()])
    return {sid: els for sid, els in out.items() if els}


def act(page, rng: random.Random, kind: str, el) -> str:
    if not el.is_visible() or not el.is_enabled():
        return "skip"
    if kind == "slider":
        el.focus()
        key = rng.choice(KEYS)
        for _ in range(rng.randint(1, 4)):
            page.keyboard.press(key)
        return f"slider {key}"
    if kind == "button":
        el.click(timeout=5_000)
        return f"button {el.inner_text()[:20]!r}"
    if kind == "check":
        el.click(timeout=5_000)
        return "checkbox"
    if kind == "type":
        v = rng.choice(TYPED)
        el.fill(v, timeout=5_000)
        el.press("Enter")
        return f"type {v!r}"
    if kind == "select":
        opts = el.locator("option").all_inner_texts()
        if opts:
            el.select_option(label=rng.choice(opts), timeout=5_000)
        return "select"
    return "skip"


def test_csp_sent_and_in_meta(server):
    """Every page carries the CSP both ways, and it names no other origin."""
    with urllib.request.urlopen(server.url) as r:
        header, html = r.headers["Content-Security-Policy"], r.read().decode()
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert header and meta and meta.group(1) == header, (header, meta)
    with urllib.request.urlopen(server.url + "worker.js") as r:
        worker_csp = r.headers["Content-Security-Policy"]
    for csp in (header, worker_csp):
        sources = {tok for d in csp.split(";") for tok in d.split()[1:]}
        assert sources <= {"'self'", "'none'", "'unsafe-inline'", "data:", "blob:", "'wasm-unsafe-eval'",
                           "'unsafe-eval'"}, f"a source beyond this origin: {sources}"
        assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    # the page compiles WebAssembly (Python's runtime, for its workers: site/runtime.js) but never evals script
    assert "'unsafe-eval'" not in header and "script-src 'self' 'wasm-unsafe-eval';" in header, header
    assert "script-src 'self' blob: 'wasm-unsafe-eval' 'unsafe-eval'" in worker_csp, worker_csp


def test_soak(browser, server):
    rng = random.Random(SEED)
    # Booted on the sweep's fine grid: its arrays are the session's one large allocation (~77 MB of wasm heap,
    # which never shrinks), so made at boot they set the high-water mark before mem0 instead of landing, as a
    # single step, in whichever 20 interactions first pick "fine", where it would read as late growth.
    with booted(browser, server, query=FIRST_QUERY) as s:
        page = s.page
        mem0 = worker_memory(page)
        js0 = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
        pool, log, done, samples = candidates(page), [], 0, [(0, mem0["wasm"])]
        sections = sorted(pool)
        assert sections, "no interactive elements in any live section"
        touched: dict[str, int] = {}
        order: list[str] = []  # sections in shuffled rounds: every round touches each section once
        skips = 0
        t0 = time.monotonic()
        while done < N:
            if not order:
                order = rng.sample(sections, len(sections))
            sid = order[-1]
            if sid not in pool:
                pool = candidates(page)
                if sid not in pool:
                    raise AssertionError(f"no live controls left in {sid} after {done} interactions: status "
                                         f"{page.evaluate('() => window.__wt.status')}, crashes "
                                         f"{page.evaluate('() => window.__wt.crashes')}, box {error_box(page)}, "
                                         f"url {page.url}; last: {log[-10:]}")
            kind, el = rng.choice(pool[sid])
            try:
                what = act(page, rng, kind, el)
            except Exception as e:  # an element that went away mid-action: draw again
                what = f"skip ({type(e).__name__})"
            if what.startswith("skip"):
                skips += 1
                assert skips < 500, f"nothing in {sid} could be used 500 times in a row; last: {log[-10:]}"
                pool = candidates(page)
                continue
            order.pop()
            skips = 0
            done += 1
            touched[sid] = touched.get(sid, 0) + 1
            log.append(f"{sid}: {what}")
            time.sleep(rng.random() * 0.15)
            if done % 20 == 0 or done == N:
                settle(page, timeout_s=120)
                box = error_box(page)
                assert page.evaluate("() => window.__wt.status") == "ready", (done, log[-20:], box)
                assert not box["shown"], f"after {done} interactions: {box}; last: {log[-20:]}"
                assert page.evaluate("() => window.__wt.crashes") == [], log[-20:]
                samples.append((done, worker_memory(page)["wasm"]))
                pool = candidates(page)
        elapsed = time.monotonic() - t0
        settle(page)
        mem1 = worker_memory(page)
        js1 = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
        watch = s.watch()
        grow_mb = (mem1["wasm"] - mem0["wasm"]) / 2**20
        half = next(w for d, w in samples if d >= done // 2)
        late_mb = (mem1["wasm"] - half) / 2**20
        grow_obj = (mem1["objects"] - mem0["objects"]) / mem0["objects"]
        print(f"[soak] {done} interactions in {elapsed:.0f} s over {len(live_sections(page))} live sections "
              f"(per section: {touched}); "
              f"wasm heap {mem0['wasm'] / 2**20:.0f} -> {mem1['wasm'] / 2**20:.0f} MB (+{grow_mb:.1f}, "
              f"total {TOTAL_BOUND_MB}), second half +{late_mb:.1f} MB (bound {LATE_GROWTH_BOUND_MB}); samples (MB) "
              f"{[(d, round(w / 2**20)) for d, w in samples]}; Python objects {mem0['objects']} -> {mem1['objects']} ({grow_obj:+.1%}, bound "
              f"{OBJECTS_BOUND:.0%}); page JS heap {js0 / 2**20:.1f} -> {js1 / 2**20:.1f} MB; "
              f"patches sent {page.evaluate('() => window.__wt.patchesSent')}, queue high-water "
              f"{page.evaluate('() => window.__wt.queueHighWater')}")
        assert set(touched) == set(live_sections(page)), f"sections never touched: {set(live_sections(page)) - set(touched)}"
        assert not s.console_errors(), s.console_errors()[:10]
        assert not s.rec.page_errors, s.rec.page_errors
        assert not watch["rejections"] and not watch["errors"], watch
        assert not watch["csp"] and not s.csp_console(), (watch["csp"], s.csp_console())
        assert page.evaluate("() => window.__wt.cspViolations") == []
        assert not s.rec.aborted, s.rec.aborted
        assert_same_origin(s.rec, server.origin)
        assert late_mb < LATE_GROWTH_BOUND_MB, f"wasm heap grew {late_mb:.1f} MB over the second half: a leak?"
        assert mem1["wasm"] / 2**20 < TOTAL_BOUND_MB, f"wasm heap reached {mem1['wasm'] / 2**20:.0f} MB"
        assert grow_obj < OBJECTS_BOUND, f"Python objects grew {grow_obj:.1%} over {done} interactions"
