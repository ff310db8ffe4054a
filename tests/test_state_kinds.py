"""A control kind is one row of state.KINDS: its type, link form, limits and the input form (`Kind.input`) each layer
draws it with. The layers' drawing code is keyed by that form, never by a kind's name: controls.INPUTS (the page's
HTML before Python), site/player.js's inputs (playing them back) and app/store.WIDGETS (the live lab's Panel
widgets), and each covers every form the table names, so a new kind is a row, plus drawing code only for a new form."""
from __future__ import annotations

import re
from pathlib import Path

from weighttying import controls, state
from weighttying.app import store

FORMS = {k.input for k in state.KINDS.values()}


def test_each_layer_draws_every_input_form_the_kinds_name():
    player = (Path(__file__).resolve().parents[1] / "site" / "player.js").read_text()
    table = player[player.index("function inputsFor(rules) {"):]
    table = table[:table.index("\n}\n")]
    assert set(re.findall(r"^    (\w+): ", table, re.M)) == FORMS
    assert set(controls.INPUTS) == FORMS
    assert set(store.WIDGETS) == FORMS


def test_a_controls_param_is_its_kinds_type_within_its_bounds():
    for c in state.CONTROLS:
        p = store.SECTION_CLASSES[c.section].param[c.name]
        assert p.default == c.default, c.key
        if c.choices:
            assert list(p.objects) == list(c.choices), c.key
        else:
            assert isinstance(p, store.PARAMETER_TYPES[c.type]), c.key
            if c.lo is not None:
                assert p.bounds == (c.lo, c.hi), c.key
