"""The repeat-bias section's output: the rank table at init, the current setting's readout and its rank
histogram, and tied vs untied ranks over training. No Panel.

The init table, readout and histogram are cheap (a few forward passes over the toy's tokens) and follow
the controls. `results(st)` is the tied-vs-untied race, a Run's work: the live section streams the
same points into `slots` as they arrive; a change of res, sigma, steps, lr or seed (RUN_KEYS) leaves
the trained slots saying so until the reader trains again.
"""
from __future__ import annotations

import functools

import numpy as np

from ..markup import escape
from .. import measure, model, pool, recipes, repeat
from .. import render
from .. import quoted
from .. import state
from .kit import (TOY, Num, at_defaults, cell, claim, grid, hook, judged, lin, log, note, recipe_text, run_verdict, search_html,
                  seeds_row, source,
                  table)

SEEDS = 5  # the init table averages seeds seed .. seed+4, as report.repeat_table does for seed 0
EVERY = 25  # training steps between points of the rank curves
CHUNK = 5  # steps per model between yields of a live run: ~1-2 ms a step in Pyodide, so a yield stays far below 100 ms
BINS = 16  # histogram bins of width V/16 = 4 ranks at V = 64
SLUG = {"tied, res = 1": "tied-res1", "untied": "untied", "chance": "chance", "tied, res = 0 (the control)": "tied-res0"}
SLOTS = ("claim", "readout", "init", "hist", "curves", "trained")
# A change of a RUN_KEYS field leaves the run's slots pending until the reader presses Run (the one policy:
# app.kit.RunSection, docs/DESIGN.md "Runs"); nothing starts by itself.
RUN_KEYS = ("res", "sigma", "steps", "lr", "seed")
_SIGMA = state.BY_KEY["repeat.sigma"]
# tied; res at every tenth of its slider; sigma on its log slider's grid, 4 a decade over 1e-4..1e4 and the
# ends. steps, lr and seed are not listed: they change only the trained slots, which need a Run.
PLAYBACK = {"tied": grid("repeat", "tied"), "res": grid("repeat", "res", lin(0.0, 1.0, 0.1)),
            "sigma": grid("repeat", "sigma", (_SIGMA.lo, *log(1e-4, 1e4, 4), _SIGMA.hi))}
DEPENDS = {"claim": ("sigma", "seed"), "readout": ("tied", "res", "sigma", "seed"), "init": ("sigma", "seed"), "hist": (*RUN_KEYS, "tied"),
           "trained": RUN_KEYS, "curves": RUN_KEYS}
CLAIM = "claim"
PAIRS = (("hist", "curves"),)
DATA = ("trained",)  # the ranks after training, judged: the curves above show them


def config(st: state.Repeat, tied: bool | None = None) -> model.Config:
    """The toy model of the current setting (tied overridable)."""
    return model.Config(V=TOY.V, d=TOY.d, sigma=st.sigma, res=st.res, seed=st.seed,
                        tied=st.tied if tied is None else tied)


def setting(st: state.Repeat) -> str:
    """The current setting in words: 'tied, res = 1, σ = 0.25, seed 0'."""
    return f"{'tied' if st.tied else 'untied'}, res = {render.num(st.res)}, σ = {render.num(st.sigma)}, seed {st.seed}"


INIT_COLUMNS = ("model", f"mean rank, ours ({SEEDS} seeds)", "seed range", "page says", "verdict")


@functools.lru_cache(maxsize=64)
def init_ranks(sigma: float, seed: int) -> tuple[dict, ...]:
    """repeat.init_table at this sigma over seeds seed..seed+4 (memoised: a tied toggle does not redo it)."""
    return tuple(repeat.init_table(V=TOY.V, d=TOY.d, sigma=sigma, seeds=range(seed, seed + SEEDS)))


def init_rows(sigma: float, seed: int) -> list[list[object]]:
    """The four rows of the page's table at this sigma, averaged over seeds seed..seed+4, with verdicts."""
    rows = []
    for r in init_ranks(sigma, seed):
        page = quoted.PAGE["rank_init"][r["model"]]
        slug = SLUG[r["model"]]
        rows.append([r["model"], Num(f"repeat-rank-{slug}", r["mean_rank"]),
                     (Num(f"repeat-rank-{slug}-min", r["min"]), Num(f"repeat-rank-{slug}-max", r["max"])),
                     page, judged(f"repeat.init.{slug.replace('-', '_')}", r["per_seed"],
                                  measure.spread("repeat.init").get(f"repeat.init.{slug.replace('-', '_')}"))])
    return rows


def init_table(rows: list[list[object]], sigma: float, seed: int) -> str:
    """The rank table at init as HTML."""
    return table(INIT_COLUMNS, rows, f"Mean rank (1 = top, out of {TOY.V}) of the token just read, among the {TOY.V} "
                 f"predictions for the next one, at initialisation: σ = {render.num(sigma)}, seeds {seed} to "
                 f"{seed + SEEDS - 1}", "repeat-init-table")


def spread_html(sigma: float, seed: int) -> str:
    """The logits behind the table's first row (tied, res = 1, at init, seeds seed..seed+4): the just-read token's
    logit beside the spread of the others, the numbers the prose reasons with."""
    s = repeat.init_spread(TOY.V, TOY.d, sigma, range(seed, seed + SEEDS))
    n = {k: hook(f"repeat-{k.replace('_', '-')}", s[k], render.num(s[k], 2), tag="span") for k in s}
    return (f'<p class="wt-help" data-testid="repeat-spread">Behind the first row: over the same seeds, the just-read '
            f'token\'s logit is {n["self_mean"]} on average, give or take {n["self_sd"]} from token to token (one '
            f'standard deviation), while the other {TOY.V - 1} logits sit around {n["other_mean"]}, give or take '
            f'{n["other_sd"]}. Where the two spreads overlap, the first row\'s mean rank sits above 1.</p>')


def claim_html(sigma: float, seed: int) -> str:
    """The page's claim: freshly initialised, a tied model with a residual stream ranks the token just read
    near the top (page 1.7 of 64), an untied one near chance."""
    rows = {r[0]: r for r in init_rows(sigma, seed)}
    return claim([(f"Rank of the token just read, {model}, at init", render.num(rows[model][1].x, 3), rows[model][3],
                   rows[model][4]) for model in list(rows)[:2]], "repeat-claim")


def readout(st: state.Repeat, ranks: np.ndarray) -> str:
    """The current setting's mean self-rank and how often 'repeat' is the top prediction."""
    top = int((ranks == 1).sum())
    return (f'<p class="wt-readout" data-testid="repeat-readout">Current setting ({escape(setting(st))}), '
            f'freshly initialised: the token just read ranks {cell(Num("repeat-current", float(ranks.mean())))} '
            f'on average among the {ranks.size} candidates for the next token (chance: {render.num((ranks.size + 1) / 2)}), '
            f'and it is the top prediction for {cell(Num("repeat-top1", top))} of the {ranks.size} tokens.</p>')


def histogram(ranks: np.ndarray) -> dict:
    """{"edges", "counts"} of ranks in BINS equal bins over [1, V+1)."""
    return repeat.rank_histogram(ranks, TOY.V, BINS)


def hist_text(label: str, h: dict) -> str:
    """A histogram as one line of text: the plot's text alternative."""
    e, c = h["edges"], h["counts"]
    bins = ", ".join(f"{name}: {int(n)}" for name, n in zip(bin_names(e), c) if n)
    return f"{label}, tokens per rank bin (non-empty bins): {bins}."


def bin_names(edges) -> list[str]:
    """Each bin's ranks as the readout names them, e.g. "1–4" (edges (BINS+1,), integer ranks)."""
    return [f"{render.num(edges[i], 3)}–{render.num(edges[i + 1] - 1, 3)}" for i in range(len(edges) - 1)]


def hist_html(st: state.Repeat, ranks: np.ndarray, points: list[dict]) -> str:
    """The current setting's rank histogram at init (and after training, when a run exists) with its text."""
    h = {"at init": histogram(ranks)}
    if points:
        h[f"after {points[-1]['step']} steps"] = histogram(points[-1]["ranks"]["tied" if st.tied else "untied"])
    width = render.num(h["at init"]["edges"][1] - h["at init"]["edges"][0])
    text = " ".join(hist_text(label[0].upper() + label[1:], x) for label, x in h.items())
    top = {label: x["counts"][0] / max(x["counts"].sum(), 1) for label, x in h.items()}
    said = "; ".join(f"{label}, {share:.0%} of the tokens rank it in the top bin" for label, share in top.items())
    said = f"Left is the top of the ranking. {said[0].upper() + said[1:]}."
    return (render.bars({k: x["counts"] for k, x in h.items()}, f"Where the just-read token ranks ({setting(st)})",
                   f"rank among {TOY.V} predictions (1 = top), bins of {width}", "tokens",
                   bins=bin_names(h["at init"]["edges"]), xname="ranks", heading="rank of the just-read token",
                   alt=text)
            + note(said, testid="repeat-hist-text"))


# ---- over training ---------------------------------------------------------------------------------

TRAINED_COLUMNS = ("model", "mean rank, ours", "page says (600 steps)", "verdict")
TRAINED_IDS = {name: f"repeat.trained.{name}" for name in ("tied", "untied")}
PAGE_RECIPE = ("res", "sigma", "steps", "lr")  # the page's trained ranks: 600 steps at res = 1, the toy's sigma


def trained_rows(st: state.Repeat, last: dict | None, noise: dict) -> list[list[object]]:
    """Tied vs untied mean self-rank at the last point of a race (this seed) beside the page's 600-step numbers,
    judged like the report with the build's seed spread; then the build's own seeds' rows."""
    rows = []
    done = last is not None and last["step"] == st.steps and at_defaults(st, PAGE_RECIPE)
    for name, qid in TRAINED_IDS.items():
        page = quoted.PAGE["rank_trained"][name]
        if last is None:
            rows.append([f"{name}, seed {st.seed}", "not trained yet", page, "n/a"])
        else:
            rows.append([f"{name}, seed {st.seed}", Num(f"repeat-trained-{name}", last[name]), page,
                         run_verdict(qid, last[name], noise, done, f"judged at the page's race only: {RECIPE.steps} "
                                     f"steps at res = 1, lr {RECIPE.lr:g}, the toy's σ")])
    return rows + [seeds_row(name, qid, noise, f"repeat-trained-{name}-seeds")
                   for name, qid in TRAINED_IDS.items() if qid in noise]


def trained_table(rows: list[list[object]], st: state.Repeat, step: int) -> str:
    """The after-training table as HTML."""
    return table(TRAINED_COLUMNS, rows, f"Mean rank of the just-read token after {step} of {st.steps} steps "
                 f"(lr {render.num(st.lr)}, res = {render.num(st.res)}, σ = {render.num(st.sigma)}, seed {st.seed}); "
                 f"the page's numbers are after 600 steps at res = 1; {recipe_text(RECIPE)}", "repeat-trained-table")


def curves_html(points: list[dict]) -> str:
    """Mean self-rank of tied and untied over training (inline SVG) and its text, or how to get it."""
    if not points:
        return note("Not trained yet for these settings: press Train.", testid="repeat-curve-text")
    series = {name: [p[name] for p in points] for name in ("tied", "untied")}
    text = "; ".join(f"{k}: mean rank {render.num(points[0][k])} at step 0, {render.num(points[-1][k])} at step "
                     f"{points[-1]['step']}" for k in ("tied", "untied"))
    said = (f"Lower is nearer the top; chance is {render.num((TOY.V + 1) / 2)}. Tied: {render.num(points[0]['tied'], 3)} at step 0, "
            f"untied: {render.num(points[0]['untied'], 3)}; each curve ends at its step-{points[-1]['step']} rank.")
    return (render.lines(series, "Mean rank of the just-read token over training", "training step", "mean rank (1 = top)",
                    xs=[p["step"] for p in points], xname="step", heading="mean rank over training", alt=text)
            + note(said, testid="repeat-curve-text"))


RECIPE = recipes.REPEAT  # the race's task and batch (no control: the page leaves them open, calibrate chose)


def iter_race(st: state.Repeat, chunk: int = CHUNK, names=("tied", "untied")):
    """repeat.race for st (its models `names`): progress dicts every chunk of steps, rank points every EVERY steps."""
    return repeat.race(st.res, st.sigma, st.steps, st.lr, st.seed, chunk, EVERY, V=TOY.V, d=TOY.d,
                       task=measure.race_task(RECIPE), batch=RECIPE.batch, names=names)


steps = iter_race  # the Run (app.kit.RunSection): tied and untied, side by side


def total(st: state.Repeat) -> int:
    """The Run's steps: each model's SGD steps."""
    return st.steps


def results(st: state.Repeat) -> dict:
    """The tied-vs-untied race, {"points": its rank points} (chunking changes no number, so one chunk per
    point), and {"noise": the trained ranks of the build's seeds (measure.spread)}, which judge a single race."""
    return {"points": [p for p in iter_race(st, chunk=EVERY) if "tied" in p],
            "noise": measure.spread("repeat")}


def init_ranks_now(st: state.Repeat) -> np.ndarray:
    """Self-ranks (V,) of the current setting's freshly initialised model."""
    return repeat.self_ranks(model.init_params(config(st)), config(st))


def slots(st: state.Repeat, results: dict | None = None) -> dict[str, str]:
    """The section's output for st; the trained slots from `results` (finished or streaming), else pending."""
    points, noise = (results or {}).get("points") or [], (results or {}).get("noise") or {}
    ranks = init_ranks_now(st)
    return {"claim": claim_html(st.sigma, st.seed), "readout": readout(st, ranks), "init": init_table(init_rows(st.sigma, st.seed), st.sigma, st.seed)
            + spread_html(st.sigma, st.seed),
            "hist": hist_html(st, ranks, points), "curves": curves_html(points),
            "trained": trained_table(trained_rows(st, points[-1] if points else None, noise), st,
                                     points[-1]["step"] if points else 0)
            + search_html("repeat", st, PAGE_RECIPE) + (source(results, "repeat-source") if points else "")}


# ---- a Run split across workers (weighttying.pool) ----

def split(st: state.Repeat, n: int) -> list[dict]:
    """The race's two models, apart when there are two workers: {"names": [...]}."""
    return [{"names": p} for p in pool.balanced(["tied", "untied"], n)]


def iter_part(st: state.Repeat, part: dict):
    """iter_race for the part's models alone (each model's numbers are the race's), "total" in every point."""
    return ({**p, "total": st.steps} for p in iter_race(st, names=tuple(part["names"])))


def merge(st: state.Repeat, streams: list[list[dict]]) -> dict:
    """The race's rank points that every part has reached, each as the one-stack race yields it."""
    ranked = [[p for p in s if "ranks" in p] for s in streams]
    points = []
    for same in zip(*ranked):
        point = {"step": same[0]["step"], "loss": float(np.max([p["loss"] for p in same])), "ranks": {}, "eval": {}}
        for p in same:
            point.update({k: p[k] for k in p["ranks"]})
            point["ranks"].update(p["ranks"])
            point["eval"].update(p["eval"])
        points.append(point)
    return {"points": points}
