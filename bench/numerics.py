"""The numerics workloads of bench/run.py, timed the same way in CPython and (sent as source) in the
page's Pyodide worker: every-entry gradient check (V=64, d=16, the gradcheck section's default state:
3152 entries, batch 32), 600 training steps, the five-seed
aligned/misaligned task run. `run()` returns {name: seconds} (median of REPEATS calls each)."""
import json
import statistics
import time

from weighttying import data, model, state, tasks, train
from weighttying.views import gradcheck as gradcheck_view

REPEATS = 3


def _timed(fn, repeats=REPEATS):
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def run() -> dict:
    """{workload: median seconds}."""
    cfg = model.Config(V=64, d=16)
    params = model.init_params(cfg)
    task = data.default_task(cfg.V)
    check = state.Gradcheck()
    return {
        # no memo passed: every repeat computes the central differences
        "gradcheck_s": _timed(lambda: list(gradcheck_view.iter_check(check))),
        "train600_s": _timed(lambda: train.train(params, cfg, task, steps=600)),
        "five_seed_s": _timed(lambda: tasks.table(seeds=range(5)), repeats=1),
    }


if __name__ == "__main__":
    print(json.dumps(run()))
