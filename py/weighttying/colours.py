"""The page's colours in its light scheme and the figures' style rules, written here alone. The build writes both
into the page's stylesheet (site/style.css's /*build:colours*/ slot: the light :root, then the rules with each colour
as its var(--name), which the dark scheme, print and projector mode override in style.css), and `render.standalone`
writes the same rules into a figure saved as a file, in the light colours whatever scheme the page showed."""
from __future__ import annotations

from typing import Callable

LIGHT = {"fg": "#1d1d1f", "bg": "#fdfdfc", "muted": "#56565b", "accent": "#0b63b6", "warn": "#a33",
         "band": "#b36b00", "line": "#d4d4d8", "button": "#f0f0f2", "focus": "#0b63b6", "agrees": "#1f6f3f",
         "differs": "#9a4b00"}

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
)


def root_css() -> str:
    """The light scheme's :root rule (CSS custom properties --fg, --bg, ...), as the page's stylesheet holds it."""
    return ":root { color-scheme: light; " + " ".join(f"--{name}: {value};" for name, value in LIGHT.items()) + " }"


def figure_css(colour: Callable[[str], str], scope: str = "") -> str:
    """FIGURE as CSS text: each selector under `scope`, each colour name as colour(name) writes it."""
    def rule(selector: str, declarations: dict[str, str]) -> str:
        selectors = ",".join(scope + part.strip() for part in selector.split(","))
        values = ";".join(f"{prop}:{colour(v) if v in LIGHT else v}" for prop, v in declarations.items())
        return f"{selectors}{{{values}}}"
    return "".join(rule(selector, declarations) for selector, declarations in FIGURE)


def page_css() -> str:
    """What the build writes into style.css's /*build:colours*/ slot: the light :root, then the figure rules on
    .wt-fig in var(--name) form, so that the dark scheme's colours (set later in style.css) reach them."""
    return root_css() + "\n" + figure_css(lambda name: f"var(--{name})", ".wt-fig ") + "\n"


def file_css() -> str:
    """The figure rules in the light colours, for a figure saved as a file, whose text (which the page draws in its
    currentColor) is in the light text colour."""
    return f"text{{fill:{LIGHT['fg']}}}" + figure_css(LIGHT.__getitem__)
