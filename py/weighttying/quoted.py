"""The seed documents' numbers and the rules that judge ours against them. No experiment here.

PAGE holds the only copies of the seed documents' numbers in this package: quotations, used for the
"page says" column and the verdicts, never as inputs to a computation. Views import this small module
instead of `report`, so showing a page number never imports every experiment.
"""
from __future__ import annotations

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
RANK_TOL = 3.2  # ranks: 10% of the chance rank at V = 64
EXCESS_TOL, RATIO_TOL, SAVING_TOL = 0.05, 0.1, 0.01  # tasks: excess loss, tied/untied ratio, saving share


def row(quantity: str, ours, page, verdict: str) -> dict:
    """One table row: {quantity, ours, page, verdict}."""
    return {"quantity": quantity, "ours": ours, "page": page, "verdict": verdict}


def within(ours: float, page: float, tol: float) -> str:
    """'agrees' or 'differs', with the rule |ours - page| <= tol spelled out."""
    return f"{'agrees' if abs(ours - page) <= tol else 'differs'} (|ours - page| <= {tol:g})"


def same_side_of_one(lo: float, hi: float, page_lo: float, page_hi: float) -> str:
    """'agrees' when both ranges lie above 1, both below, or both straddle it."""
    side = lambda a, b: (a > 1) - (b < 1)  # noqa: E731  1 above, -1 below, 0 straddles
    return f"{'agrees' if side(lo, hi) == side(page_lo, page_hi) else 'differs'} (same side of 1)"


def sign(claim_holds: bool) -> str:
    """Verdict for a claim given as a direction, not a number."""
    return "agrees (direction)" if claim_holds else "differs (direction)"
