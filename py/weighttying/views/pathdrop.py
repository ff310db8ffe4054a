"""The path-drop section's output: readout, wrong-rows table, E's error heatmap, k-entry check, the +=
trap, and the correct vs broken loss curves. No Panel.

The numerical gradient of the page's batch (8 distinct tokens among 32) is computed once per seed
(through the caller's `kit.Differences`; live, the store's, in steps through a Runner) and travels in
`results["numeric"]`; every toggle then only recomputes the analytic side, so flipping is instant. `results(st)` is the training race behind the curves: a Run's work, so
a change of steps, lr or seed (RUN_KEYS) leaves the curves pending until the reader trains again.
"""
from __future__ import annotations

import math

import numpy as np

from ..markup import escape
from .. import gradcheck, measure, model, pathdrop, pool, recipes, render, state
from ..quoted import PAGE
from .kit import (TOY, Differences, at_defaults, claim, error_heatmap, grid, hook, judged, last, note, pending, recipe_text,
                  run_verdict, search_html, seeds_row, source, table as hooked_table)

DISTINCT, B = 8, 32  # the page's batch: 8 distinct tokens among 32
TRIALS = 10_000  # simulated random-entry checks per k: ~20 ms in Pyodide, standard error <= 0.005
CURVES = ("both paths", "output path only")  # correct vs broken (input path dropped)
LOSS_IDS = {"both paths": "pathdrop.loss.correct", "output path only": "pathdrop.loss.output_only",
            "gap": "pathdrop.loss.gap"}
PAGE_RECIPE = ("steps", "lr")  # the run judged against the page's two losses: the calibrated race's, any seed
RECIPE = recipes.PATHDROP  # the race's task and batch (no control: the page leaves them open, calibrate chose)
CURVE_CHUNK = 5  # SGD steps per run between yields: ~15 ms each in Pyodide, so Cancel lands at once
SLOTS = ("claim", "readout", "table", "heatmap", "curves", "kcheck", "trap", "finals")
# A change of a RUN_KEYS field leaves the run's slots pending until the reader presses Run (the one policy:
# app.kit.RunSection, docs/DESIGN.md "Runs"); nothing starts by itself.
RUN_KEYS = ("steps", "lr", "seed")
# Both toggles and the k slider at a few positions; seed, steps and lr need a new run (not listed).
PLAYBACK = {"input": grid("pathdrop", "input"), "output": grid("pathdrop", "output"),
            "k": grid("pathdrop", "k", (1, 2, 5, 10, 50, 100, 200, 500, 1024))}
DEPENDS = {"claim": ("seed",), "readout": ("input", "output", "seed"), "table": ("input", "output", "seed"),
           "heatmap": ("input", "output", "seed"), "kcheck": ("input", "output", "k", "seed"), "trap": ("seed",),
           "curves": RUN_KEYS, "finals": RUN_KEYS}
CLAIM = "claim"
PAIRS = (("heatmap", "curves"),)  # the wrong rows and what they do to training, side by side
DATA = ("finals",)  # the two losses judged against the page's: the curves above show the gap


def config(st: state.Pathdrop) -> model.Config:
    """The page's toy: tied, res 1, default shape; the seed picks the init."""
    return model.Config(V=TOY.V, d=TOY.d, seed=st.seed)


def batch(st: state.Pathdrop) -> tuple[np.ndarray, np.ndarray]:
    """The page's batch for this seed: (inputs (32,), targets (32,))."""
    return pathdrop.batch(config(st).V, DISTINCT, B, st.seed)


def entries(st: state.Pathdrop) -> int:
    """Entries of every parameter: how many central differences one seed needs."""
    return sum(P.size for P in model.init_params(config(st)).values())


def iter_numeric(st: state.Pathdrop, memo: Differences):
    """Central differences of every entry through memo, in steps; the last carries "numeric"."""
    return memo.steps(config(st), *batch(st))


def numeric(st: state.Pathdrop, memo: Differences | None = None) -> dict:
    """The whole numerical gradient at once, through memo when given."""
    return last(iter_numeric(st, memo or Differences()))["numeric"]


def known_numeric(st: state.Pathdrop, memo: Differences) -> dict | None:
    """This seed's central differences if memo has them (computed, or kept from the build's results), else None."""
    return memo.get(config(st), *batch(st))


def adopt(st: state.Pathdrop, results: dict, memo: Differences) -> None:
    """Keep the central differences of results (the build's, for st's seed) in memo instead of computing them."""
    memo.keep(config(st), *batch(st), results["numeric"])


def rows(st: state.Pathdrop, num: dict) -> dict[str, dict]:
    """{setting: pathdrop.wrong_rows(...) plus "E_err" (V, d)} for the page's three settings and NEITHER."""
    cfg, params = config(st), model.init_params(config(st))
    inputs, targets = batch(st)
    out = {}
    for name, paths in (*pathdrop.SETTINGS.items(), (pathdrop.NEITHER, ())):
        r = pathdrop.wrong_rows(params, cfg, inputs, targets, paths, num)
        _, analytic = model.loss_and_grads(params, cfg, inputs, targets, paths=paths)
        out[name] = {**r, "E_err": gradcheck.rel_error(analytic["E"], num["E"])}
    return out


def current(st: state.Pathdrop) -> str:
    """The setting the two toggles select."""
    return pathdrop.setting_of(pathdrop.paths_of(st.input, st.output))


COLUMNS = ("gradient into E", "wrong rows", "rows still exactly right", "% right", "page: wrong", "page: right",
           "verdict", "toggles")


def table_rows(st: state.Pathdrop, rs: dict) -> list[tuple]:
    """The page's table with ours beside it; the row the toggles select is marked."""
    out = []
    for name, r in rs.items():
        page_wrong, page_right = PAGE["wrong_rows"].get(name, "—"), PAGE["right_rows"].get(name, "—")
        verdict = judged(f"pathdrop.wrong_rows.{pathdrop.SLUG[name]}", [r["wrong_rows"]]) if name in pathdrop.SLUG else \
            "n/a (not on the page)"
        out.append((name, r["wrong_rows"], f"{r['right_rows']} of {r['wrong_rows'] + r['right_rows']}",
                    f"{100 * r['right_share']:.1f}%", page_wrong, page_right, verdict,
                    "◀ now" if name == current(st) else ""))
    return out


def table(st: state.Pathdrop, rs: dict) -> str:
    """The wrong-rows table (HTML)."""
    return hooked_table(COLUMNS, table_rows(st, rs), "Rows of the tied dE against central differences", "pathdrop-table")


def claim_html(rs: dict) -> str:
    """The page's claim: with the input path dropped (the output path only), 8 of 64 rows of dE are wrong."""
    name = "output path only"
    r = rs[name]
    return claim([(f"Rows of dE wrong with the {name}", f"{r['wrong_rows']} of {r['wrong_rows'] + r['right_rows']}",
                   PAGE["wrong_rows"][name], judged(f"pathdrop.wrong_rows.{pathdrop.SLUG[name]}", [r["wrong_rows"]]))],
                 "pathdrop-claim")


def readout(st: state.Pathdrop, rs: dict) -> str:
    """The current toggles' numbers, with data-testid hooks."""
    name = current(st)
    r = rs[name]
    share = f"{100 * r['right_share']:.1f}%"
    return (f'<p class="wt-readout" data-testid="pathdrop-readout">Keeping <strong data-testid="pathdrop-setting">'
            f'{escape(name)}</strong>: {hook("pathdrop-wrong", r["wrong_rows"])} wrong rows, '
            f'{hook("pathdrop-right", r["right_rows"])} of {r["wrong_rows"] + r["right_rows"]} rows still exactly '
            f'right ({hook("pathdrop-share", r["right_share"], share)}); '
            f'{r["wrong_entries"]} of {r["entries"]} entries of all parameters wrong.</p>')


def kcheck(st: state.Pathdrop, rs: dict) -> dict:
    """A k-entry random check of the toggles' bug (the page's, output path only, when nothing is dropped)."""
    name = current(st) if current(st) != "both paths" else "output path only"
    r = rs[name]
    k = min(st.k, r["entries"])
    return {"setting": name, "k": k, "wrong": r["wrong_entries"], "entries": r["entries"],
            "exact": pathdrop.miss_probability(k, r["wrong_entries"], r["entries"]),
            "simulated": pathdrop.miss_simulated(k, r["wrong_entries"], r["entries"], TRIALS, st.seed)}


def kcheck_html(c: dict) -> str:
    """One sentence on the random-entry check: exact miss probability and simulated pass rate."""
    rate = f"{100 * c['simulated']:.2f}%"
    return (f'<p data-testid="pathdrop-kcheck">Under <strong>{escape(c["setting"])}</strong>, '
            f'{c["wrong"]} of the {c["entries"]} entries are wrong. A gradient check that compares {c["k"]} random '
            f'entries misses every one of them, and passes the bug, with probability '
            f'{hook("pathdrop-miss", c["exact"])} exactly; in {TRIALS:,} simulated checks it passed '
            f'{hook("pathdrop-sim", c["simulated"], rate)} of the time.</p>')


def trap(st: state.Pathdrop) -> dict:
    """pathdrop.fancy_index_trap for this seed's batch and init."""
    return pathdrop.fancy_index_trap(config(st), DISTINCT, B, st.seed)


def trap_html(t: dict) -> str:
    """The fancy-index trap in one paragraph."""
    return (f'<p data-testid="pathdrop-trap">With the input path written as <code>dE[t] += dx</code> instead of '
            f'<code>np.add.at(dE, t, dx)</code>, {hook("pathdrop-trap-wrong", t["wrong_rows"])} rows of the '
            f'input-path gradient are wrong: the batch repeats {hook("pathdrop-trap-repeated", t["repeated_tokens"])} '
            f'of its {t["distinct_tokens"]} tokens ({", ".join(map(str, t["repeated"]))}), and NumPy\'s buffered '
            f'fancy-index write keeps one contribution per repeated row instead of their sum.</p>')


def iter_curves(st: state.Pathdrop, names=CURVES):
    """pathdrop.iter_training_curves for this state: progress dicts with both runs' (`names`') latest points."""
    return pathdrop.iter_training_curves(config(st), measure.race_task(RECIPE), steps=st.steps, lr=st.lr,
                                         seed=st.seed, chunk=CURVE_CHUNK, batch=RECIPE.batch, names=names)


steps = iter_curves  # the Run (app.kit.RunSection): both curves, side by side


def total(st: state.Pathdrop) -> int:
    """The Run's steps: each curve's SGD steps."""
    return st.steps


def curve_rows(st: state.Pathdrop, finals: dict[str, float], noise: dict | None = None) -> list[list[object]]:
    """(run, ours after N steps, page says, verdict) for correct, broken and their gap, judged like the report
    (this seed's run, the spread of the build's seeds); then the build's seeds' rows."""
    noise = noise or {}
    ours = {**finals, "gap": finals.get(CURVES[1], float("nan")) - finals.get(CURVES[0], float("nan"))}
    why = f"judged at the searched race only: {RECIPE.steps} steps at lr {RECIPE.lr:g}"
    out = []
    for name, qid in LOSS_IDS.items():
        label = "broken − correct" if name == "gap" else f"{name}: loss after {st.steps} steps"
        page = round(PAGE["final_loss"][CURVES[1]] - PAGE["final_loss"][CURVES[0]], 10) if name == "gap" else \
            PAGE["final_loss"][name]
        out.append([f"{label}, seed {st.seed}", ours.get(name, float("nan")), page,
                    run_verdict(qid, ours.get(name, float("nan")), noise, at_defaults(st, PAGE_RECIPE), why)])
    return out + [seeds_row(name if name != "gap" else "broken − correct", qid, noise,
                            f"pathdrop-loss-{qid.rsplit('.', 1)[1]}-seeds")
                  for name, qid in LOSS_IDS.items() if qid in noise]


CURVE_COLUMNS = ("run (exact expected loss)", "ours", "page says", "verdict")


def curves_html(st: state.Pathdrop, finals: dict[str, float], noise: dict) -> str:
    """The final-loss table plus testid hooks for both runs' final losses."""
    hooks = "".join(hook(f"pathdrop-loss-{key}", finals[name]) + " "
                    for key, name in zip(("correct", "broken"), CURVES) if name in finals)
    return (hooked_table(CURVE_COLUMNS, curve_rows(st, finals, noise),
                         f"Correct vs broken training ({recipe_text(RECIPE)})", "pathdrop-curves")
            + f'<p class="wt-help">Final expected loss, correct then broken: {hooks}</p>')


def results(st: state.Pathdrop) -> dict:
    """The seed's central differences, the training race behind the curves (every point iter_curves yields)
    and the final losses of the build's seeds (measure.spread), which judge a single race: {"numeric": {name: grad},
    "points": [progress dict], "noise": {id: per-seed values}}."""
    return {"numeric": numeric(st), "points": list(iter_curves(st)),
            "noise": measure.spread("pathdrop")}


def curves_svg(points: list[dict], wrong_rows: int) -> str:
    """Both runs' exact expected loss over training as an inline SVG line chart, and its caption (curves_said)."""
    return (render.lines({name: [p["points"][name]["eval"] for p in points] for name in CURVES},
                         "Exact expected loss, correct vs broken", "training step", "expected loss (nats)",
                         xs=[p["step"] for p in points], xname="step", heading="training loss")
            + note(curves_said(points[-1], wrong_rows), testid="pathdrop-curves-text"))


def curves_said(end: dict, wrong_rows: int) -> str:
    """What to see in the curves, from their last point: where the broken run stands against the correct one, and
    that its curve, one loss a step, cannot say which wrong_rows rows of dE are wrong."""
    correct, broken = (end["points"][n]["eval"] for n in CURVES)
    if not (math.isfinite(correct) and math.isfinite(broken)):
        return (f"At step {end['step']} a run's loss is no longer finite: at this learning rate training diverged, "
                "whichever gradient it used.")
    gap, theirs = broken - correct, f"the correct one's {correct:.3f}"
    where = (f"{gap:.3f} above {theirs}: a worse loss" if gap > 0 else
             f"{-gap:.3f} below {theirs}: at these settings no worse" if gap < 0 else f"level with {theirs}")
    return (f"At step {end['step']} the broken gradient ({CURVES[1]}) is at {broken:.3f} nats, {where}, and nothing "
            f"on its curve says which {wrong_rows} rows of dE are wrong.")


def slots(st: state.Pathdrop, results: dict | None = None) -> dict[str, str]:
    """The section's output for st; the central differences and the curves from `results` (finished or
    streaming), the curves pending without them."""
    num = (results or {}).get("numeric")
    rs, name = rows(st, numeric(st) if num is None else {n: np.asarray(g, float) for n, g in num.items()}), current(st)
    points = (results or {}).get("points") or []
    out = {"claim": claim_html(rs), "readout": readout(st, rs), "table": table(st, rs),
           "heatmap": error_heatmap(rs[name]["E_err"], batch(st)[0], f"Relative error of dE, {name}",
                                    heading=f"error of dE, {name}")}
    text = {"kcheck": kcheck_html(kcheck(st, rs)), "trap": trap_html(trap(st))}
    if not points:
        return {**out, "curves": pending("Correct vs broken training", "pathdrop-curves-pending"), **text, "finals": ""}
    end, broken_rows = points[-1], rs[CURVES[1]]["wrong_rows"]
    finals = {n: end["points"][n]["eval"] for n in CURVES}
    if end["step"] < st.steps:  # still streaming: the latest losses, not yet the run's final ones
        return {**out, "curves": curves_svg(points, broken_rows), **text, "finals": note(
            f"Step {end['step']} of {st.steps}: correct {finals[CURVES[0]]:.4f}, broken {finals[CURVES[1]]:.4f}")}
    return {**out, "curves": curves_svg(points, broken_rows), **text,
            "finals": curves_html(st, finals, (results or {}).get("noise") or {}) + search_html("pathdrop", st, PAGE_RECIPE)
            + source(results, "pathdrop-source")}


# ---- a Run split across workers (weighttying.pool) ----

def split(st: state.Pathdrop, n: int) -> list[dict]:
    """The two runs of the curves, apart when there are two workers: {"names": [...]}."""
    return [{"names": p} for p in pool.balanced(list(CURVES), n)]


def iter_part(st: state.Pathdrop, part: dict):
    """iter_curves for the part's runs alone (each run's points are the pair's), "total" in every point."""
    return ({**p, "total": st.steps} for p in iter_curves(st, tuple(part["names"])))


def merge(st: state.Pathdrop, streams: list[list[dict]]) -> dict:
    """The curve points that every part has reached, each as the one-stack pair yields it."""
    points = []
    for same in zip(*streams):
        pts = {name: q for p in same for name, q in p["points"].items()}
        evals = np.array([pts[n]["eval"] for n in CURVES])
        worst = float(np.max(evals)) if np.isfinite(evals).all() else float("nan")
        points.append({"step": same[0]["step"], "loss": same[0]["loss"] if same[0]["step"] == 0 else worst, "points": pts})
    return {"points": points}
