"""The page keeps still while Python boots: the layout shift Chromium reports without input
(PerformanceObserver 'layout-shift', hadRecentInput false), summed from navigation until every section is
live, is at most 0.01 at 1280 px, at 360 px and in projector mode. A status line that changed width and
wrapped, or a boot box that vanished once live, moved the whole article (0.69 at 1280 px); the message
names each shift's moved elements and their old and new top edges.
"""
from __future__ import annotations

import pytest

from harness import Recorder, recorded, wait_booted

pytestmark = pytest.mark.browser

MAX_CLS = 0.01  # bench/run.py's `cls` target

SHIFTS_JS = """
window.__shifts = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__shifts.push({
  at: Math.round(e.startTime), value: e.value, input: e.hadRecentInput,
  moved: e.sources.map((s) => { const n = s.node, el = n && (n.nodeType === 1 ? n : n.parentElement);
    return `<${el ? el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') : '?'}> y ${Math.round(s.previousRect.y)} -> `
      + `${Math.round(s.currentRect.y)}, ${Math.round(s.previousRect.width)} -> ${Math.round(s.currentRect.width)} px wide`; })}); })
  .observe({type: 'layout-shift', buffered: true});
"""


@pytest.mark.parametrize("width,height,query", [(1280, 900, ""), (360, 760, ""), (1280, 900, "?projector=1")],
                         ids=["1280", "360", "projector"])
def test_nothing_moves_while_the_sections_go_live(browser, server, width, height, query):
    ctx, page = recorded(browser, Recorder(), viewport={"width": width, "height": height})
    try:
        ctx.add_init_script(SHIFTS_JS)
        page.goto(server.url + query, wait_until="commit")
        wait_booted(page)  # ready: every section has been handed over to Python
        page.wait_for_timeout(500)  # fixed: the frames after the last hand-over are drawn and their shifts observed
        shifts = [s for s in page.evaluate("window.__shifts") if not s["input"]]
        total = sum(s["value"] for s in shifts)
        print(f"[still] {width} px{query}: layout shift {total:.4f} over {len(shifts)} entries")
        assert total <= MAX_CLS, (f"{width} px{query}: layout shift {total:.3f} while booting (at most {MAX_CLS}):\n"
                                  + "\n".join(f"at {s['at']} ms, {s['value']:.3f}: " + "; ".join(s["moved"][:4])
                                              for s in shifts))
    finally:
        ctx.close()
