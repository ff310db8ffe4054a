"""Time the full report (median of runs) against a fixed NumPy matmul loop timed in the same process, and
optionally against the report of another commit (--against REF, e.g. main), runs interleaved.

Writes bench/out/report.json. Each report is `python -m weighttying report --json` in its own child process
(so two versions of the package never share an interpreter), timed by its wall-clock and CPU seconds; the load average beside
them says how much of the wall-clock the shared cores' load took. The ratio report/baseline is what to
compare across machines; ours/against (medians of the same run) is the speed-up.
    .venv/bin/python bench/report_bench.py [--runs N] [--against main]
A report that fails is recorded as failed with its error's first line (bench/failures.py) and left out of the
medians; the other runs are kept: `failed` lists each, and the exit code is then 1.
"""
import argparse
import json
import os
import pathlib
import platform
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

import failures  # bench/failures.py: a failed run is recorded, the others kept

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "report.json"


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


def report_in_child(py_dir: pathlib.Path) -> dict:
    """{wall, cpu, rows} of `python -m weighttying report --json` in a child importing weighttying from py_dir
    (interpreter start and imports included: what a reader running it waits for)."""
    env = {**os.environ, "PYTHONPATH": str(py_dir)}
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "weighttying", "report", "--json"], env=env, capture_output=True,
                         text=True, check=True)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = sum(len(v) for v in json.loads(out.stdout).values())
    return {"wall": wall, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, "rows": rows}


def checkout_py(ref: str, into: pathlib.Path) -> pathlib.Path:
    """The py/ folder of git REF unpacked into INTO (git archive: no checkout, no worktree)."""
    tar = into / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(tar), ref, "py"], check=True)
    with tarfile.open(tar) as t:
        t.extractall(into, filter="data")
    return into / "py"


def med(runs: list[dict], key: str) -> float | None:
    """The median of KEY over the runs that did not fail (None: every one failed)."""
    xs = [r[key] for r in runs if "failed" not in r]
    return statistics.median(xs) if xs else None


def main(argv=None) -> int:
    """Interleave baseline, our report and --against's so all see the same machine load; write medians, ratios."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", help="a git ref whose report is timed in the same run (e.g. main)")
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    a = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wt-report-bench-") as tmp:
        other = checkout_py(a.against, pathlib.Path(tmp)) if a.against else None
        base, ours, theirs, loads = [], [], [], []
        for _ in range(a.runs):
            base.append(timed(baseline)[0])
            ours.append(failures.tried("our report", report_in_child, ROOT / "py"))
            if other:
                theirs.append(failures.tried(f"{a.against}'s report", report_in_child, other))
            loads.append(os.getloadavg()[0])
    result = {"runs": a.runs, "report_s": med(ours, "wall"), "report_cpu_s": med(ours, "cpu"),
              "baseline_s": statistics.median(base), "ratio": failures.ratio(med(ours, "wall"), statistics.median(base)),
              "report_all": ours, "baseline_all_s": base, "load_avg_1m": loads,
              "python": platform.python_version(), "numpy": np.__version__}
    if other:
        result["against"] = {"ref": a.against, "report_s": med(theirs, "wall"), "report_cpu_s": med(theirs, "cpu"),
                             "all": theirs, "speedup_wall": failures.ratio(med(theirs, "wall"), med(ours, "wall")),
                             "speedup_cpu": failures.ratio(med(theirs, "cpu"), med(ours, "cpu"))}
    result["failed"] = failures.failed(ours, "our report, run") + failures.failed(theirs, f"{a.against}'s report, run")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
