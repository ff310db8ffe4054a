"""Time the full report (median of runs) against a fixed NumPy matmul loop timed in the same process.

Writes bench/out/report.json. The ratio report/baseline is what to compare across machines.
    .venv/bin/python bench/report_bench.py [--runs N]
"""
import argparse
import json
import pathlib
import platform
import statistics
import time

import numpy as np

from weighttying import report

OUT = pathlib.Path(__file__).parent / "out" / "report.json"


def baseline() -> None:
    """A fixed workload: 20000 products of 64 x 64 float64 matrices (about half a second)."""
    A = np.random.default_rng(0).standard_normal((64, 64)) / 8
    B = A.copy()
    for _ in range(20000):
        B = np.tanh(A @ B)


def timed(fn) -> float:
    """Wall-clock seconds of one call."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    """Interleave baseline and report runs so both see the same machine load; write medians and ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    base, full = [], []
    for _ in range(runs):
        base.append(timed(baseline))
        full.append(timed(report.build))
    result = {"runs": runs, "report_s": statistics.median(full), "baseline_s": statistics.median(base),
              "ratio": statistics.median(full) / statistics.median(base), "report_all_s": full, "baseline_all_s": base,
              "python": platform.python_version(), "numpy": np.__version__}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
