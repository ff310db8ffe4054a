"""The page judges its "page says" rows as the report does: at the default state every verdict a section
shows (hooked as verdict-<id>, data-value = its tolerance) is the report's verdict and tolerance for that
id; a single live run takes its spread from the build's seeds, and without it is not judged at all; the
paper section shows the tuned lens the build computed, with the report's verdicts."""
import re

import pytest

from weighttying import lens, measure, prerender, quoted, report
from weighttying import state
from weighttying.views import kit, paper, pathdrop
from weighttying.precision import carried, carry

VIEWS = {sid: prerender.view(sid) for sid in state.SECTIONS}
HOOK = re.compile(r'data-testid="verdict-([\w.]+)(?:-seeds)?" data-value="([^"]*)" data-verdict="([^"]*)">([^<]*)<'
                  r'(?:/span></summary><span class="wt-rule">([^<]*)<)?')


def shown_verdicts(html: str) -> list[tuple[str, str, str]]:
    """(id, tolerance repr, chip text + " (" + the rule it opens to + ")") of every verdict chip, in order."""
    def unescape(t):
        return t.replace("&lt;", "<").replace("&gt;", ">").replace("&#x27;", "'")
    return [(qid, tol, unescape(f"{word} ({rule})" if rule else word)) for qid, tol, _, word, rule in HOOK.findall(html)]


def chip_of(report_row: dict) -> str:
    """The chip's word the page shows for a report row: agrees, differs by X, not resolved, n/a."""
    gap = abs(report_row["ours"] - report_row["page"]) if report_row["verdict"].startswith("differs") else float("nan")
    return kit.chip(report_row["verdict"], gap)[0]


@pytest.fixture(scope="module")
def default_html() -> dict[str, str]:
    """Each section's slots at its default state with the results the build ships for it."""
    out = {}
    for sid, v in VIEWS.items():
        st = getattr(state.State(), sid)
        out[sid] = "".join(v.slots(st, kit.with_results(v, st)).values())
    return out


@pytest.fixture(scope="module")
def report_rows() -> dict[str, dict]:
    """{id: report row} of every judged report table, from the same seeds the page's build uses."""
    rows = report.pathdrop_table() + report.repeat_table() + report.tasks_table()
    rows += report.savings_table()
    orig, lens.study = lens.study, paper.tuned_study  # the same study (lens.study(), deterministic), once
    try:
        rows += report.lens_rows()
    finally:
        lens.study = orig
    return {r["id"]: r for r in rows}


def test_every_default_verdict_is_the_reports(default_html, report_rows):
    seen = set()
    for sid, html in default_html.items():
        for qid, tol, text in shown_verdicts(html):
            if "one run of ours" in text:  # this seed's own run: judged with the build's spread, checked below
                continue
            want = report_rows[qid]
            assert text.split(" (")[0] == chip_of(want), (sid, qid)
            assert "python -m" not in text and "docs/" not in text, (sid, qid)  # commands are the report's
            assert float(tol) == carried(want["tol"]), (sid, qid)
            assert f"tolerance {want['tol']:.3g}" in text or qid.startswith("paper."), (sid, qid, text)
            seen.add(qid)
    on_page = {"pathdrop.wrong_rows.both", "pathdrop.wrong_rows.output_only", "pathdrop.wrong_rows.input_only",
               "pathdrop.loss.correct", "pathdrop.loss.output_only", "pathdrop.loss.gap",
               "repeat.init.tied_res1", "repeat.init.untied", "repeat.init.chance", "repeat.init.tied_res0",
               "repeat.trained.tied", "repeat.trained.untied", "tasks.saving", "tasks.saving_of_tied",
               *(f"tasks.{t}.{k}" for t in ("aligned", "misaligned") for k in ("tied", "untied", "ratio")),
               *(quoted.share_id(p) for p in ("gpt2-small", "large-vocab-toy", "char-model")),
               *(f"paper.lens.{k}" for k in lens.MEASURES)}
    assert seen == on_page


def test_a_single_run_takes_its_spread_from_the_builds_seeds(default_html):
    spread = {**measure.spread("pathdrop"), **measure.spread("repeat")}
    single = [(qid, float(tol), text) for sid in VIEWS
              for qid, tol, text in shown_verdicts(default_html[sid]) if "one run of ours" in text]
    assert {q for q, _, _ in single} == {"pathdrop.loss.correct", "pathdrop.loss.output_only", "pathdrop.loss.gap",
                                          "repeat.trained.tied", "repeat.trained.untied"}
    for qid, tol, text in single:
        _, decimals, runs = quoted.QUOTES[qid]
        sd = quoted.mean_sd(carry(spread[qid]))[1]  # a verdict judges the seeds as the page carries them
        assert runs == quoted.ONE_RUN  # the page's races read as single runs
        assert tol == carried(2 * (sd ** 2 / runs + sd ** 2 / 1) ** 0.5 + 0.5 * 10 ** -decimals)
        assert tol == carried(quoted.tolerance(sd, 1, decimals, runs))
        assert f"build's {len(measure.SEEDS)} seeds" in text and len(measure.SEEDS) >= 10
    # the same run without the build's spread is not judged with any band
    st = state.Pathdrop()
    res = pathdrop.results(st)
    bare = pathdrop.slots(st, {"points": res["points"]})["finals"]
    assert [text[:4] for _, _, text in shown_verdicts(bare)] == ["n/a "] * 3
    assert {tol for _, tol, _ in shown_verdicts(bare)} == {"nan"}


def test_no_fixed_bands_are_left():
    for name in ("RANK_TOL", "EXCESS_TOL", "RATIO_TOL", "SAVING_TOL", "within"):
        assert not hasattr(quoted, name)
    assert not hasattr(pathdrop, "LOSS_TOL")


def test_paper_shows_the_builds_tuned_lens_with_the_reports_verdicts(default_html):
    t = paper.tuned_study()
    html = default_html["paper"]
    got = {k: float(v) for k, v in re.findall(r'data-testid="(paper-tuned-[\w-]+)" data-value="([^"]*)"', html)}
    assert got == {"paper-tuned-tied": carried(t["tied"]["tuned_kl_share"]),
                   "paper-tuned-untied": carried(t["untied"]["tuned_kl_share"])}
    assert 'data-testid="paper-tuned-layers"' in html and html.count("after block") >= lens.BLOCKS
    assert "Computed at build by this page" in html
    # as measured, and as the prose says: not resolved at toy scale on any measure
    assert all(t["verdict"][k].startswith("not resolved") for k in lens.MEASURES)
    pending = paper.slots(state.Paper(seeds=1), None)["tuned"]
    assert 'data-testid="paper-tuned"' in pending and "computed at build" in pending and "verdict-" not in pending
