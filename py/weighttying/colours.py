"""The page's colours in its light scheme, written here alone: the build writes them into the page's stylesheet
(the light :root of site/style.css, in its /*build:colours*/ slot), and `render.standalone` into a figure saved as a
file, which keeps the light look whatever scheme the page showed. The dark scheme overrides them in style.css."""
from __future__ import annotations

LIGHT = {"fg": "#1d1d1f", "bg": "#fdfdfc", "muted": "#56565b", "accent": "#0b63b6", "warn": "#a33",
         "band": "#b36b00", "line": "#d4d4d8", "button": "#f0f0f2", "focus": "#0b63b6", "agrees": "#1f6f3f",
         "differs": "#9a4b00"}


def root_css() -> str:
    """The light scheme's :root rule (CSS custom properties --fg, --bg, ...), as the page's stylesheet holds it."""
    return ":root { color-scheme: light; " + " ".join(f"--{name}: {value};" for name, value in LIGHT.items()) + " }"


def file_css() -> str:
    """The page's figure rules (style.css's .wt-fig ones) in the light colours, for a figure saved as a file."""
    accent, band, fg, line, muted = (LIGHT[k] for k in ("accent", "band", "fg", "line", "muted"))
    return (f".wt-s0{{stroke:{accent}}}.wt-s1{{stroke:{band}}}rect.wt-s0,circle.wt-s0{{fill:{accent}}}"
            f"rect.wt-s1,text.wt-s1{{fill:{band}}}.wt-s2{{stroke:{accent};stroke-dasharray:5 4}}"
            f".wt-s3{{stroke:{band};stroke-dasharray:5 4}}text.wt-s2{{fill:{accent}}}text.wt-s3{{fill:{band}}}"
            f".wt-band{{fill:{band};fill-opacity:.25}}"
            f".wt-at{{fill:none;stroke:{fg};stroke-width:3}}text{{fill:{fg}}}text.wt-s0{{fill:{accent}}}"
            f".wt-grid{{stroke:{line};stroke-width:.75}}.wt-tick,.wt-axis{{fill:{muted}}}.wt-head{{font-weight:600}}")
