"""The calibrated choices of every trained experiment, each with its reason: the one place they live.

The page fixes the toy (V = 64, d = 16, sigma = 0.25) and says "after 600 steps" for the repeat race; it
leaves open the task (data.markov_task's rank and beta), plain SGD's learning rate and batch, and the tasks
table's steps. `python -m weighttying calibrate` searches them per experiment, each scored only on its own
page numbers (its record: calibration.txt beside this module; docs/DESIGN.md "Calibration"); the winners are
copied here by hand, so a search never changes the package by itself. Views, experiments and calibrate import this module.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

# The search's record: `python -m weighttying calibrate`'s output, in the package so that the page can count it
# at build and live alike.
RECORD = Path(__file__).with_name("calibration.txt")


@dataclass(frozen=True)
class Recipe:
    """One experiment's training: the task (rank, beta), SGD's lr and batch, and the steps it reports at."""
    rank: int      # directions the task's input and output meanings vary in
    beta: float    # how sharp a token's successors are (lower: a higher-entropy task)
    lr: float
    batch: int
    steps: int


# The package's default: where every search starts, and what the paper section and the tuned lens train on
# (the paper gives no numbers to calibrate against). It won the first, joint search, which scored every trained
# number at once (38 candidates, docs/DESIGN.md "Calibration"); the per-experiment searches below replaced it
# for the three experiments the page gives numbers for.
BASE = Recipe(rank=2, beta=32.0, lr=1.0, batch=64, steps=600)

# The tasks table (ALIGNED vs MISALIGNED excess loss, the page's mean of five seeds), searched on its six numbers
# only: the only candidate of 50 with all six within (BASE had five: the aligned ratio 1.04 vs 1.00 missed).
# The page gives no steps for it; 1200 steps at half BASE's lr and batch leave the aligned excess losses equal
# (ratio 0.99) and the misaligned tied one 1.47x the untied.
TASKS = Recipe(rank=2, beta=32.0, lr=0.5, batch=32, steps=1200)

# The path-drop race (correct vs output-path-only final loss, misaligned task, 600 steps), searched on its two
# final losses and the gap they imply (the section judges all three). Their level is the task's entropy plus
# what is left to learn: BASE's task has 1.95 nats, above the page's 1.61 already; rank 8, beta 16 (more
# directions, softer successors) has 1.20 nats, and at twice BASE's lr and batch (the same lr per example)
# all three land within their tolerance, the only one of 25 candidates that does.
PATHDROP = Recipe(rank=8, beta=16.0, lr=2.0, batch=128, steps=600)

# The repeat race (tied vs untied rank of the just-read token after the page's 600 steps, misaligned task),
# searched on its two trained ranks only: the smallest summed distance of 25 candidates (12 have both within,
# so the choice among them is within seed noise). BASE's tied model kept the repeat bias stronger (rank 25 vs
# the page's 20.3); on a rank-8 task at half the lr, suppression goes further, as on the page.
REPEAT = Recipe(rank=8, beta=32.0, lr=0.5, batch=64, steps=600)


def tally(record: str, experiment: str) -> dict:
    """How one experiment's candidates fared in a search's record (the lines calibrate.line prints):
    {searched, total (page numbers judged), all_within (candidates reproducing every one of them)}."""
    found = [(int(k), int(n)) for k, n in
             re.findall(rf"^{re.escape(experiment)}: .*? \| (\d+)/(\d+) within,", record, re.M)]
    if not found:
        raise ValueError(f"the record lists no candidate of {experiment!r}")
    total = found[0][1]
    return {"searched": len(found), "total": total, "all_within": sum(k == total for k, _ in found)}


@functools.lru_cache(maxsize=None)
def searched(experiment: str) -> dict:
    """tally() of the package's own record (RECORD) for one experiment."""
    return tally(RECORD.read_text(), experiment)
