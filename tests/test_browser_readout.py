"""Figures you can read, in Chromium: pointing at a heatmap cell, a curve's point or a bar shows the value CPython
computes for it through the section's view, before Python (?live=click) and live (inside Panel's shadow roots);
keyboard focus and arrow keys show it too; a tap shows it on a 360 px touch screen; the tooltip covers
neither what it reports nor leaves the viewport, and the aria-live region receives its text."""
from __future__ import annotations

import functools

import pytest

from weighttying import render
from weighttying import state
from weighttying.views import kit, repeat, savings, sweep

from conftest import live_page
from harness import Recorder, new_context
from robust import session

pytestmark = pytest.mark.browser

# The figure SVG of slot SLOT in #live-SID (shadow roots walked), scrolled to the middle of the viewport; the
# viewport position of the K-th drawn item (heatmap cell, bar of the first series, point of the first line)
# and that item's own box on screen.
POINT_JS = """([sid, slot, kind, k]) => {
  const svg = __wtTest.deep(document.getElementById(`live-${sid}`), `.wt-slot[data-slot="${slot}"] svg[data-fig]`);
  if (!svg) return null;
  svg.scrollIntoView({block: 'center'});
  const m = svg.getScreenCTM();
  let x, y, w = 6, h = 6;
  if (kind === 'lines') { const p = svg.querySelector('polyline').points.getItem(k); x = p.x; y = p.y; }
  else { const b = svg.querySelectorAll(kind === 'bars' ? 'rect.wt-s0' : 'rect')[k].getBBox();
         x = b.x + b.width / 2; y = Math.min(b.y + b.height / 2, 218); w = b.width; h = Math.max(b.height, 2); }
  const sx = m.a * x + m.e, sy = m.d * y + m.f, sw = m.a * w, sh = m.d * h;
  return {x: sx, y: sy, item: {left: sx - sw / 2, right: sx + sw / 2, top: sy - sh / 2, bottom: sy + sh / 2}};
}"""
FOCUS_JS = POINT_JS.replace("return {x: sx", "svg.focus(); return {x: sx")
TIP_JS = """() => { const t = document.querySelector('[data-testid=readout]'), r = t.getBoundingClientRect();
  return {shown: !t.hidden, text: t.textContent, box: {left: r.left, right: r.right, top: r.top, bottom: r.bottom},
          live: document.querySelector('[data-testid=readout-live]').textContent,
          view: [document.documentElement.clientWidth, document.documentElement.clientHeight]}; }"""


@functools.lru_cache(maxsize=1)
def expected() -> dict[str, dict]:
    """What each figure shows at the items the tests point at, computed by the views in CPython."""
    g = sweep.scales(state.Sweep().grid)
    z = g["resid"].T
    ny, nx = z.shape

    def cell(i, j):
        return [f"σ = {render.shown(g['sigmas'][j])}", f"inScale = {render.shown(g['in_scales'][i])}", f"scale {render.shown(z[i, j])}"]

    values = savings.settled(state.Savings())
    share = savings.series(values)["share of parameters saved"]
    st = state.Repeat()
    points = kit.with_results(repeat, st)["points"]
    h = {"at init": repeat.histogram(repeat.init_ranks_now(st)),
         f"after {points[-1]['step']} steps": repeat.histogram(points[-1]["ranks"]["tied" if st.tied else "untied"])}
    names = repeat.bin_names(h["at init"]["edges"])
    return {"heatmap": {"k": (ny // 2) * nx + 1, "texts": cell(ny // 2, 1), "keys": cell(ny // 2 + 1, nx // 2 + 1)},
            "lines": {"k": 40, "texts": [f"V {savings.CURVE_V[40]}:", f"share of parameters saved {render.shown(share[40])}"]},
            "bars": {"k": 0, "texts": [f"ranks {names[0]}:"] + [f"{label}: {render.shown(x['counts'][0])} tokens"
                                                                   for label, x in h.items()]}}


FIGURES = {"heatmap": ("sweep", "resid"), "lines": ("savings", "curve"), "bars": ("repeat", "hist")}


def overlaps(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def read(page, item: dict | None = None) -> dict:
    """The tooltip once shown (and the aria-live region once it says the same), checked to lie inside the
    viewport and, given the item it reports, off it."""
    page.wait_for_function("() => { const t = document.querySelector('[data-testid=readout]'); return t && !t.hidden"
                           " && t.textContent === document.querySelector('[data-testid=readout-live]').textContent; }",
                           timeout=5000)
    tip = page.evaluate(TIP_JS)
    w, h = tip["view"]
    b = tip["box"]
    assert 0 <= b["left"] and b["right"] <= w and 0 <= b["top"] and b["bottom"] <= h, tip
    if item:
        assert not overlaps(b, item), (tip, item)
    return tip


def point_at(page, kind: str) -> dict:
    sid, slot = FIGURES[kind]
    at = page.evaluate(POINT_JS, [sid, slot, kind, expected()[kind]["k"]])
    assert at, f"no figure {slot} in #live-{sid}"
    page.mouse.move(at["x"], at["y"])
    return read(page, at["item"])


def check_pointing(page) -> None:
    for kind in FIGURES:
        tip = point_at(page, kind)
        for text in expected()[kind]["texts"]:
            assert text in tip["text"], (kind, text, tip["text"])


def check_keys(page) -> None:
    """Focus the heatmap (its cursor starts in the middle), then one cell right and one up."""
    sid, slot = FIGURES["heatmap"]
    page.mouse.move(0, 0)
    page.evaluate(FOCUS_JS, [sid, slot, "heatmap", 0])
    read(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    tip = read(page)
    for text in expected()["heatmap"]["keys"]:
        assert text in tip["text"], (text, tip["text"])
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=readout]", state="hidden")


def test_pointing_and_keys_read_the_figures_before_python(browser, server):
    with session(browser) as s:
        s.page.goto(server.url + "?live=click", wait_until="load")
        s.page.wait_for_selector("#live-sweep .wt-prerender svg[data-fig]")
        check_pointing(s.page)
        s.page.mouse.move(2, 2)  # off every figure: the readout goes
        s.page.wait_for_selector("[data-testid=readout]", state="hidden")
        check_keys(s.page)
        assert s.page.evaluate("() => window.__wt.status") == "paused"


# The index of the heatmap cell under viewport point (x, y) in slot SLOT of #live-SID, from the drawn rects.
UNDER_JS = """([sid, slot, x, y]) => {
  const svg = document.querySelector(`#live-${sid} .wt-slot[data-slot="${slot}"] svg[data-fig]`);
  return [...svg.querySelectorAll('rect')].findIndex((r) => { const b = r.getBoundingClientRect();
    return b.left <= x && x < b.right && b.top <= y && y < b.bottom; }); }"""


def test_the_readout_follows_a_figure_redrawn_under_the_pointer(browser, server):
    """Before Python: point at a cell of the coarse grid, pick the fine grid (the player swaps the figure):
    the readout now reports the fine grid's cell under the pointer, as CPython computes it."""
    fine = sweep.scales("fine")
    z = fine["resid"].T
    with session(browser) as s:
        s.page.goto(server.url + "?live=click", wait_until="load")
        tip = point_at(s.page, "heatmap")
        at = s.page.evaluate(POINT_JS, ["sweep", "resid", "heatmap", expected()["heatmap"]["k"]])
        s.page.select_option("#wt-p-sweep-grid", "fine")
        s.page.wait_for_function("(old) => document.querySelector('[data-testid=readout]').textContent !== old",
                                 arg=tip["text"])
        k = s.page.evaluate(UNDER_JS, ["sweep", "resid", at["x"], at["y"]])
        i, j = divmod(k, z.shape[1])
        text = read(s.page)["text"]
        for part in (f"σ = {render.shown(fine['sigmas'][j])}", f"inScale = {render.shown(fine['in_scales'][i])}",
                     f"scale {render.shown(z[i, j])}"):
            assert part in text, (part, text)


live = live_page()


def test_pointing_and_keys_read_the_live_figures(live):
    for sid, _ in FIGURES.values():
        live.page.wait_for_selector(f"#live-{sid}[data-live=true]")
    assert not live.page.locator("#live-sweep .wt-prerender").count()
    check_pointing(live.page)
    check_keys(live.page)


def test_a_tap_reads_a_cell_on_a_phone(browser, server):
    ctx = new_context(browser, Recorder(), viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True,
                      device_scale_factor=2)
    try:
        page = ctx.new_page()
        page.goto(server.url + "?live=click", wait_until="load")
        for kind in FIGURES:
            sid, slot = FIGURES[kind]
            at = page.evaluate(POINT_JS, [sid, slot, kind, expected()[kind]["k"]])
            page.touchscreen.tap(at["x"], at["y"])
            tip = read(page, at["item"])
            for text in expected()[kind]["texts"]:
                assert text in tip["text"], (kind, text, tip["text"])
        page.touchscreen.tap(2, 2)  # a tap elsewhere puts it away
        page.wait_for_selector("[data-testid=readout]", state="hidden")
    finally:
        ctx.close()
