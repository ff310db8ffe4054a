"""The seed documents' numbers and the rules that judge ours against them. No experiment here.

PAGE holds the only copies of the seed documents' numbers in this package: quotations, used for the
"page says" column and the verdicts, never as inputs to a computation. Views import this small module
instead of `report`, so showing a page number never imports every experiment.

QUOTES gives every judged page number a stable id, the decimals the page prints it with and how many
seeds the page averaged it over; `judge` turns our per-seed values into a verdict whose tolerance
comes from our seeds' spread and the page's rounding, never from a band chosen so a row passes.
"""
from __future__ import annotations

import math

# Quoted from ../shared/seeds/000_ba5da07b324f4dc2.txt (the day-67 page) and, for "paper", the
# claims of ../shared/seeds/004_e2da1c4e9ce44e83.txt (which gives no numbers).
PAGE = {
    "wrong_rows": {"both paths": 0, "output path only": 8, "input path only": 64},
    "right_rows": {"both paths": 64, "output path only": 56, "input path only": 0},
    "final_loss": {"both paths": 1.61, "output path only": 1.84},
    "rank_init": {"tied, res = 1": 1.7, "untied": 31.4, "chance": 32.5, "tied, res = 0 (the control)": 35.0},
    "rank_trained": {"tied": 20.3, "untied": 31.9},
    "excess": {"ALIGNED": (0.2134, 0.2143), "MISALIGNED": (0.1657, 0.1100)},
    "ratio": {"ALIGNED": 1.00, "MISALIGNED": 1.51},
    "ratio_range": {"ALIGNED": (0.96, 1.11), "MISALIGNED": (1.37, 1.64)},
    "toy_saving": 0.32,
    "hits": {"coarse": 0, "fine": 19},
    "doubling": {"resid": 2.00, "logit": 3.80},
    "share": {"gpt2-small": 0.237, "large-vocab-toy": 0.453, "char-model": 0.005},
}

# The page says "five seeds" for the tasks table only; elsewhere it does not say, so its number is
# treated as one run (the weaker assumption: a single draw is noisier than a mean).
PAGE_SEEDS_TASKS = 5

# id -> (page value, decimals the page prints, seeds the page's number averages; 0 = exact, no seeds).
QUOTES = {
    "pathdrop.wrong_rows.both": (PAGE["wrong_rows"]["both paths"], 0, 0),
    "pathdrop.wrong_rows.output_only": (PAGE["wrong_rows"]["output path only"], 0, 0),
    "pathdrop.wrong_rows.input_only": (PAGE["wrong_rows"]["input path only"], 0, 0),
    "pathdrop.right_rows.both": (PAGE["right_rows"]["both paths"], 0, 0),
    "pathdrop.right_rows.output_only": (PAGE["right_rows"]["output path only"], 0, 0),
    "pathdrop.right_rows.input_only": (PAGE["right_rows"]["input path only"], 0, 0),
    "pathdrop.loss.correct": (PAGE["final_loss"]["both paths"], 2, 1),
    "pathdrop.loss.output_only": (PAGE["final_loss"]["output path only"], 2, 1),
    # not printed on the page but implied by its two losses; it does not depend on the task's entropy
    "pathdrop.loss.gap": (round(PAGE["final_loss"]["output path only"] - PAGE["final_loss"]["both paths"], 2), 2, 1),
    "repeat.init.tied_res1": (PAGE["rank_init"]["tied, res = 1"], 1, 1),
    "repeat.init.untied": (PAGE["rank_init"]["untied"], 1, 1),
    "repeat.init.chance": (PAGE["rank_init"]["chance"], 1, 0),
    "repeat.init.tied_res0": (PAGE["rank_init"]["tied, res = 0 (the control)"], 1, 1),
    "repeat.trained.tied": (PAGE["rank_trained"]["tied"], 1, 1),
    "repeat.trained.untied": (PAGE["rank_trained"]["untied"], 1, 1),
    "tasks.aligned.tied": (PAGE["excess"]["ALIGNED"][0], 4, PAGE_SEEDS_TASKS),
    "tasks.aligned.untied": (PAGE["excess"]["ALIGNED"][1], 4, PAGE_SEEDS_TASKS),
    "tasks.aligned.ratio": (PAGE["ratio"]["ALIGNED"], 2, PAGE_SEEDS_TASKS),
    "tasks.misaligned.tied": (PAGE["excess"]["MISALIGNED"][0], 4, PAGE_SEEDS_TASKS),
    "tasks.misaligned.untied": (PAGE["excess"]["MISALIGNED"][1], 4, PAGE_SEEDS_TASKS),
    "tasks.misaligned.ratio": (PAGE["ratio"]["MISALIGNED"], 2, PAGE_SEEDS_TASKS),
    "tasks.saving": (PAGE["toy_saving"], 2, 0),          # V*d over the untied total
    "tasks.saving_of_tied": (PAGE["toy_saving"], 2, 0),  # the same V*d over the tied total
    "sweep.coarse_hits": (PAGE["hits"]["coarse"], 0, 1),
    "sweep.fine_hits": (PAGE["hits"]["fine"], 0, 1),
    "sweep.doubling.resid": (PAGE["doubling"]["resid"], 2, 1),
    "sweep.doubling.logit": (PAGE["doubling"]["logit"], 2, 1),
    "savings.gpt2_small": (PAGE["share"]["gpt2-small"], 3, 0),
    "savings.large_vocab_toy": (PAGE["share"]["large-vocab-toy"], 3, 0),
    "savings.char_model": (PAGE["share"]["char-model"], 3, 0),
}

def share_id(preset: str) -> str:
    """The report id of a savings preset's share: 'gpt2-small' -> 'savings.gpt2_small'."""
    return "savings." + preset.replace("-", "_")


# The rows whose numbers depend on the training recipe (task, lr, batch, steps): what calibrate scores.
TRAINED = ("pathdrop.loss.correct", "pathdrop.loss.output_only", "repeat.trained.tied", "repeat.trained.untied",
           "tasks.aligned.tied", "tasks.aligned.untied", "tasks.aligned.ratio",
           "tasks.misaligned.tied", "tasks.misaligned.untied", "tasks.misaligned.ratio")


def mean_sd(values) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value) of a list of floats."""
    values = [float(v) for v in values]
    m = math.fsum(values) / len(values)  # fsum: exactly rounded, so CPython 3.11 and Pyodide's 3.12 agree
    sd = math.sqrt(math.fsum((v - m) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return m, sd


def tolerance(per_seed, decimals: int, page_seeds: int, noise=None) -> float:
    """2 standard errors of (our mean - the page's number) plus half a unit of the page's last printed digit.

    Our mean has SE sd / sqrt(n); the page's number, a mean over page_seeds runs of the same noise,
    sd / sqrt(page_seeds); page_seeds = 0 marks an exact quantity (no seed noise on the page's side).
    A single run has no spread of its own: `noise` (per-seed values of the same quantity, measured at
    build) then gives sd.
    """
    n = len(per_seed)
    _, sd = mean_sd(noise if n < 2 and noise is not None else per_seed)
    se = sd * math.sqrt(1 / n + (1 / page_seeds if page_seeds else 0.0))
    return 2 * se + 0.5 * 10 ** -decimals


def judge(qid: str, per_seed, noise=None) -> dict:
    """{id, ours (mean), page, tol, distance (|ours - page| / tol), seeds, verdict} for our per-seed values
    (one run: `noise`, the build's per-seed values of qid, gives the spread; see tolerance)."""
    page, decimals, page_seeds = QUOTES[qid]
    ours, _ = mean_sd(per_seed)
    tol = tolerance(per_seed, decimals, page_seeds, noise)
    gap = abs(ours - page)
    ours_n = (f"our 1 run (spread of the build's {len(noise)} seeds)" if len(per_seed) < 2 and noise is not None
              else f"our {len(per_seed)} seeds")
    why = (f"2 SE: {ours_n} vs the page's {page_seeds}, + the page's rounding" if page_seeds
           else "exact: the page's rounding")
    rule = f"|ours - page| = {gap:.3g} {'<=' if gap <= tol else '>'} {tol:.3g}, {why}"
    return {"id": qid, "ours": ours, "page": page, "tol": tol, "distance": gap / tol, "seeds": len(per_seed),
            "verdict": f"{'agrees' if gap <= tol else 'differs'} ({rule})"}


CALIBRATED = ("; the calibrated recipe: no setting searched reproduces more page numbers at once "
              "(python -m weighttying calibrate; docs/DESIGN.md, Calibration)")


def explained(j: dict) -> str:
    """A judge() verdict as the report and the page print it: a trained number that differs says why."""
    return j["verdict"] + (CALIBRATED if j["id"] in TRAINED and j["distance"] > 1 else "")


def row(quantity: str, ours, page, verdict: str, qid: str, tol=None) -> dict:
    """One table row: {id, quantity, ours, page, tol, verdict}."""
    return {"id": qid, "quantity": quantity, "ours": ours, "page": page, "tol": tol, "verdict": verdict}


def same_side_of_one(lo: float, hi: float, page_lo: float, page_hi: float) -> str:
    """'agrees' when both ranges lie above 1, both below, or both straddle it."""
    side = lambda a, b: (a > 1) - (b < 1)  # noqa: E731  1 above, -1 below, 0 straddles
    return f"{'agrees' if side(lo, hi) == side(page_lo, page_hi) else 'differs'} (same side of 1)"


def sign(claim_holds: bool) -> str:
    """Verdict for a claim given as a direction, not a number."""
    return "agrees (direction)" if claim_holds else "differs (direction)"
