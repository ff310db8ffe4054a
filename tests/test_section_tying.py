"""Tying section: the toy's parameter count is what the model really allocates, and the live pane follows V and d."""
import re

import panel as pn

from weighttying import model, prerender, report, savings, tasks
from weighttying import state
from weighttying.app.sections import tying as live
from weighttying.app.store import Store
from weighttying.views import tying as view
from weighttying.precision import carried


def hooks(html: str) -> dict:
    return {k: v for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]*)"', html)}


def test_count_matches_the_allocated_parameters():
    for V, d in ((64, 16), (2, 1), (300, 7)):
        c = view.count(V, d)
        assert c["tied"] == tasks.param_count(model.Config(V=V, d=d))
        assert c["untied"] == tasks.param_count(model.Config(V=V, d=d, tied=False))
        assert c["saved"] == V * d


def test_prerender_shows_the_default_numbers_and_the_page_beside_them():
    h = prerender.section("tying", state.Tying())
    got = hooks(h)
    assert got["tying-saved"] == "1024" and got["tying-tied"] == "3152" and got["tying-untied"] == "4176"
    assert float(got["tying-share"]) == carried(1024 / 4176) and float(got["tying-more"]) == carried(4176 / 3152 - 1)
    assert 'data-testid="tying-page"' in h and f"{report.PAGE['toy_saving']:.0%}" in h
    assert "differs" in h and "agrees" in h  # 24.5% of untied vs 32.5% of tied: only the second is the page's 32%
    # a big config needs no allocation: the count is arithmetic
    assert view.count(1_000_000, 100_000)["saved"] == savings.toy_params(1_000_000, 100_000, tied=False) - \
        savings.toy_params(1_000_000, 100_000)


def test_live_pane_follows_V_and_d():
    store = Store(state.parse_query("tying.V=100")[0])
    root = live.build(store)
    [pane] = [x for x in root.select(pn.pane.HTML) if 'data-testid="tying-readout"' in (x.object or "")]
    assert hooks(pane.object)["tying-saved"] == "1600"
    assert 'data-testid="tying-page"' not in "".join(x.object for x in root.select(pn.pane.HTML))  # own toy only
    store["tying"].d = 3
    assert hooks(pane.object)["tying-saved"] == "300"
    assert hooks(pane.object)["tying-tied"] == str(view.count(100, 3)["tied"])
    assert state.to_query(store.page) == "tying.V=100&tying.d=3"
