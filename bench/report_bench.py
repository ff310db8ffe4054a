"""Time the full report (median of runs) against a fixed NumPy matmul loop timed in the same process.

Writes bench/out/report.json. The ratio report/baseline is what to compare across machines; the process
CPU seconds and the load average beside them say how much of the wall-clock the shared cores' load took.
    .venv/bin/python bench/report_bench.py [--runs N]
"""
import argparse
import json
import os
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


def timed(fn) -> tuple[float, float]:
    """(wall-clock, process CPU) seconds of one call."""
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    """Interleave baseline and report runs so both see the same machine load; write medians and ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    base, full, cpu = [], [], []
    for _ in range(runs):
        base.append(timed(baseline)[0])
        wall, used = timed(report.build)
        full.append(wall)
        cpu.append(used)
    result = {"runs": runs, "report_s": statistics.median(full), "baseline_s": statistics.median(base),
              "ratio": statistics.median(full) / statistics.median(base), "report_cpu_s": statistics.median(cpu),
              "report_all_s": full, "baseline_all_s": base, "report_cpu_all_s": cpu, "load_avg_1m": os.getloadavg()[0],
              "python": platform.python_version(), "numpy": np.__version__}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
