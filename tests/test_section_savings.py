"""Savings section: presets and numbers are one state (picking fills, editing makes custom, links
reconcile), the readout is savings.tying_saving, the presets sit beside the page's shares."""
import re

import numpy as np
import panel as pn

from weighttying import quoted, report, savings
from weighttying import state
from weighttying.app.sections import savings as live
from weighttying.app.store import Store
from weighttying.views import savings as view
from carried_numbers import carried


def hooks(html: str) -> dict:
    return {k: v for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', html)}


def test_presets_reproduce_the_page_and_defaults_are_gpt2_small():
    assert view.preset_fields("gpt2-small") == {f: getattr(state.Savings(), f) for f in view.FIELDS}
    columns, rows = view.preset_rows()
    for r in rows:
        assert r[9] == report.PAGE["share"][r[0]] and r[10].text.startswith("agrees")
        assert r[10].text == quoted.judge(quoted.share_id(r[0]), [r[8]])["verdict"]
        assert r[6] == r[1] * r[2]  # saved is V*d exactly


def test_share_never_reaches_half():
    c = view.curve(vars(state.Savings()))
    assert np.all(np.diff(c["share"]) > 0) and c["share"].max() < 0.5
    assert savings.share_curve([50257], 768, 12, 3072, 1024)[0] == savings.tying_saving(**savings.PRESETS["gpt2-small"])["share"]


def test_reconcile_rules():
    base = vars(state.Savings())
    assert view.reconcile(base) == {}
    assert view.reconcile({**base, "preset": "char-model"}) == view.preset_fields("char-model")  # link with preset only
    assert view.reconcile({**base, "preset": "char-model", "V": 99}) == {"preset": "custom"}  # link that contradicts it
    assert view.reconcile({**base, "preset": "char-model"}, "preset") == view.preset_fields("char-model")
    assert view.reconcile({**base, "V": 99}, "V") == {"preset": "custom"}
    assert view.reconcile({**base, "preset": "custom", "V": 99}, "V") == {}


def test_live_preset_fills_fields_and_editing_switches_to_custom():
    store = Store(state.parse_query("savings.preset=large-vocab-toy")[0])
    root = live.build(store)
    p = store["savings"]
    [text] = [x for x in root.select(pn.pane.HTML) if 'data-testid="savings-readout"' in (x.object or "")]
    assert (p.V, p.d, p.layers) == (32000, 128, 4)
    assert float(hooks(text.object)["savings-share"]) == carried(savings.tying_saving(**savings.PRESETS["large-vocab-toy"])["share"])
    p.preset = "char-model"
    assert (p.V, p.d, p.d_ff, p.context) == (65, 256, 1024, 256)
    assert hooks(text.object)["savings-saved"] == str(65 * 256)
    p.d = 512
    assert p.preset == "custom" and p.V == 65
    want = savings.tying_saving(V=65, d=512, n_layers=4, d_ff=1024, context=256)
    assert hooks(text.object)["savings-untied"] == str(want["untied"])
    assert state.parse_query(state.to_query(store.page))[0].savings == store.page.savings  # the URL round-trips


def test_fills_are_what_reconcile_does():
    """views.savings.FILLS is the player's copy of reconcile: each preset fills in exactly its fields, and a
    field edited away from them makes the preset FILLS' "else"."""
    base = {"preset": "gpt2-small", **{f: getattr(state.Savings(), f) for f in view.FIELDS}}
    [(key, fills)] = view.FILLS.items()
    assert key == "preset" and set(fills["by"]) | {fills["else"]} == set(view.PLAYBACK["preset"])
    for name, fields in fills["by"].items():
        assert set(fields) == set(view.FIELDS)
        picked = {**base, "preset": name}
        assert {**picked, **view.reconcile(picked, "preset")} == {**picked, **fields}
        assert view.reconcile({**base, "preset": name, **fields, "V": fields["V"] + 1}, "V") == {"preset": fills["else"]}
        assert all(fields[k] in view.PLAYBACK[k] for k in view.PLAYBACK if k in fields)  # its numbers are on the grid
