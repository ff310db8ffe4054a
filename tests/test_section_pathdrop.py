"""The path-drop section in CPython: the table, k-check, trap and curves give what weighttying computes;
the live section recomputes on toggles and streams (and cancels) its training runs."""
import asyncio
import dataclasses
import html
import json
import re

import panel as pn
import pytest

from harness import run_is_over, until_async
from weighttying import measure, pathdrop
from weighttying import state
from weighttying.app.sections import pathdrop as section
from weighttying.app.store import Store
from weighttying.views import gradcheck as gradcheck_view
from weighttying.views import kit
from weighttying.views.kit import last
from weighttying.views import pathdrop as pathdrop_view
from carried_numbers import carried

DEFAULT = state.State().pathdrop


def test_rows_are_the_pages_table():
    rs = pathdrop_view.rows(DEFAULT, pathdrop_view.numeric(DEFAULT))
    ref = {r["setting"]: r for r in pathdrop.wrong_rows_table()}
    assert [rs[n]["wrong_rows"] for n in ("both paths", "output path only", "input path only")] == [0, 8, 64]
    for name, r in ref.items():
        assert {k: rs[name][k] for k in r if k != "setting"} == {k: v for k, v in r.items() if k != "setting"}
    assert rs[pathdrop.NEITHER]["wrong_rows"] == 64
    # the heatmap's rows over TOL are exactly the wrong rows, and those are the batch's tokens
    bad = (rs["output path only"]["E_err"].max(1) > kit.TOL).nonzero()[0]
    assert sorted(bad) == sorted(set(pathdrop_view.batch(DEFAULT)[0]))


@pytest.mark.parametrize("toggles,setting,wrong", [((True, True), "both paths", 0),
                                                   ((False, True), "output path only", 8),
                                                   ((True, False), "input path only", 64)])
def test_readout_follows_toggles(toggles, setting, wrong):
    st = dataclasses.replace(DEFAULT, input=toggles[0], output=toggles[1])
    rs = pathdrop_view.rows(st, pathdrop_view.numeric(st))
    html = pathdrop_view.readout(st, rs)
    assert pathdrop_view.current(st) == setting and f'data-testid="pathdrop-wrong" data-value="{wrong}"' in html
    assert "◀ now" in dict((r[0], r[-1]) for r in pathdrop_view.table_rows(st, rs))[setting]


def test_kcheck_is_the_exact_hypergeometric_miss():
    st = dataclasses.replace(DEFAULT, k=20)
    rs = pathdrop_view.rows(st, pathdrop_view.numeric(st))
    c = pathdrop_view.kcheck(st, rs)  # both paths on: the k-check is about the page's bug, output path only
    r = rs["output path only"]
    assert c["setting"] == "output path only" and c["wrong"] == r["wrong_entries"] == 128
    assert c["exact"] == pathdrop.miss_probability(20, 128, r["entries"])
    assert abs(c["simulated"] - c["exact"]) < 5 * (c["exact"] * (1 - c["exact"]) / pathdrop_view.TRIALS) ** 0.5


def test_trap_and_curves():
    t = pathdrop_view.trap(DEFAULT)
    assert t == pathdrop.fancy_index_trap() and t["wrong_rows"] == 8
    st = dataclasses.replace(DEFAULT, steps=100)
    *_, last = pathdrop_view.iter_curves(st)
    ref = pathdrop.training_curves(pathdrop_view.config(st), measure.race_task(pathdrop_view.RECIPE), steps=100, lr=st.lr, seed=st.seed,
                                   batch=pathdrop_view.RECIPE.batch)
    for name in pathdrop_view.CURVES:
        assert last["points"][name]["eval"] == ref[name][-1]["eval"]
    rows = pathdrop_view.curve_rows(st, {n: ref[n][-1]["eval"] for n in pathdrop_view.CURVES})
    assert rows[0][2] == pathdrop_view.PAGE["final_loss"]["both paths"] and rows[1][2] == pathdrop_view.PAGE["final_loss"]["output path only"]
    assert rows[0][3].startswith("n/a (judged at the searched race only")  # 100 steps: not the page's run
    finals = {n: ref[n][-1]["eval"] for n in pathdrop_view.CURVES}
    assert pathdrop_view.curve_rows(DEFAULT, finals)[0][3].text.startswith("n/a (one run")  # no build spread at hand: no band


def value_of(html: str, testid: str) -> float:
    return float(re.search(rf'data-testid="{testid}" data-value="([^"]*)"', html).group(1))


def pane_with(root, testid: str) -> pn.pane.HTML:
    [pane] = [p for p in root.select(pn.pane.HTML) if f'data-testid="{testid}"' in (p.object or "")]
    return pane


def button(root, name: str) -> pn.widgets.Button:
    [b] = [b for b in root.select(pn.widgets.Button) if b.name == name]
    return b


def test_section_toggles_train_and_cancel():
    store = Store(state.parse_query("pathdrop.steps=40")[0], base_url="http://x/")
    root = section.build(store)
    p = store["pathdrop"]

    async def main():
        button(root, "Recompute central differences").clicks += 1
        await until_async(lambda: any('data-testid="pathdrop-wrong"' in (x.object or "") for x in root.select(pn.pane.HTML)),
                          30, "the central differences")
        seen = {}
        for toggles in ((True, True), (False, True), (True, False)):
            p.param.update(input=toggles[0], output=toggles[1])
            seen[toggles] = value_of(pane_with(root, "pathdrop-readout").object, "pathdrop-wrong")
        assert seen == {(True, True): 0, (False, True): 8, (True, False): 64}
        p.k = 100
        r = pathdrop.wrong_rows_table()[2]  # input path only: the current toggles
        assert value_of(pane_with(root, "pathdrop-kcheck").object, "pathdrop-miss") == \
            carried(pathdrop.miss_probability(100, r["wrong_entries"], r["entries"]))

        button(root, "Train both").clicks += 1
        await until_async(lambda: any('pathdrop-loss-correct' in (x.object or "") for x in root.select(pn.pane.HTML)),
                          30, "the training runs")
        ref = pathdrop.training_curves(pathdrop_view.config(p), measure.race_task(pathdrop_view.RECIPE), steps=40, lr=p.lr, seed=p.seed,
                                       batch=pathdrop_view.RECIPE.batch)
        finals = pane_with(root, "pathdrop-loss-correct").object
        assert value_of(finals, "pathdrop-loss-correct") == carried(ref["both paths"][-1]["eval"])
        assert value_of(finals, "pathdrop-loss-broken") == carried(ref["output path only"][-1]["eval"])

    asyncio.run(main())


def test_cancel_stops_training():
    store = Store(state.parse_query("pathdrop.steps=5000")[0], base_url="http://x/")
    root = section.build(store)
    train_cancel = [b for b in root.select(pn.widgets.Button) if b.name == "Cancel"][-1]  # the second Runner's
    [pane] = [x for x in root.select(pn.pane.HTML) if x.object and 'data-slot="curves"' in x.object]
    def curves():
        return pane.object
    def drawn():
        return "<svg" in pane.object

    async def main():
        button(root, "Recompute central differences").clicks += 1  # the slots draw once these are in
        button(root, "Train both").clicks += 1
        await until_async(lambda: drawn() and last_step(curves()) > 10, 30, "a few training points")
        train_cancel.clicks += 1
        shown = curves()
        await until_async(lambda: run_is_over(root, "Cancelled."), 30, "the run's end (no step can follow)")
        return shown
    shown = asyncio.run(main())
    assert curves() == shown and last_step(shown) < 5000  # nothing drawn after Cancel
    assert any("Cancelled." in (x.object or "") for x in root.select(pn.pane.HTML))


def last_step(curves_html: str) -> int:
    """The last training step the curves slot plots (its readout data's last x)."""
    return int(json.loads(html.unescape(re.search(r"data-fig='([^']*)'", curves_html).group(1)))["xs"][-1])


def test_default_central_differences_are_computed_once():
    """At page load both sections check the default model on the same batch through the store's memo: the
    second reads it; without a memo passed in, nothing is kept between calls."""
    memo = Store(state.State()).differences
    checked = last(gradcheck_view.iter_check(state.State().gradcheck, memo))["result"]["numeric"]
    points = list(pathdrop_view.iter_numeric(DEFAULT, memo))
    assert len(points) == 1 and points[0]["step"] == points[0]["total"] == pathdrop_view.entries(DEFAULT)
    for name, grad in points[0]["numeric"].items():
        assert grad is checked[name] and not grad.flags.writeable
    assert pathdrop_view.known_numeric(DEFAULT, kit.Differences()) is None and len(list(pathdrop_view.iter_numeric(DEFAULT, kit.Differences()))) > 1


def test_the_curves_caption_says_where_the_broken_run_ends_against_the_correct_one():
    """The caption under the training curves reads their last point: the broken run's loss, how far above (or below)
    the correct one's, and the wrong rows the loss cannot name, streaming or done; a diverged run is said so."""
    st = dataclasses.replace(DEFAULT, steps=60)
    points = pathdrop_view.results(st)["points"]
    wrong = pathdrop_view.rows(st, pathdrop_view.numeric(st))["output path only"]["wrong_rows"]
    for upto in (points[:3], points):
        curves = pathdrop_view.slots(st, {"points": upto})["curves"]
        said = html.unescape(curves.split('data-testid="pathdrop-curves-text">')[1])
        end = upto[-1]
        correct, broken = (end["points"][n]["eval"] for n in pathdrop_view.CURVES)
        assert f"At step {end['step']} the broken gradient (output path only) is at {broken:.3f} nats" in said
        side = "above" if broken > correct else "below"
        assert f"{abs(broken - correct):.3f} {side} the correct one's {correct:.3f}" in said
        assert f"which {wrong} rows of dE are wrong" in said
    end = points[-1]
    ahead = {**end, "points": {**end["points"], "both paths": {"eval": end["points"]["output path only"]["eval"] + 0.5}}}
    said = pathdrop_view.curves_said(ahead, wrong)
    assert "0.500 below the correct one's" in said and "no worse" in said and "a worse loss" not in said
    gone = {**points[-1], "points": {**points[-1]["points"], "output path only": {"eval": float("nan")}}}
    assert "no longer finite" in pathdrop_view.curves_said(gone, wrong)
