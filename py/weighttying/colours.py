"""The page's colours, light and dark, and the figures' style rules, written here alone. The build writes them into
the page's stylesheet (site/style.css's /*build:colours*/ slot: the light :root, the dark scheme's rules, then the
figure rules with each colour as its var(--name), which print and projector mode override later in style.css), and
`render.standalone` writes the same figure rules into a figure saved as a file, in the light colours whatever scheme
the page showed."""
from __future__ import annotations

from typing import Callable

LIGHT = {"fg": "#1d1d1f", "bg": "#fdfdfc", "muted": "#56565b", "accent": "#0b63b6", "warn": "#a33",
         "band": "#b36b00", "line": "#d4d4d8", "button": "#f0f0f2", "focus": "#0b63b6", "agrees": "#1f6f3f",
         "differs": "#9a4b00",
         # a verdict, good or bad (the gradient check's badge, the code lab's verdict): its mark, its box, its words
         "good": "#2f855a", "good-bg": "#e7f5ea", "good-fg": "#14532d", "bad": "#c53030", "bad-bg": "#fdecea",
         "bad-fg": "#7f1d1d"}
DARK = {"fg": "#e8e8ea", "bg": "#141416", "muted": "#a8a8b0", "accent": "#6bb0ff", "warn": "#ff8a80",
        "band": "#e69f00", "line": "#3a3a40", "button": "#26262b", "focus": "#8cc4ff", "agrees": "#8fd6a8",
        "differs": "#ffb870",
        "good": "#2f855a", "good-bg": "#12301f", "good-fg": "#bdf0cf", "bad": "#c53030", "bad-bg": "#3b1212",
        "bad-fg": "#ffd1d1"}

DASH = "5 4"  # a third and fourth series (own-text's held-out curves beside its training ones): the first two, dashed

# render/'s classes, each rule (selector, {property: value}); a value that is a name of LIGHT is that colour.
FIGURE = (
    (".wt-grid", {"stroke": "line", "stroke-width": ".75"}),  # light grid lines under the data
    (".wt-tick, .wt-axis", {"fill": "muted"}),
    (".wt-head", {"font-weight": "600"}),  # a panel's heading
    (".wt-s0", {"stroke": "accent"}),
    (".wt-s1", {"stroke": "band"}),
    ("rect.wt-s0, circle.wt-s0, text.wt-s0", {"fill": "accent"}),
    ("rect.wt-s1, text.wt-s1", {"fill": "band"}),
    (".wt-s2", {"stroke": "accent", "stroke-dasharray": DASH}),
    (".wt-s3", {"stroke": "band", "stroke-dasharray": DASH}),
    ("text.wt-s2", {"fill": "accent"}),
    ("text.wt-s3", {"fill": "band"}),
    (".wt-band", {"fill": "band", "fill-opacity": ".25"}),
    (".wt-at", {"fill": "none", "stroke": "fg", "stroke-width": "3"}),  # the marker at the current setting
    (".wt-ref", {"stroke": "muted", "stroke-dasharray": "4 3"}),  # a strip chart's reference value, across it
    # Text inside a plot (the keys, and axis values moved in; render/labels.py) is drawn over the curves on a halo of
    # the background, which a series' own stroke must not outline instead: text.wt-key outranks .wt-s0.
    ("text.wt-key", {"paint-order": "stroke", "stroke": "bg", "stroke-width": "3px"}),
)


def scheme_css(selector: str, scheme: str, palette: dict[str, str]) -> str:
    """A rule that sets the colour scheme and a custom property (--fg, --bg, ...) per colour of the palette."""
    return f"{selector} {{ color-scheme: {scheme}; " + " ".join(f"--{n}: {v};" for n, v in palette.items()) + " }"


def root_css() -> str:
    """The light scheme's :root rule, as the page's stylesheet holds it."""
    return scheme_css(":root", "light", LIGHT)


def dark_css() -> str:
    """The dark scheme's rules: where page.js resolved it (theme=dark, or theme=auto with a dark system) or, should
    page.js not run, where the system prefers dark."""
    return (scheme_css(':root[data-wt-scheme="dark"]', "dark", DARK) + "\n@media (prefers-color-scheme: dark) { "
            + scheme_css(":root:not([data-wt-scheme])", "dark", DARK) + " }")


def figure_css(colour: Callable[[str], str], scope: str = "") -> str:
    """FIGURE as CSS text: each selector under `scope`, each colour name as colour(name) writes it."""
    def rule(selector: str, declarations: dict[str, str]) -> str:
        selectors = ",".join(scope + part.strip() for part in selector.split(","))
        values = ";".join(f"{prop}:{colour(v) if v in LIGHT else v}" for prop, v in declarations.items())
        return f"{selectors}{{{values}}}"
    return "".join(rule(selector, declarations) for selector, declarations in FIGURE)


def page_css() -> str:
    """What the build writes into style.css's /*build:colours*/ slot: the light :root, the dark scheme's rules, then
    the figure rules on .wt-fig in var(--name) form, so that either scheme's colours reach them."""
    return "\n".join([root_css(), dark_css(), figure_css(lambda name: f"var(--{name})", ".wt-fig "), ""])


def file_css() -> str:
    """The figure rules in the light colours, for a figure saved as a file, whose text (which the page draws in its
    currentColor) is in the light text colour."""
    return f"text{{fill:{LIGHT['fg']}}}" + figure_css(LIGHT.__getitem__)
