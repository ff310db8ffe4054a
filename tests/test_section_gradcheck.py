"""The gradient-check section in CPython: its view functions give what weighttying computes, and the
live section re-runs the check (through its Runner) when a control changes."""
import asyncio
import dataclasses
import re

import numpy as np
import panel as pn
import pytest

from weighttying import gradcheck, model, pathdrop, prerender
from weighttying import state
from weighttying.app.sections import gradcheck as section
from weighttying.app.store import Store
from weighttying.views import gradcheck as gradcheck_view
DEFAULT = state.State().gradcheck


def with_(**kw) -> state.Gradcheck:
    return dataclasses.replace(DEFAULT, **kw)


def test_stepped_check_is_check():
    st = with_(res=0.5, seed=3)
    cfg = gradcheck_view.config(st)
    inputs, targets = gradcheck_view.batch(st)
    direct = gradcheck.check(model.init_params(cfg), cfg, inputs, targets)
    points = list(gradcheck_view.iter_check(st))
    assert [p["step"] for p in points] == sorted(p["step"] for p in points) and points[-1]["step"] == gradcheck_view.entries(st)
    stepped = points[-1]["result"]
    for name in direct["numeric"]:
        np.testing.assert_array_equal(stepped["numeric"][name], direct["numeric"][name])
    assert stepped["max"] == direct["max"]


def test_default_agrees_everywhere_and_badge_says_so():
    s = gradcheck_view.summary(gradcheck_view.check(DEFAULT))
    cfg = gradcheck_view.config(DEFAULT)
    ref = gradcheck.check(model.init_params(cfg), cfg, *pathdrop.batch(seed=0))  # the page's batch
    assert 0 < max(ref["max"].values()) <= gradcheck_view.TOL and s["entries"] == 3152 and s["disagree"] == 0
    # every entry agrees, so no error is shown: its digits are rounding noise (kit.shown_errors)
    assert s["worst"] == 0 and all(r[2] == 0 for r in s["rows"]) and not np.asarray(s["E_err"]).any()
    assert "all 3152 entries agree to 0.0001" in gradcheck_view.badge(s)
    assert gradcheck_view.error_text(0.0) == "≤ 0.0001" and gradcheck_view.error_text(0.25) == "0.25"


def test_untied_seed_0_agrees_too():
    """Untied, seed 0: every entry agrees too (tanh is smooth: no kink for a bump to straddle)."""
    s = gradcheck_view.summary(gradcheck_view.check(with_(tied=False)))
    assert s["disagree"] == 0 and s["entries"] == 4176 and "wt-good" in gradcheck_view.badge(s)


def test_batches():
    inputs, _ = gradcheck_view.batch(with_(batch=32, repeats=True))
    assert len(inputs) == 32 and len(np.unique(inputs)) == 8
    inputs, _ = gradcheck_view.batch(with_(batch=20, repeats=False))
    assert len(inputs) == len(np.unique(inputs)) == 20
    inputs, _ = gradcheck_view.batch(with_(batch=200, repeats=False))
    assert len(inputs) == len(np.unique(inputs)) == 64  # capped at V: distinct tokens cannot exceed it
    assert len(gradcheck_view.batch(with_(batch=1))[0]) == 1


def test_prerender_has_the_live_hooks():
    html = prerender.section("gradcheck", DEFAULT)
    for tid in ("gradcheck-badge", "gradcheck-entries", "gradcheck-worst", "gradcheck-disagree",
                "gradcheck-table"):
        assert f'data-testid="{tid}"' in html
    assert "<svg" in html and "Rows of E over 0.0001: 0 of 64" in html


def value_of(html: str, testid: str) -> str:
    return re.search(rf'data-testid="{testid}" data-value="([^"]*)"', html).group(1)


def pane_with(root, testid: str) -> pn.pane.HTML:
    """The one HTML pane of root showing data-testid=testid."""
    [pane] = [p for p in root.select(pn.pane.HTML) if f'data-testid="{testid}"' in (p.object or "")]
    return pane


def test_section_rechecks_on_a_control_change():
    store = Store(state.State(), base_url="http://x/")
    root = section.build(store)
    badge = pane_with(root, "gradcheck-badge")
    assert "running" in badge.object  # nothing computed before the page is ready

    async def main():
        store["gradcheck"].res = 0.0
        for _ in range(500):
            await asyncio.sleep(0.01)
            if "running" not in badge.object:
                return
        pytest.fail("the check did not finish")

    asyncio.run(main())
    readout = pane_with(root, "gradcheck-readout")
    expected = gradcheck_view.summary(gradcheck_view.check(with_(res=0.0)))
    assert float(value_of(badge.object, "gradcheck-badge")) == expected["disagree"]
    assert float(value_of(readout.object, "gradcheck-worst")) == expected["worst"]
    assert "res = 0" in readout.object


def test_the_heatmap_is_headed_by_what_it_shows():
    """reader-first: a heatmap says in its title what it shows (the dropped path's says "error of dE, <setting>");
    the setting is the readout's, above it, so the heading is one for every setting and playback keeps sharing the
    heatmaps that are equal."""
    for tied in (True, False):
        heatmap = gradcheck_view.slots(with_(tied=tied))["heatmap"]
        assert re.findall(r'<text[^>]*wt-head[^>]*>([^<]*)<', heatmap) == ["error of dE"]
