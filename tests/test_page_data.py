"""The render side's rules are written once, in Python, and the page reads them as data the build emits: the status
lines' words (controls.SAYS, the page config's "says": site/player.js fills them in, tests/node/says.test.mjs), what
the readout reads a figure's data by (render.readout_rules, "readout": tests/test_readout_js.py) and the light
colours (colours.LIGHT, written into the stylesheet's /*build:colours*/ slot, and into a figure saved as a file)."""
from __future__ import annotations

import html
import json
import re

import pytest

from weighttying import colours, controls, render
from harness import ROOT
from tools.buildsteps.assemble import coloured
from tools.buildsteps.base import BuildError


def config_of(dist_dir) -> dict:
    page = (dist_dir / "index.html").read_text()
    return json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>', page, re.S)[1])


def test_the_page_config_carries_the_readout_rules(dist_dir):
    assert config_of(dist_dir)["readout"] == render.readout_rules()


def test_the_page_config_carries_the_status_words(dist_dir):
    assert config_of(dist_dir)["says"] == controls.SAYS


def test_the_stylesheet_has_the_light_colours_before_the_dark_ones(dist_dir):
    css = (dist_dir / "style.css").read_text()
    assert css.count(colours.root_css()) == 1 and "/*build:colours*/" not in css
    # the same specificity's print rule and the dark scheme's rules override the light one: they come after it
    assert css.index(colours.root_css()) < css.index(':root[data-wt-scheme="dark"]') < css.index("@media print")


def test_a_stylesheet_without_its_slot_stops_the_build():
    with pytest.raises(BuildError, match="build:colours"):
        coloured(b":root { --fg: #000; }", colours.root_css())


def test_no_light_colour_is_typed_in_the_stylesheet_or_the_renderer():
    sheet = (ROOT / "site" / "style.css").read_text()
    renderer = "".join(p.read_text() for p in sorted((ROOT / "py" / "weighttying" / "render").glob("*.py")))
    typed = [v for v in set(colours.LIGHT.values()) if re.search(rf"{v}\b", sheet + renderer, re.I)]
    assert not typed, f"light colours typed outside weighttying.colours: {typed}"


def test_a_figure_saved_as_a_file_is_drawn_in_the_light_colours_alone():
    saved = render.standalone([render.bars({"tied": [1, 2], "untied": [2, 1]}, "t", "x", "y")], "http://x/")
    used = set(re.findall(r"#[0-9a-f]{3,6}\b", saved, re.I))  # its rules, its background and the keys' halo
    assert used == {colours.LIGHT[k] for k in ("accent", "band", "bg", "fg", "line", "muted")} and render.FILE_CSS in saved


def test_no_status_line_is_typed_in_the_page_scripts():
    scripts = "".join(p.read_text() for p in (ROOT / "site").glob("*.js"))
    lines = [w for v in controls.SAYS.values() for w in (v.values() if isinstance(v, dict) else [v])]
    typed = [piece for line in lines for piece in re.split(r"\{\w+\}", line) if len(piece) > 12 and piece in scripts]
    assert not typed, f"status words typed in site/*.js instead of read from the page config: {typed}"


def test_the_prerendered_status_line_is_the_one_while_the_lab_loads():
    said = re.search(r'data-testid="player-status">([^<]*)<', controls.html_of("sweep", {}))[1]
    assert html.unescape(said) == controls.SAYS["computed"].format(takes_over=controls.SAYS["takes_over"]["loading"])


def test_the_hide_lists_words_in_the_page_script_are_pythons():
    """page.js acts on the hide list's words before Python (the prose, the controls): exactly state.HIDE_WORDS, and
    it splits the list by the codec's separator (state.HIDE_SEP), never a typed one."""
    from weighttying import state
    script = (ROOT / "site" / "page.js").read_text()
    assert set(re.findall(r'hide\.includes\("(\w+)"\)', script)) == set(state.HIDE_WORDS)
    assert "split(rules.hideSep)" in script and 'split(",")' not in script
