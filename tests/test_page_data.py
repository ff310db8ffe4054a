"""The render side's rules are written once, in Python, and the page reads them as data the build emits: the light
colours (colours.LIGHT, written into the stylesheet's /*build:colours*/ slot, and into a figure saved as a file)."""
from __future__ import annotations

import re

import pytest

from weighttying import colours, render
from harness import ROOT
from tools.buildsteps.assemble import coloured
from tools.buildsteps.base import BuildError


def test_the_stylesheet_has_the_light_colours_before_the_dark_ones(dist_dir):
    css = (dist_dir / "style.css").read_text()
    assert css.count(colours.root_css()) == 1 and "/*build:colours*/" not in css
    # the same specificity's print rule and the dark scheme's rules override the light one: they come after it
    assert css.index(colours.root_css()) < css.index(':root[data-wt-scheme="dark"]') < css.index("@media print")


def test_a_stylesheet_without_its_slot_stops_the_build():
    with pytest.raises(BuildError, match="build:colours"):
        coloured(b":root { --fg: #000; }", colours.root_css())


def test_no_light_colour_is_typed_in_the_stylesheet_or_the_renderer():
    sheet, renderer = (ROOT / "site" / "style.css").read_text(), (ROOT / "py" / "weighttying" / "render.py").read_text()
    typed = [v for v in set(colours.LIGHT.values()) if re.search(rf"{v}\b", sheet + renderer, re.I)]
    assert not typed, f"light colours typed outside weighttying.colours: {typed}"


def test_a_figure_saved_as_a_file_is_drawn_in_the_light_colours_alone():
    saved = render.standalone([render.bars({"tied": [1, 2], "untied": [2, 1]}, "t", "x", "y")], "http://x/")
    used = set(re.findall(r"#[0-9a-f]{3,6}\b", render.FILE_CSS, re.I))
    assert used == {colours.LIGHT[k] for k in ("accent", "band", "fg", "line", "muted")} and render.FILE_CSS in saved
