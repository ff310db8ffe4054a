"""The page's colours (LIGHT, DARK) and the figures' style rules (FIGURE) are written once, in weighttying.colours:
the build writes them into the page's stylesheet, each figure colour as its var(--name), a figure saved as a file
carries the rules in the light colours, and no stylesheet of site/ types a rule or a colour of them again."""
from __future__ import annotations

import re
from collections import Counter

from weighttying import colours
from harness import ROOT

SITE = ROOT / "site"
SCOPE = ".wt-fig "  # the page's figures are <svg class="wt-fig">; a saved file's root is the figure itself


def rules(css: str) -> list[tuple[str, str]]:
    """(selector, declarations) of every rule of CSS, inside an at-rule or not, comments dropped."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [(sel.strip(), body.strip()) for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)]


def declared(css: str, scope: str = "") -> list[tuple[str, str, str]]:
    """(selector without SCOPE, property, value), sorted, of each declaration of a rule of CSS whose selectors all
    start with SCOPE, for each of its selectors, each var(--name) read as the light colour of that name."""
    out = []
    for selector, body in rules(css):
        parts = [p.strip() for p in selector.split(",")]
        if not all(p.startswith(scope) for p in parts):
            continue
        for declaration in filter(None, (d.strip() for d in body.split(";"))):
            prop, value = (s.strip() for s in declaration.split(":", 1))
            value = re.sub(r"var\(--([\w-]+)\)", lambda m: colours.LIGHT[m[1]], value)
            out += [(p.removeprefix(scope), prop, value) for p in parts]
    return sorted(out)


def figure_classes() -> set[str]:
    return set(re.findall(r"\.(wt-[\w-]+)", " ".join(selector for selector, _ in colours.FIGURE)))


def names_a_figure_class(selector: str) -> bool:
    return bool(set(re.findall(r"\.(wt-[\w-]+)", selector)) & figure_classes())


def test_the_built_stylesheet_and_a_saved_figure_style_figures_by_the_same_rules(dist_dir):
    page = [d for d in declared((dist_dir / "style.css").read_text(), SCOPE) if names_a_figure_class(d[0])]
    saved = [d for d in declared(colours.file_css()) if names_a_figure_class(d[0])]
    # counted, not a set: a rule typed in style.css beside the slot's copy, even the same, is a difference
    extra, missing = Counter(page) - Counter(saved), Counter(saved) - Counter(page)
    assert not extra and not missing, f"only in the page: {sorted(extra)}; only in a saved file: {sorted(missing)}"


def test_the_page_reads_the_figures_colours_from_its_scheme():
    figure = colours.page_css().replace(colours.root_css(), "").replace(colours.dark_css(), "")
    for name in {v for _, d in colours.FIGURE for v in d.values() if v in colours.LIGHT}:
        assert f"var(--{name})" in figure
    assert not re.findall(r"#[0-9a-f]{3,6}\b", figure, re.I), "a figure rule of the page with a literal colour"


def test_no_figure_rule_is_typed_in_the_page_stylesheet():
    typed = [s for s, _ in rules((SITE / "style.css").read_text()) if s.startswith(SCOPE) and names_a_figure_class(s)]
    assert not typed, f"figure rules typed in site/style.css rather than weighttying.colours.FIGURE: {typed}"


def test_each_scheme_sets_every_colour():
    assert list(colours.DARK) == list(colours.LIGHT)
    # the dark rules come after the light :root, which they override at the same specificity
    assert colours.page_css().index(colours.root_css()) < colours.page_css().index(colours.dark_css())


def test_the_stylesheets_give_no_colour_a_second_value():
    palette = {*colours.LIGHT.values(), *colours.DARK.values()}
    for name in ("style.css", "live.css", "shared.css"):
        sheet = (SITE / name).read_text()
        fallbacks = re.findall(r"var\(--([\w-]+)\s*,[^)]*\)", sheet)
        assert not [f for f in fallbacks if f in colours.LIGHT], f"site/{name}: fallbacks for {fallbacks}"
        typed = [v for v in palette if re.search(rf"{v}\b", sheet, re.I)]
        assert not typed, f"site/{name} types the colours {typed} of weighttying.colours"
