"""The repeat section: its HTML shows exactly what weighttying.repeat computes, the live section follows
the controls, and its training run streams, finishes with the numbers of a plain run, and cancels."""
import asyncio
import re

import numpy as np
import panel as pn

from weighttying import measure, model, prerender, quoted, repeat, report
from weighttying import state
from weighttying.app import kit
from weighttying.app.sections import repeat as section
from weighttying.app.store import Store
from weighttying.views import repeat as repeat_view
from weighttying.precision import carried

RACE = {"lr": repeat_view.RECIPE.lr, "task": measure.race_task(repeat_view.RECIPE), "batch": repeat_view.RECIPE.batch}  # the section's race


def values(text: str) -> dict[str, float]:
    """{data-testid: float(data-value)} of every hooked number in some HTML."""
    return {k: float(v) for k, v in re.findall(r'data-testid="([\w-]+)" data-value="([^"]+)"', text)}


def shown(root) -> str:
    """All the HTML a section's panes show now."""
    return "".join(p.object or "" for p in root.select(pn.pane.HTML))


def button(root, name: str) -> pn.widgets.Button:
    [b] = [b for b in root.select(pn.widgets.Button) if b.name == name]
    return b


def test_init_rows_are_repeat_init_table_beside_the_page():
    rows = repeat_view.init_rows(0.5, 3)
    want = repeat.init_table(sigma=0.5, seeds=range(3, 8))
    assert [r[0] for r in rows] == [w["model"] for w in want]
    for r, w in zip(rows, want):
        assert r[1].x == w["mean_rank"] and (r[2][0].x, r[2][1].x) == (w["min"], w["max"])
        assert r[3] == report.PAGE["rank_init"][w["model"]]
        qid = f"repeat.init.{repeat_view.SLUG[w['model']].replace('-', '_')}"
        j = quoted.judge(qid, w["per_seed"], measure.spread("repeat.init").get(qid))  # the rule's sd: ten seeds
        assert (r[4].text, r[4].tol) == (quoted.explained(j), j["tol"])
    got = values(repeat_view.init_table(rows, 0.5, 3))
    assert got["repeat-rank-untied"] == want[1]["mean_rank"] and got["repeat-rank-chance"] == 32.5


def test_readout_and_histogram_of_the_current_setting():
    st = state.Repeat(tied=True, res=0.0, sigma=0.3, seed=2)
    cfg = model.Config(tied=True, res=0.0, sigma=0.3, seed=2)
    ranks = repeat.self_ranks(model.init_params(cfg), cfg)
    got = values(repeat_view.readout(st, ranks))
    assert got["repeat-current"] == carried(ranks.mean()) and got["repeat-top1"] == (ranks == 1).sum()
    h = repeat_view.histogram(ranks)
    assert h["counts"].sum() == 64 and len(h["counts"]) == repeat_view.BINS
    assert "tokens per rank bin" in repeat_view.hist_text("At init", h)


def test_prerender_default_has_every_hook_and_the_trained_numbers():
    text = prerender.section("repeat", state.State().repeat)
    got = values(text)
    for slug in repeat_view.SLUG.values():
        assert f"repeat-rank-{slug}" in got
    ours = repeat.trained_table(seeds=[0], **RACE)
    assert got["repeat-trained-tied"] == ours[0]["mean_rank"] and got["repeat-trained-untied"] == ours[1]["mean_rank"]
    assert text.count("<svg") == 2 and "<desc>" in text


def test_race_matches_one_models_ranks_and_chunking_changes_nothing():
    cfg = model.Config(tied=True, res=0.5, sigma=0.25, seed=1)
    plain = list(repeat.iter_ranks(cfg, steps=60, lr=0.5, seed=1, chunk=20))
    fine = [p for p in repeat.race(0.5, 0.25, 60, 0.5, 1, chunk=5, every=20) if "tied" in p]
    assert [p["step"] for p in fine] == [p["step"] for p in plain] == [0, 20, 40, 60]
    assert [p["tied"] for p in fine] == [float(p["ranks"].mean()) for p in plain]
    assert all(np.isfinite(p["loss"]) for p in repeat.race(0.5, 0.25, 60, 0.5, 1))


def test_live_section_follows_controls():
    store = Store(state.parse_query("repeat.sigma=0.5")[0], base_url="http://x/")
    root = section.build(store)
    got = values(shown(root))
    assert got["repeat-rank-tied-res0"] == carried(repeat.init_table(sigma=0.5)[3]["mean_rank"])
    store["repeat"].res = 0.0  # the watcher path: the readout moves to the res = 0 control
    cfg = model.Config(tied=True, res=0.0, sigma=0.5)
    assert values(shown(root))["repeat-current"] == carried(repeat.self_ranks(model.init_params(cfg), cfg).mean())
    store["repeat"].seed = 4
    assert values(shown(root))["repeat-rank-untied"] == carried(repeat.init_table(sigma=0.5, seeds=range(4, 9))[1]["mean_rank"])


def run_until_done(root, name: str, cancel_after: int | None = None) -> None:
    """Click a Run button and drive the event loop until its job ends (or cancel after N loop turns)."""
    async def main():
        button(root, name).clicks += 1
        for i in range(100_000):
            await asyncio.sleep(0)
            if cancel_after is not None and i == cancel_after:
                button(root, "Cancel").clicks += 1
            if button(root, name).disabled is False:
                return
        raise AssertionError("the run did not end")
    asyncio.run(main())


def test_training_run_streams_to_the_numbers_of_a_plain_run():
    store = Store(state.parse_query("repeat.steps=50&repeat.seed=2")[0])
    root = section.build(store)
    assert "not trained yet" in shown(root)
    run_until_done(root, "Train tied + untied")
    got = values(shown(root))
    want = repeat.trained_table(steps=50, seeds=[2], **RACE)
    assert got["repeat-trained-tied"] == carried(want[0]["mean_rank"])
    assert got["repeat-trained-untied"] == carried(want[1]["mean_rank"])
    assert "Done." in shown(root)
    store["repeat"].lr = 0.25  # a settings change drops the run made for the old settings
    assert "repeat-trained-tied" not in values(shown(root)) and "press Train" in shown(root)


def test_cancel_stops_the_run():
    store = Store(state.parse_query("repeat.steps=2000")[0])
    root = section.build(store)
    run_until_done(root, "Train tied + untied", cancel_after=3)
    assert "Cancelled." in shown(root)
    done = int(re.search(r"after (\d+) of 2000 steps", shown(root)).group(1))
    assert done < 2000  # stopped early: the table holds the last point drawn before Cancel


def test_divergence_is_reported_not_drawn():
    store = Store(state.parse_query("repeat.lr=1000&repeat.steps=100")[0])
    root = section.build(store)
    run_until_done(root, "Train tied + untied")
    assert "Diverged at step" in shown(root)


def test_guarded_watcher_shows_a_readable_message():
    err = pn.pane.HTML()
    kit.guard(err, lambda: 1 / 0)()
    assert "ZeroDivisionError" in err.object and "<p" in err.object
    kit.guard(err, lambda: None)()
    assert err.object == ""
