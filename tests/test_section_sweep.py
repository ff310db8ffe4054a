"""The sweep section, the page's headline: its readout shows exactly what weighttying.sweep computes, the
live section follows every control with the HTML the build prerenders, a refused setting becomes a
readable line, and the export holds the current setting and every grid cell."""
import csv
import dataclasses
import io
import re

import numpy as np
import panel as pn
import pytest

from weighttying import state
from weighttying import sweep
from weighttying.app.sections import sweep as section
from weighttying.app.store import Store
from weighttying.views import kit
from weighttying.views import sweep as sweep_view
from weighttying.precision import carried


def values(text: str) -> dict[str, str]:
    return dict(re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', text))


def slot_panes(root) -> dict[str, pn.pane.HTML]:
    return {m.group(1): p for p in root.select(pn.pane.HTML)
            if (m := re.match(r'<div class="wt-slot" data-slot="([\w-]+)">', p.object or ""))}


def test_readout_is_init_scales_and_says_when_both_are_near_one():
    for sigma, in_scale in ((0.25, 1.0), (0.227, 4.5), (1e-8, 1e8)):
        got = values(sweep_view.readout(sigma, in_scale, 0.1))
        want = sweep.init_scales(sigma, in_scale)
        assert float(got["sweep-resid"]) == carried(want["resid"]) and float(got["sweep-logit"]) == carried(want["logit"])
    assert 'data-testid="sweep-both">yes' in sweep_view.readout(0.227, 4.5, 0.1)  # the "both near 1" preset
    assert 'data-testid="sweep-both">no' in sweep_view.readout(0.25, 1.0, 0.1)


def test_hits_follow_the_band_and_match_sweep_grid():
    for kind in ("coarse", "fine"):
        for band in (0.05, 0.1, 0.5):
            want = sweep.sweep_grid(kind, band)["hits"]
            assert values(sweep_view.hits(kind, band))["sweep-hits"] == str(want)
    assert values(sweep_view.hits("fine", 0.1))["sweep-hits"] != values(sweep_view.hits("fine", 0.5))["sweep-hits"]


def test_live_section_shows_the_prerendered_html_and_follows_every_control():
    store = Store(state.parse_query("sweep.sigma=0.5")[0], base_url="http://x/")
    root = section.build(store)
    p = store["sweep"]
    for change in ({}, {"sigma": 0.227, "in_scale": 4.5}, {"grid": "fine"}, {"band": 0.5}, {"in_scale": 1e-8}):
        p.param.update(**change)
        st = store.state_of("sweep")
        want = sweep_view.slots(st)
        panes = slot_panes(root)
        assert list(panes) == list(sweep_view.SLOTS)
        for name in sweep_view.SLOTS:  # byte-identical to what the build prerenders and plays back for this state
            assert panes[name].object == kit.slot(name, want[name]), (change, name)
    assert values(panes["readout"].object)["sweep-resid"] == repr(carried(sweep.init_scales(0.227, 1e-8)["resid"]))
    assert state.to_query(store.page) == "sweep.sigma=0.227&sweep.in_scale=1e-08&sweep.grid=fine&sweep.band=0.5"


def test_a_setting_the_numerics_refuse_becomes_a_readable_line(monkeypatch):
    store = Store(state.State())
    root = section.build(store)
    before = slot_panes(root)["readout"].object

    def refuse(*a, **kw):
        raise FloatingPointError("overflow in <b>x</b>")
    monkeypatch.setattr(sweep, "init_scales", refuse)
    store["sweep"].sigma = 2.0
    shown = "".join(p.object or "" for p in root.select(pn.pane.HTML))
    assert "FloatingPointError" in shown and "&lt;b&gt;" in shown and "<b>x</b>" not in shown
    assert slot_panes(root)["readout"].object == before  # nothing half-drawn


def test_export_holds_the_current_setting_and_every_cell():
    store = Store(state.parse_query("sweep.grid=fine&sweep.sigma=0.227&sweep.in_scale=4.5")[0], base_url="http://x/")
    root = section.build(store)
    [csv_button] = [b for b in root.select(pn.widgets.FileDownload) if b.filename == "sweep.csv"]
    lines = csv_button.callback().getvalue().splitlines()
    assert lines[0] == "# reproduce: http://x/?sweep.sigma=0.227&sweep.in_scale=4.5&sweep.grid=fine#sweep"
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[1:]))))
    g = sweep.sweep_grid("fine", 0.1)
    assert len(rows) == 1 + g["resid"].size and rows[0]["setting"] == "current" and rows[0]["both_in_band"] == "1"
    assert sum(int(r["both_in_band"]) for r in rows[1:]) == g["hits"]
    cell = rows[1 + 3 * len(g["in_scales"]) + 7]
    assert float(cell["resid"]) == carried(g["resid"][3, 7]) and float(cell["sigma"]) == carried(g["sigmas"][3])


@pytest.mark.parametrize("kind", ["coarse", "fine"])
def test_heatmap_marks_the_hit_cells(kind):
    st = dataclasses.replace(state.Sweep(), grid=kind)
    svg = sweep_view.slots(st)["resid"]
    assert svg.count('stroke="#e69f00"') == int(np.sum(sweep_view.hit_mask(kind, st.band)))
    g = sweep.GRIDS[kind]
    assert f"{len(g['in_scale'])} by {len(g['sigma'])} grid" in svg and f"{sweep.sweep_grid(kind)['hits']} cells marked" in svg
