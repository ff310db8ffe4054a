"""The repeat-bias section's HTML: the rank table at init, the current setting's readout, its rank
histogram, and the tied-vs-untied ranks over training. No Panel here.

build.py prerenders `prerender(State().repeat)`; the live section reuses every function, so a number
reads the same before and after the page upgrades. Every live number carries a data-testid and its
exact float in data-value (see `Num`), the hooks the browser tests read.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import model, repeat
from .. import render as R
from .. import quoted
from .. import state as S

SEEDS = 5  # the init table averages seeds seed .. seed+4, as report.repeat_table does for seed 0
EVERY = 25  # training steps between points of the rank curves
CHUNK = 5  # steps per model between yields of a live run: ~1-2 ms a step in Pyodide, so a yield stays far below 100 ms
BINS = 16  # histogram bins of width V/16 = 4 ranks at V = 64
SLUG = {"tied, res = 1": "tied-res1", "untied": "untied", "chance": "chance", "tied, res = 0 (the control)": "tied-res0"}


@dataclass(frozen=True)
class Num:
    """A number shown in a table or readout with its test hook: data-testid and the exact repr."""
    testid: str
    x: float


def cell(v: object) -> str:
    """HTML of one cell: a Num with its hooks, a tuple of cells joined by an en dash, else escaped text."""
    if isinstance(v, Num):
        x = int(v.x) if isinstance(v.x, (int, np.integer)) else float(v.x)  # numpy scalars as plain repr
        return f'<span data-testid="{html.escape(v.testid)}" data-value="{x!r}">{html.escape(R.num(x))}</span>'
    if isinstance(v, tuple):
        return "–".join(cell(x) for x in v)
    return html.escape(R.num(v))


def plain(v: object) -> object:
    """The export form of a cell: Nums become their float, tuples of Nums 'lo-hi' text."""
    if isinstance(v, Num):
        return int(v.x) if isinstance(v.x, (int, np.integer)) else float(v.x)
    if isinstance(v, tuple):
        return "-".join(R.num(plain(x)) for x in v)
    return v


def table(columns: Sequence[str], rows: Sequence[Sequence[object]], caption: str, testid: str) -> str:
    """render.table's layout with cells that may carry test hooks (Num)."""
    head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return (f'<div style="overflow-x: auto"><table class="wt-table" data-testid="{html.escape(testid)}">'
            f"<caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def config(st: S.Repeat, tied: bool | None = None) -> model.Config:
    """The toy model of the current setting (tied overridable)."""
    return model.Config(sigma=st.sigma, res=st.res, seed=st.seed, tied=st.tied if tied is None else tied)


def setting(st: S.Repeat) -> str:
    """The current setting in words: 'tied, res = 1, σ = 0.25, seed 0'."""
    return f"{'tied' if st.tied else 'untied'}, res = {R.num(st.res)}, σ = {R.num(st.sigma)}, seed {st.seed}"


# ---- at init -------------------------------------------------------------------------------------

INIT_COLUMNS = ("model", f"mean rank, ours ({SEEDS} seeds)", "seed range", "page says", "verdict")


def init_rows(sigma: float, seed: int) -> list[list[object]]:
    """The four rows of the page's table at this sigma, averaged over seeds seed..seed+4, with verdicts."""
    rows = []
    for r in repeat.init_table(sigma=sigma, seeds=range(seed, seed + SEEDS)):
        page = quoted.PAGE["rank_init"][r["model"]]
        slug = SLUG[r["model"]]
        rows.append([r["model"], Num(f"repeat-rank-{slug}", r["mean_rank"]),
                     (Num(f"repeat-rank-{slug}-min", r["min"]), Num(f"repeat-rank-{slug}-max", r["max"])),
                     page, quoted.within(r["mean_rank"], page, quoted.RANK_TOL)])
    return rows


def init_table(rows: list[list[object]], sigma: float, seed: int) -> str:
    """The rank table at init as HTML."""
    return table(INIT_COLUMNS, rows, f"Mean rank (1 = top, out of 64) of the token just read, among the 64 "
                 f"predictions for the next one, at initialisation: σ = {R.num(sigma)}, seeds {seed} to "
                 f"{seed + SEEDS - 1}", "repeat-init-table")


def readout(st: S.Repeat, ranks: np.ndarray) -> str:
    """The current setting's mean self-rank and how often 'repeat' is the top prediction."""
    top = int((ranks == 1).sum())
    return (f'<p class="wt-readout" data-testid="repeat-readout">Current setting ({html.escape(setting(st))}), '
            f'freshly initialised: the token just read ranks {cell(Num("repeat-current", float(ranks.mean())))} '
            f'on average among the {ranks.size} candidates for the next token (chance: {R.num((ranks.size + 1) / 2)}), '
            f'and it is the top prediction for {cell(Num("repeat-top1", top))} of the {ranks.size} tokens.</p>')


def histogram(ranks: np.ndarray, V: int = 64) -> dict:
    """{"edges", "counts"} of ranks in BINS equal bins over [1, V+1)."""
    return repeat.rank_histogram(ranks, V, BINS)


def hist_text(label: str, h: dict) -> str:
    """A histogram as one line of text: the plot's text alternative."""
    e, c = h["edges"], h["counts"]
    bins = ", ".join(f"{R.num(e[i], 3)}–{R.num(e[i + 1] - 1, 3)}: {int(c[i])}" for i in range(len(c)) if c[i])
    return f"{label}, tokens per rank bin (non-empty bins): {bins}."


def hist_svg(ranks: np.ndarray, title: str) -> str:
    """The rank histogram as a static SVG bar chart."""
    h = histogram(ranks)
    return R.bars(h["counts"], title, f"rank of the just-read token, bins of {R.num(h['edges'][1] - h['edges'][0])}",
                  "tokens")


# ---- over training ---------------------------------------------------------------------------------

TRAINED_COLUMNS = ("model", "mean rank, ours (this seed)", "page says (600 steps)", "verdict")


def trained_rows(last: dict | None) -> list[list[object]]:
    """Tied vs untied mean self-rank at the last point of a race, beside the page's 600-step numbers."""
    rows = []
    for name in ("tied", "untied"):
        page = quoted.PAGE["rank_trained"][name]
        if last is None:
            rows.append([name, "not trained yet", page, "n/a"])
        else:
            rows.append([name, Num(f"repeat-trained-{name}", last[name]), page,
                         quoted.within(last[name], page, quoted.RANK_TOL)])
    return rows


def trained_table(rows: list[list[object]], st: S.Repeat, step: int) -> str:
    """The after-training table as HTML."""
    return table(TRAINED_COLUMNS, rows, f"Mean rank of the just-read token after {step} of {st.steps} steps "
                 f"(lr {R.num(st.lr)}, res = {R.num(st.res)}, σ = {R.num(st.sigma)}, seed {st.seed}); "
                 f"the page's numbers are after 600 steps at res = 1", "repeat-trained-table")


def curves_svg(points: list[dict]) -> str:
    """Mean self-rank of tied and untied over training, as a static SVG line chart."""
    series = {name: [p[name] for p in points] for name in ("tied", "untied")}
    return R.lines(series, "Mean rank of the just-read token over training",
                   f"training step (a point every {EVERY}, last {points[-1]['step']})", "mean rank")


def prerender(st: S.Repeat) -> str:
    """Default state: init table, readout, histogram, and the full training race with its table."""
    ranks = repeat.self_ranks(model.init_params(config(st)), config(st))
    points = list(repeat.race(st.res, st.sigma, st.steps, st.lr, st.seed, chunk=EVERY, every=EVERY))
    return (init_table(init_rows(st.sigma, st.seed), st.sigma, st.seed) + readout(st, ranks)
            + hist_svg(ranks, f"Where the just-read token ranks at init ({setting(st)})")
            + trained_table(trained_rows(points[-1]), st, points[-1]["step"]) + curves_svg(points))
