"""The numerics workloads of bench/run.py, timed the same way in CPython and (sent as source) in the
page's Pyodide worker: every-entry gradient check (V=64, d=16, the gradcheck section's default state:
3152 entries, batch 32), 600 training steps of one model, and each run section's default Run, the
generator its Runner drives (tasks: five seeds, 20 models as one stack; repeat: the tied/untied race;
pathdrop: the correct vs output-path-only curves; paper: the study; lens: the tuned lens's ten four-block
models, computed at build), plus `tasks_loop`, the tasks table trained the way it was before stacking
(each of the 20 models alone, train.train), so the stack's gain is measured in the same run.

`run()` returns {name: median seconds of REPEATS calls} and, for each run section, "<name>_max_yield_ms":
the longest stretch of work between two yields of its generator (the page can answer Cancel only there).
"""
import json
import statistics
import time

from weighttying import data, lens, model, paper, state, tasks, train
from weighttying.views import gradcheck as gradcheck_view
from weighttying.views import pathdrop as pathdrop_view
from weighttying.views import repeat as repeat_view
from weighttying.views import tasks as tasks_view

REPEATS = 3


def _timed(fn, repeats=REPEATS):
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def _drained(make) -> float:
    """Run the generator make() to its end; the longest work between two yields, in ms."""
    gaps, t = [], time.perf_counter()
    for _ in make():
        now = time.perf_counter()
        gaps.append(now - t)
        t = now
    return 1000 * max(gaps)


def tasks_loop(st: state.Tasks) -> list:
    """The tasks table as it was trained before stacking: every (seed, task, tied) model alone."""
    return [train.train(model.init_params(cfg), cfg, P, steps=st.steps, lr=st.lr, batch=tasks.BATCH, seed=s,
                        chunk=st.steps)
            for s in range(st.seeds) for P in (data.markov_task(aligned=a, **tasks.TASK) for a in tasks.TASKS.values())
            for cfg in (model.Config(tied=t, seed=s) for t in (True, False))]


def sections() -> dict:
    """{name: a fresh generator of that section's default Run}."""
    p = state.Paper()
    return {"tasks": lambda: tasks_view.iter_runs(state.Tasks()),
            "repeat": lambda: repeat_view.iter_race(state.Repeat()),
            "pathdrop": lambda: pathdrop_view.iter_curves(state.Pathdrop()),
            "paper": lambda: paper.iter_study(p.scale, p.steps, p.seed, p.seeds, p.lr)}


def run() -> dict:
    """{workload: median seconds, section_max_yield_ms: worst gap}."""
    cfg = model.Config(V=64, d=16)
    params = model.init_params(cfg)
    task = data.default_task(cfg.V)
    check = state.Gradcheck()
    out = {
        # no memo passed: every repeat computes the central differences
        "gradcheck_s": _timed(lambda: list(gradcheck_view.iter_check(check))),
        "train600_s": _timed(lambda: train.train(params, cfg, task, steps=600)),
    }
    for name, make in sections().items():
        gaps = []
        out[f"{name}_s"] = _timed(lambda: gaps.append(_drained(make)))
        out[f"{name}_max_yield_ms"] = max(gaps)
    out["lens_s"] = _timed(lens.study, repeats=1)
    out["tasks_loop_s"] = _timed(lambda: tasks_loop(state.Tasks()), repeats=1)
    return out


if __name__ == "__main__":
    print(json.dumps(run()))
