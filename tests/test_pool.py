"""A run split into parts for a pool of numerics workers (weighttying.pool): every run section's parts, run
apart and merged, give the one-worker run's results to 1e-12, however many parts; a part travels as JSON."""
import math

import numpy as np
import pytest

from weighttying import owntext
from weighttying import codelab, paper, pool
from weighttying import state
from weighttying.views import owntext as owntext_view
from weighttying.views import pathdrop, repeat, tasks


@pytest.fixture(autouse=True)
def no_pool_after():
    """Each test that gives this process a pool takes it back: the sections' tests after it run their Runs here."""
    yield
    from weighttying.app import pooled
    pooled.setup(0, lambda kind, data: None)

SMALL = {"tasks": state.Tasks(seeds=3, steps=20), "repeat": state.Repeat(steps=30), "pathdrop": state.Pathdrop(steps=20),
         "paper": state.Paper(steps=20, seeds=2, scale=4.0), "owntext": state.Owntext(sample="song", steps=30, d=8, cap=24)}
PASTED = "the cat sat on the mat; the dog ran after the cat and the cat ran up a tree.\n" * 6  # a reader's own text


def one_worker(section: str, st) -> dict:
    """What the live section's one-worker Run collects for st."""
    if section == "tasks":
        return {k: v for k, v in tasks.results(st).items() if k != "noise"}
    if section == "repeat":
        return {"points": [p for p in repeat.iter_race(st) if "tied" in p]}
    if section == "pathdrop":
        return {"points": list(pathdrop.iter_curves(st))}
    if section == "owntext":
        results = {}
        for point in owntext_view.iter_runs(st):
            owntext_view.collect(results, point)
        return results
    return paper.study(st.scale, st.steps, st.seed, st.seeds, st.lr)


def pooled(section: str, st, n: int) -> tuple[dict, list[dict]]:
    """The run in n parts, each run to its end through Part (JSON batches, as the workers send them), merged."""
    specs = pool.split(section, st, n)
    gather = pool.Gather(section, st, len(specs), 1000)
    progress = []
    for i, spec in enumerate(specs):
        part = pool.Part(pool.encode(spec))
        while not part.done:
            progress.append(gather.add(i, part.batch(0.01)))
    assert gather.finished
    return gather.results(), progress


def largest_difference(a, b) -> float:
    """The largest absolute difference between two results of the same shape (inf where the shapes differ)."""
    if isinstance(a, dict):
        return max([largest_difference(a[k], b[k]) for k in a], default=0.0) if set(a) == set(b) else math.inf
    if isinstance(a, (list, tuple, np.ndarray)) and not isinstance(a, str):
        a, b = list(a), list(b)
        return max([largest_difference(x, y) for x, y in zip(a, b)], default=0.0) if len(a) == len(b) else math.inf
    if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)):
        return 0.0 if (math.isnan(a) and math.isnan(b)) else abs(float(a) - float(b))
    return 0.0 if a == b else math.inf


@pytest.mark.parametrize("section", list(SMALL))
@pytest.mark.parametrize("n", [1, 2, 3])
def test_parts_merge_into_the_one_worker_result(section, n):
    st = SMALL[section]
    got, progress = pooled(section, st, n)
    want = one_worker(section, st)
    assert largest_difference(want, got) <= 1e-12
    assert [p["step"] for p in progress] == sorted(p["step"] for p in progress) and progress[-1]["step"] == 1000


@pytest.mark.parametrize("field", ["text", "file"])
def test_a_pasted_text_reaches_the_parts_and_trains_tied_and_untied_apart(field):
    st = state.Owntext(sample="yours", steps=20, **{field: PASTED})
    specs = pool.split("owntext", st, 4)
    assert [s["part"] for s in specs] == [{"models": ["tied"]}, {"models": ["untied"]}]
    assert all(s["state"][field] == PASTED for s in specs)  # the text travels in each part's spec, nowhere else
    got, _ = pooled("owntext", st, 2)
    want = one_worker("owntext", st)
    assert list(got) == ["yours"] and got["yours"]["chars"] == len(PASTED)
    assert largest_difference(want, got) <= 1e-12


def test_a_part_whose_first_batch_is_only_the_tokenised_text_gives_progress():
    """A long text's tokenising can fill a part's first batch alone: that point counts as step 0 of the part."""
    st = state.Owntext(sample="yours", text=PASTED, steps=20)
    gather = pool.Gather("owntext", st, 2, 40)
    first = next(pool.Part(pool.encode(pool.split("owntext", st, 2)[0])).points)
    assert "entry" in first and gather.add(0, pool.encode({"points": [first], "done": False, "step": 0, "flush": False}))["step"] == 0
    assert gather.results()["yours"]["chars"] == len(PASTED)


def test_an_own_text_part_names_a_bad_text_and_merges_nothing_before_it_is_read():
    st = state.Owntext(sample="yours", text="too short")
    assert owntext_view.merge(st, [[], []]) == {}
    with pytest.raises(owntext.TextError, match="at least 200"):
        next(pool.Part(pool.encode(pool.split("owntext", st, 2)[0])).points)


def test_parts_are_balanced_and_cover_every_model_once():
    specs = pool.split("tasks", state.Tasks(seeds=5), 2)
    pairs = [tuple(p) for s in specs for p in s["part"]["pairs"]]
    assert [len(s["part"]["pairs"]) for s in specs] == [5, 5] and sorted(pairs) == sorted(set(pairs)) and len(pairs) == 10
    costs = [sum(paper_cost(k) for k in s["part"]["keys"]) for s in pool.split("paper", state.Paper(), 2)]
    assert max(costs) - min(costs) <= 1
    assert len(pool.split("repeat", state.Repeat(), 4)) == 2 and len(pool.split("repeat", state.Repeat(), 1)) == 1


def paper_cost(key) -> float:
    from weighttying.views import paper as paper_view
    return paper_view.COST.get(key[0], 1.0)


def test_a_partial_merge_shows_only_what_every_part_reached():
    st = SMALL["repeat"]
    specs = pool.split("repeat", st, 2)
    gather = pool.Gather("repeat", st, 2, st.steps)
    gather.add(0, pool.Part(pool.encode(specs[0])).batch(10))  # the tied model done, the untied not started
    assert gather.results() == {"points": []} and not gather.finished
    assert gather.progress()["step"] == st.steps // 2


def test_encode_keeps_every_bit_nan_and_dtype():
    x = {"a": np.array([0.1, np.nan, -np.inf, 1 / 3]), "i": np.arange(3), "f": float("nan")}
    back = pool.decode(pool.encode(x))
    assert back["a"].tobytes() == x["a"].tobytes() and back["i"].dtype == x["i"].dtype and math.isnan(back["f"])


def test_a_section_that_does_not_split_is_refused():
    with pytest.raises(ValueError, match="does not split"):
        pool.split("sweep", state.Sweep(), 2)


def drive(gen, stop_after: int | None = None) -> list[dict]:
    """The points of an async Run stream (app.pooled.steps), closing it after stop_after points."""
    import asyncio

    async def take():
        out = []
        async for p in gen:
            out.append(p)
            if stop_after is not None and len(out) >= stop_after:
                await gen.aclose()
                break
        return out
    return asyncio.run(take())


def fake_page(answer):
    """emit() of a page whose pool answers each "pool-run" with answer(run, specs): [(kind, part, text)]."""
    import json

    from weighttying.app import pooled
    said = []

    def emit(kind, data):
        said.append((kind, json.loads(data)))
        if kind == "pool-run":
            msg = json.loads(data)
            for kind_, part, text in answer(msg["run"], [json.loads(s) for s in msg["parts"]]):
                pooled.heard(kind_, msg["run"], part, text)
    return said, emit


def run_parts(run, specs, budget: float = 0.01):
    out = []
    for i, spec in enumerate(specs):
        part = pool.Part(pool.encode(spec))
        while not part.done:
            out.append(("points", i, part.batch(budget)))
    return out


def test_the_panel_worker_gathers_a_pooled_run_into_the_one_worker_results():
    from weighttying.app import pooled
    said, emit = fake_page(run_parts)
    pooled.setup(3, emit)
    st = SMALL["tasks"]
    points = drive(pooled.steps("tasks", st, st.seeds * 4 * st.steps, lambda: iter(())))
    merged = [p["merged"] for p in points if p["merged"] is not None]
    assert largest_difference(one_worker("tasks", st), merged[-1]) == 0.0
    assert points[-1]["step"] == st.seeds * 4 * st.steps and points[-1]["models"] == st.seeds * 4
    assert [k for k, _ in said] == ["pool-run"] and len(said[0][1]["parts"]) == 3


def test_the_panel_worker_merges_only_when_an_update_is_due(monkeypatch):
    """Batches between updates are only taken in: with a redraw due only once a minute, the section gets the
    first batch's progress and the last, merged twice in all, and the last is the one-worker result."""
    from weighttying.app import pooled
    merges, results = [], pool.Gather.results
    monkeypatch.setattr(pool.Gather, "results", lambda self: merges.append(1) or results(self))
    batches = []
    said, emit = fake_page(lambda run, specs: batches.extend(run_parts(run, specs, 1e-4)) or batches)
    pooled.setup(2, emit)
    st = SMALL["tasks"]
    points = drive(pooled.steps("tasks", st, st.seeds * 4 * st.steps, lambda: iter(()), draw_s=60.0))
    assert len(batches) > 10 and len(points) == 2 and len(merges) == 1 + 2  # the Run's start, the first, the last
    assert points[-1]["step"] == st.seeds * 4 * st.steps
    assert largest_difference(one_worker("tasks", st), points[-1]["merged"]) == 0.0


def test_a_section_slow_to_draw_gets_updates_at_most_a_share_of_the_time(monkeypatch):
    """An update that costs the section 0.1 s is followed by the next no sooner than 0.1 / SHARE s later (here:
    only the last, as the run's batches are all there at once), whatever draw_s says."""
    import asyncio
    import types

    from weighttying.app import pooled
    said, emit = fake_page(lambda run, specs: run_parts(run, specs, 1e-4))
    pooled.setup(2, emit)
    st = SMALL["tasks"]
    clock = [0.0]  # pooled's clock, which only the section's drawing moves: the test neither sleeps nor races
    monkeypatch.setattr(pooled, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))

    async def slow():
        out = []
        async for p in pooled.steps("tasks", st, st.seeds * 4 * st.steps, lambda: iter(()), draw_s=0.0):
            out.append(p)
            clock[0] += 0.1  # the bar, the status line and a redraw, on a slow device
        return out
    points = asyncio.run(slow())
    assert len(points) == 2 and largest_difference(one_worker("tasks", st), points[-1]["merged"]) == 0.0
    monkeypatch.setattr(pooled, "SHARE", 1.0)  # a section allowed all the time gets an update per batch
    assert len(asyncio.run(slow())) > 10


def test_a_cancelled_pooled_run_tells_the_page_to_stop_every_part():
    from weighttying.app import pooled
    said, emit = fake_page(lambda run, specs: run_parts(run, specs)[:1])
    pooled.setup(2, emit)
    drive(pooled.steps("tasks", SMALL["tasks"], 240, lambda: iter(())), stop_after=1)
    assert [k for k, _ in said] == ["pool-run", "pool-cancel"] and said[1][1]["run"] == said[0][1]["run"]


def test_a_pool_that_cannot_start_runs_here_with_a_note_and_is_not_asked_again():
    from weighttying.app import pooled
    said, emit = fake_page(lambda run, specs: [("failed", None, "The pool could not start (out of memory).")])
    pooled.setup(2, emit)
    st = SMALL["repeat"]
    points = drive(pooled.steps("repeat", st, st.steps, lambda: repeat.iter_race(st)))
    assert points[0]["note"].startswith("The pool could not start") and len(points) > 2
    assert largest_difference([p for p in points[1:] if "tied" in p], one_worker("repeat", st)["points"]) == 0.0
    assert not pooled.available("repeat")


def test_a_replaced_worker_restarts_its_part_and_the_run_still_merges():
    from weighttying.app import pooled

    def answer(run, specs):
        first = run_parts(run, specs)
        return [first[0], ("retry", 0, "A numerics worker stopped; its part was started again."), *first]
    said, emit = fake_page(answer)
    pooled.setup(2, emit)
    st = SMALL["pathdrop"]
    points = drive(pooled.steps("pathdrop", st, st.steps, lambda: iter(())))
    assert any("note" in p for p in points)
    merged = [p["merged"] for p in points if p.get("merged") is not None]
    assert largest_difference(one_worker("pathdrop", st), merged[-1]) == 0.0


def test_a_flushed_point_ends_its_batch_so_the_readers_code_starts_after_a_sent_word():
    """The code lab's part sends its bare first point before any reader code runs, and the checks before the race:
    an endless loop in the reader's code leaves the page a batch to time its silence from (site/pool.js QUIET)."""
    loop = "def lesson_backward(params, cfg, inputs, cache, dlogits):\n    while True:\n        pass\n"
    looping = state.Codelab(bug="yours", code=loop, steps=20)
    first = pool.decode(pool.Part(pool.encode(pool.split("codelab", looping, 1)[0])).batch(60))
    assert [p["step"] for p in first["points"]] == [0] and not first["done"]  # back at once, the loop not yet run
    correct = state.Codelab(bug="yours", code=codelab.original_source(), steps=20)
    part = pool.Part(pool.encode(pool.split("codelab", correct, 1)[0]))
    part.batch(60)
    checks = pool.decode(part.batch(60))["points"]
    assert len(checks) == 1 and checks[0]["entry"]["kind"] == "ok" and "flush" not in checks[0]  # the race comes next
    assert first["flush"] and pool.decode(part.batch(60))["flush"] is False  # the batches that end on one say so


def test_a_flushed_batch_is_drawn_at_once_however_recent_the_last_update():
    """The code lab's checks are the answer a reader waits for: with updates due only once a minute, the Panel worker
    still draws them as they arrive, before the race, and then only the race's end."""
    from weighttying.app import pooled
    said, emit = fake_page(run_parts)
    pooled.setup(1, emit)
    st = state.Codelab(bug="yours", code=codelab.original_source(), steps=20)
    points = drive(pooled.steps("codelab", st, st.steps, lambda: iter(()), draw_s=60.0))
    merged = [p["merged"] for p in points if p["merged"] is not None]
    assert len(merged) == 2 and merged[0]["yours"]["race"]["steps"] == []  # the checks alone, then the whole race
    assert merged[0]["yours"]["verdict"] == codelab.checks(codelab.original_source())["verdict"]
    assert merged[1]["yours"]["race"]["steps"][-1] == st.steps
