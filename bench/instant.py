"""The instant-page measurements bench/run.py adds to every visit (ms on the page clock, 0 = navigation):

  first_response_ms  the first slider press changing its section's readout, the press made as soon as a
                     slider exists (ours: the playback slider in the HTML; the peer's: Panel's, once built)
  first_live_ms      the first section live (ours: the hand-over from playback; the peer: its app ready)
  all_live_ms        every shown section live
  cls                Chromium's layout-shift entries summed over the boot, shifts right after input excluded
"""
from __future__ import annotations

# Before any page script: collect layout shifts from navigation on.
CLS_INIT_JS = """
window.__benchShifts = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__benchShifts.push(e); })
  .observe({type: 'layout-shift', buffered: true});
"""

# Arm, then the caller presses: resolves at the animation frame after the first change of a slot of the
# section, with [keydown, repainted] (the page's own latency, without the harness's round trips).
ARM_JS = """
(sid) => { window.__benchAnswer = new Promise((resolve, reject) => {
  const root = document.getElementById(`live-${sid}`);
  let keydown = null;
  document.addEventListener('keydown', () => { if (keydown === null) keydown = performance.now(); }, {capture: true, once: true});
  const mo = new MutationObserver((records) => {
    // a slot's content after the key press (the status line and the controls change too)
    const t = (n) => (n.nodeType === 1 ? n : n.parentElement);
    if (keydown === null || !records.some((r) => t(r.target) && t(r.target).closest('.wt-slot'))) return;
    mo.disconnect();
    requestAnimationFrame(() => resolve([keydown, performance.now()]));
  });
  mo.observe(root, {subtree: true, childList: true, characterData: true});
  setTimeout(() => { mo.disconnect(); reject(new Error(`#live-${sid} did not change within 30 s`)); }, 30000);
}); window.__benchAnswer.catch(() => {}); }
"""


def first_response(page, sid: str, timeout_s: float) -> tuple[float, float] | None:
    """Press the section's first playback slider as soon as it exists: (ms when its section had changed,
    ms from the key press to that repaint). None when the page has no playback slider (a build before the
    player: its first response is live)."""
    slider = f"#live-{sid} .wt-player input[type=range]"
    page.wait_for_selector(f"#live-{sid}", state="attached", timeout=timeout_s * 1000)  # parsed up to the section
    if page.query_selector(slider) is None:
        return None
    page.evaluate(ARM_JS, sid)
    page.focus(slider)
    at_max = page.eval_on_selector(slider, "(e) => e.value === e.max")
    page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
    keydown, repainted = page.evaluate("() => window.__benchAnswer")
    return repainted, repainted - keydown


def cls(page) -> float:
    """Layout shift over the visit so far (entries right after the reader's input do not count)."""
    return page.evaluate("() => window.__benchShifts.filter((e) => !e.hadRecentInput).reduce((s, e) => s + e.value, 0)")


def live_times(page) -> tuple[float | None, float | None]:
    """(first section live, every shown section live): ours hands each section over once it is built (the
    one in view first); a build before that (the baseline variant) hands all over at once."""
    t = page.evaluate("() => window.__wt && window.__wt.timings")
    live = [ms for ms in (t or {}).get("live", {}).values() if ms is not None]
    all_live = t and t.get("interactive")
    return (min(live) if live else all_live), all_live


def embed_responses(browser, url: str, sections, timeout_s: float) -> dict[str, tuple[float, float] | None]:
    """{section: first_response of ?embed=SECTION}, each in a fresh context (cold cache), not waiting for Python."""
    out = {}
    for sid in sections:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = ctx.new_page()
            page.goto(f"{url}?embed={sid}", wait_until="commit")
            out[sid] = first_response(page, sid, timeout_s)
        finally:
            ctx.close()
    return out
