"""A figure is styled alike in the page and saved as a file, in Chromium: for each rule of weighttying.colours.FIGURE,
every element it styles computes, for each property it sets, the same values in the prerendered page (light scheme:
the rule from style.css's colours slot, its colours read from var(--name)) as in the .svg file render.standalone
writes of the same figures (the rule with the light colours inline)."""
from __future__ import annotations

import re

import pytest

from weighttying import colours, render

pytestmark = pytest.mark.browser

# {"<selector> <property>": the sorted distinct computed values of that property on the elements SCOPE + selector
# matches}, keys and their halo of the background included.
STYLES_JS = """([rules, scope]) => { const out = {};
  for (const [selector, props] of rules) for (const part of selector.split(',').map(s => s.trim())) for (const prop of props) {
    const els = [...document.querySelectorAll(scope + part)];
    out[`${part} ${prop}`] = [...new Set(els.map(e => getComputedStyle(e).getPropertyValue(prop)))].sort();
  }
  return out; }"""
RULES = [[selector, list(declarations)] for selector, declarations in colours.FIGURE]


def test_a_saved_figure_computes_the_styles_the_page_shows(page, server, dist_dir):
    page.goto(server.url + "?live=click", wait_until="domcontentloaded")  # the prerendered figures, no Python
    page.locator("svg.wt-fig").first.wait_for()
    shown = page.evaluate(STYLES_JS, [RULES, ".wt-fig "])
    figures = re.findall(r'<svg class="wt-fig.*?</svg>', (dist_dir / "index.html").read_text(), re.S)
    saved = render.standalone(figures, server.url)
    page.route(server.url + "saved.svg", lambda route: route.fulfill(body=saved, content_type="image/svg+xml"))
    page.goto(server.url + "saved.svg")
    in_file = page.evaluate(STYLES_JS, [RULES, ""])
    assert all(shown.values()), f"no element of the page for {[k for k, v in shown.items() if not v]}"
    assert shown == in_file, {k: (shown[k], in_file[k]) for k in shown if shown[k] != in_file[k]}


def rgb(hex_colour: str) -> str:
    """#rrggbb as getComputedStyle writes it."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.mark.parametrize("system, theme, palette", [("light", "dark", colours.DARK), ("dark", "light", colours.LIGHT)])
def test_the_verdict_badge_takes_the_scheme_the_reader_chose(page, server, system, theme, palette):
    # ?theme= outranks the system's preference for the badge too: its colours are the page's, not a media query's
    page.emulate_media(color_scheme=system)
    page.goto(server.url + f"?live=click&theme={theme}", wait_until="domcontentloaded")
    badge = page.locator(".wt-gc-badge").first
    badge.wait_for()
    shown = badge.evaluate("e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]")
    assert shown == [rgb(palette["good-bg"]), rgb(palette["good-fg"])]
