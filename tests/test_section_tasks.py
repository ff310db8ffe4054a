"""The tasks section: its tables show exactly what weighttying.tasks computes, beside the page's numbers
with report.py's verdicts, rows stream in pair by pair once the stacked models are trained, and the run cancels."""

import re
from pathlib import Path

import panel as pn

from weighttying import lens, model, quoted, report, tasks
from weighttying import state
from weighttying.app.sections import tasks as section
from weighttying.app.store import Store
from weighttying.views import tasks as tasks_view
from carried_numbers import carried, near
from test_section_repeat import run_until_done, shown, values

# the section's prose as a reader reads it (whitespace as one space), from the file the registry declares
PROSE = " ".join((Path(__file__).resolve().parents[1] / state.SECTION["tasks"].html).read_text().split())


def runs_of(seeds, steps, chunk=tasks_view.CHUNK):
    runs = tasks_view.empty()
    for p in tasks.iter_runs(seeds, steps, state.Tasks().lr, chunk=chunk):
        tasks_view.collect(runs, p)
    return runs


def mean_ratio(row: dict) -> float:
    """The report's ratio of a tasks.table row: the mean of its per-seed ratios."""
    return quoted.mean_sd([r["ratio"] for r in row["runs"]])[0]


def test_streamed_runs_give_tasks_table_exactly():
    want = tasks.table(seeds=range(2), steps=40)
    runs = runs_of(range(2), 40)
    for w in want:
        s = tasks.summary(w["task"], runs[w["task"]])
        assert {k: s[k] for k in ("tied", "untied", "ratio", "ratio_min", "ratio_max")} == \
               {k: w[k] for k in ("tied", "untied", "ratio", "ratio_min", "ratio_max")}
    got = values(tasks_view.summary_table(tasks_view.summary_rows(runs, 2), state.Tasks(seeds=2, steps=40)))
    assert near(got["tasks-aligned-ratio"], mean_ratio(want[0]))  # a mean of carried ratios
    assert got["tasks-misaligned-rmax"] == carried(want[1]["ratio_max"])


def test_chunks_are_short_and_progress_counts_every_step():
    points = list(tasks.iter_runs(range(1), 30, 0.5, chunk=10))
    # the four models train as one stack: a point per chunk of 10 steps (4 x 10 model steps), then the pairs
    assert [p["step"] for p in points] == [40, 80, 120, 120, 120] and points[-1]["total"] == 120
    assert [p.get("run", {}).get("seed") for p in points] == [None] * 3 + [0, 0]  # one (seed, task) pair per task
    assert {p["models"] for p in points} == {4}


def test_table_rows_page_numbers_verdicts_and_both_savings():
    runs = runs_of(range(1), 30)
    rows = {r[0].split(" (")[0].split(",")[0]: r for r in tasks_view.summary_rows(runs, 1)}
    ratio = rows["MISALIGNED: ratio tied/untied"]
    assert ratio[2] == report.PAGE["ratio"]["MISALIGNED"] and ratio[1].x == runs["MISALIGNED"][0]["ratio"]
    assert ratio[3].text.startswith("n/a (one run")  # one seed, no spread of its own: not judged with a band
    two = {r[0].split(" (")[0].split(",")[0]: r for r in tasks_view.summary_rows(runs_of(range(2), 30), 2)}
    per_seed = [r["ratio"] for r in runs_of(range(2), 30)["MISALIGNED"]]
    j = quoted.judge("tasks.misaligned.ratio", per_seed)
    assert (two["MISALIGNED: ratio tied/untied"][3].text, two["MISALIGNED: ratio tied/untied"][3].tol) == \
        (quoted.explained(j), j["tol"])
    assert near(two["MISALIGNED: ratio tied/untied"][1].x, j["ours"])  # judge means the carried seeds
    rng = rows["ALIGNED: per-seed ratio range"]
    assert rng[3] == quoted.same_side_of_one(rng[1][0].x, rng[1][1].x, *report.PAGE["ratio_range"]["ALIGNED"])
    c = tasks.parameter_counts()
    assert (c["tied"], c["untied"], c["removed"]) == (3152, 4176, 64 * 16)
    saving, of_tied = rows["V·d / untied total"], rows["V·d / tied total"]
    assert abs(saving[1].x - 1024 / 4176) < 1e-15 and saving[3].text.startswith("differs")
    assert abs(of_tied[1].x - 1024 / 3152) < 1e-15 and of_tied[3].text.startswith("agrees")
    pending = tasks_view.summary_rows(tasks_view.empty(), 5)
    assert pending[0][1] == "not run yet" and pending[0][2] == report.PAGE["excess"]["ALIGNED"][0]


def test_live_run_fills_the_table_seed_by_seed_and_drops_it_on_change():
    store = Store(state.parse_query("tasks.seeds=2&tasks.steps=20")[0], base_url="http://x/")
    root = section.build(store)
    assert "not run yet" in shown(root) and "tasks-aligned-tied" not in values(shown(root))
    seen = []
    orig = tasks_view.collect

    def spy(runs, point):
        got = orig(runs, point)
        if got:
            seen.append(sum(len(r) for r in runs.values()))
        return got
    tasks_view.collect = spy
    try:
        run_until_done(root, "Run the seeds")
    finally:
        tasks_view.collect = orig
    assert seen == [1, 2, 3, 4]  # rows arrive one (seed, task) pair at a time, once the stack is trained
    got = values(shown(root))
    want = tasks.table(seeds=range(2), steps=20)
    assert near(got["tasks-aligned-tied"], want[0]["tied"])  # a mean of carried losses
    assert near(got["tasks-misaligned-ratio"], mean_ratio(want[1]))
    assert got["tasks-s1-misaligned-ratio"] == carried(want[1]["runs"][1]["ratio"])
    assert "All 2 seeds done." in shown(root)
    store["tasks"].lr = 0.25
    assert "tasks-aligned-tied" not in values(shown(root)) and "Not run yet for these settings" in shown(root)


def test_cancel_stops_the_seeds():
    store = Store(state.parse_query("tasks.seeds=10&tasks.steps=2000")[0])
    root = section.build(store)
    run_until_done(root, "Run the seeds", cancel_after=5)
    assert "Cancelled." in shown(root) and "tasks-aligned-tied" not in values(shown(root))
    assert not any(b.disabled for b in root.select(pn.widgets.Button) if b.name == "Run the seeds")


def test_the_prose_reading_of_the_posts_32_percent_is_arithmetic_on_our_toy():
    """tasks.html: the post's "32% fewer" is V·d over our tied total, and over the untied total only for a narrower
    MLP than our reconstruction's; the sentence's widths, entries and share are checked here, not trusted."""
    found = re.search(r"ours \((\d+)\) is a reconstruction: with an MLP of (\d+) units the same (\d+) entries "
                      r"would be (\d+)% of the untied total", PROSE)
    assert found, "tasks.html no longer says which MLP width would make the post's share one of the untied total"
    ours, narrow, entries, share = map(int, found.groups())
    toy = model.Config()
    assert (ours, entries) == (toy.hidden, toy.V * toy.d)
    page = round(100 * quoted.PAGE["toy_saving"])
    assert share == page

    def percent_of(hidden: int, tied: bool) -> int:
        return round(100 * entries / tasks.param_count(model.Config(hidden=hidden, tied=tied)))

    assert percent_of(ours, tied=True) == page != percent_of(ours, tied=False)
    assert percent_of(narrow, tied=False) == page


def test_the_aside_on_longer_training_holds_at_the_steps_controls_end():
    """tasks.html's aside: trained to the steps control's end, the misaligned ratio grows while its gap in nats stays
    within seed noise of the recipe's, and the aligned ratio sits above one. Noise is the paired standard error over
    the seeds (the same seeds at both budgets), two of them the tolerance, as the section's verdicts use."""
    end = state.BY_KEY["tasks.steps"].hi
    assert f"the steps control goes to {end:,}" in PROSE and "the aligned task the ratio drifts above one" in PROSE
    base, longer = ({row["task"]: row["runs"] for row in tasks.table(steps=s)} for s in (state.Tasks().steps, end))

    def gap(run: dict) -> float:
        return run["tied"] - run["untied"]

    # lens.verdict: the mean and paired standard error of per-seed differences (its words are the paper's, unused)
    moved, se, _ = lens.verdict([gap(b) - gap(x) for b, x in zip(base["MISALIGNED"], longer["MISALIGNED"])])
    assert abs(moved) <= 2 * se, (moved, se)
    grew, se, _ = lens.verdict([x["ratio"] - b["ratio"] for b, x in zip(base["MISALIGNED"], longer["MISALIGNED"])])
    assert grew > 2 * se, (grew, se)
    aligned, se, _ = lens.verdict([x["ratio"] for x in longer["ALIGNED"]])
    assert aligned - 1 > 2 * se, (aligned, se)


def test_the_plots_caption_counts_the_seeds_under_one_per_task():
    """Under the per-seed plot, what it shows: per task, how many of the seeds run so far have tying help (a ratio
    under 1), from the same runs the dots are; before any run, only how to read it."""
    assert "here" not in tasks_view.plot_said(tasks_view.empty())
    runs = tasks_view.empty()
    runs["ALIGNED"] = [{"ratio": r} for r in (0.98, 1.02, 0.99)]
    assert tasks_view.plot_said(runs).endswith("tying helped: here for 2 of 3 aligned seeds.")
    runs["MISALIGNED"] = [{"ratio": r} for r in (1.4, 1.5)]
    assert tasks_view.plot_said(runs).endswith("here for 2 of 3 aligned seeds and for 0 of 2 misaligned seeds.")
    plot = tasks_view.plot(runs)
    assert 'data-testid="tasks-plot-text">' + tasks_view.plot_said(runs).replace("'", "&#x27;") in plot
