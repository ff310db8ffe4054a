"""The same `weighttying` code gives the same numbers under Pyodide (Node, npm pyodide + dist's wheels)
as under CPython: agreement to 1e-12 (|a - b| <= 1e-12 * max(1, |b|)) on fixed cases: loss, params
and every gradient of `model.loss_and_grads` (tied/untied x both paths/output only),
`sweep.init_scales` on a 4 x 3 (sigma, inScale) grid and at the default setting, the fast central
differences of every entry (`gradcheck.numerical_grads`), the three-block `deep.loss_and_grads`
(tied/untied), 20 Adam steps of the tuned lens's translators (`lens.fit`) with their KL, 15 steps of
each race's calibrated recipe (`measure.run`), the verdict rule (`quoted.judge`) on a one-run case, the
own-text run (`owntext.run`) on a shipped sample, its samples' text included, every run section's
Run split in 3 parts for a pool of workers, merged (weighttying.pool), against the same Run in one, and the
code lab (`codelab.lab`) on every named bug, its source read from the wheel, and a reader's run-time error.

One Pyodide boot runs every case (booting costs ~5 s on this machine), so the cases live in one
Python snippet that both interpreters execute; it ends with a JSON string of plain floats.
The wheels come from dist/ through dist's trimmed pyodide-lock.json, exactly as the page gets them,
so this also checks that the built lock resolves numpy and our wheel with no network.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from weighttying import codelab, pool
from weighttying import state
ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "node" / "run_pyodide.mjs"
PYODIDE = ROOT / "node_modules" / "pyodide"
TOL = 1e-12

pytestmark = pytest.mark.node

CASES = r'''
import json
import numpy as np
from weighttying import model

def plain(x):
    """Nested dicts/lists of float; arrays flattened with their shape."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return {"shape": list(x.shape), "values": [float(v) for v in x.ravel()]}
    if isinstance(x, (bool, np.bool_, str)) or x is None:
        return x if not isinstance(x, np.bool_) else bool(x)
    return float(x)

out = {"numpy": np.__version__}
rng = np.random.default_rng(1234)
inputs = rng.integers(0, 32, size=40)
inputs[5:9] = inputs[0]               # repeated tokens: the scatter-add case
targets = rng.integers(0, 32, size=40)
for tied in (True, False):
    for paths in (("input", "output"), ("output",)):
        cfg = model.Config(V=32, d=8, hidden=24, tied=tied, res=0.7, in_scale=1.3, sigma=0.4, seed=5)
        params = model.init_params(cfg)
        loss, grads = model.loss_and_grads(params, cfg, inputs, targets, paths=paths, input_grad_scale=0.5)
        key = f"tied={tied} paths={'+'.join(paths)}"
        out[key] = {"params": plain(params), "loss": float(loss), "grads": plain(grads)}

from weighttying import sweep
out["init_scales"] = plain(sweep.init_scales(np.array([0.05, 0.25, 1.0, 4.0])[:, None],
                                             np.array([0.5, 1.0, 8.0])[None, :]))
out["sweep_default"] = plain(sweep.init_scales(0.25, 1.0))

from weighttying import deep, gradcheck, lens
cfg = model.Config(V=32, d=8, hidden=24, tied=True, res=0.7, in_scale=1.3, sigma=0.4, seed=5)
params = model.init_params(cfg)
out["fast_numeric"] = plain(gradcheck.numerical_grads(params, cfg, inputs[:12], targets[:12]))
for tied in (True, False):
    cfg = model.Config(V=32, d=8, hidden=24, tied=tied, res=0.7, in_scale=1.3, sigma=0.4, seed=5)
    params = deep.init_params(cfg, 3)
    loss, grads = deep.loss_and_grads(params, cfg, inputs, targets)
    out[f"deep tied={tied}"] = {"loss": float(loss), "grads": plain(grads)}
cache = deep.forward(params, cfg, np.arange(32))
hs, logp, U = np.stack(cache["hs"][:-1]), model.log_softmax(cache["logits"]), params["U"]
A, c = lens.fit(hs, logp, U, steps=20)
out["lens"] = plain({"A": A, "c": c, "kl": lens.kl(logp, lens.lens_logq(hs, A, c, U))})

from weighttying import measure, quoted, recipes
# each race's recipe (task, lr, batch) for a few steps, and the verdict rule on the build's spread (one run)
for name in ("PATHDROP", "REPEAT"):
    r = getattr(recipes, name)
    out[f"race {name}"] = plain(measure.run(r.rank, r.beta, False, r.lr, r.batch, True, ("input", "output"), 0, 15))
out["judge"] = {k: v for k, v in quoted.judge("pathdrop.loss.correct", [1.57], [1.5, 1.62, 1.55, 1.6]).items()
                if k not in ("id", "verdict", "page_is")}

from weighttying import data, stack, train
tasks_ = [data.markov_task(32, aligned=a, seed=3) for a in (True, False)]
runs = [stack.Run(model.Config(V=32, d=8, hidden=24, tied=True, seed=1), tasks_[0], 1),
        stack.Run(model.Config(V=32, d=8, hidden=24, tied=False, seed=1), tasks_[1], 1),
        stack.Run(model.Config(V=32, d=8, hidden=24, tied=True, seed=2), tasks_[1], 2, paths=("output",)),
        stack.Run(model.Config(V=32, d=8, hidden=24, tied=True, seed=2), tasks_[1], 2, input_grad_scale=4.0)]
for net, params in ((model, [model.init_params(r.cfg) for r in runs]), (deep, [deep.init_params(r.cfg, 2) for r in runs])):
    pts = list(stack.iter_train(runs, params, steps=15, lr=0.5, batch=16, chunk=5, net=net))
    loops = [list(train.iter_train(p, r.cfg, r.task, steps=15, lr=0.5, batch=16, chunk=5, seed=r.seed, paths=r.paths,
                                   input_grad_scale=r.input_grad_scale, net=net)) for r, p in zip(runs, params)]
    out[f"stack {net.__name__}"] = {k: plain(np.array([p[k] for p in pts])) for k in ("loss", "eval")} | {
        "params": [plain(stack.member(pts[-1]["params"], i, r)) for i, r in enumerate(runs)]}
    out[f"loop {net.__name__}"] = {k: plain(np.array([[q[c][k] for q in loops] for c in range(3)])) for k in ("loss", "eval")} | {
        "params": [plain(q[-1]["params"]) for q in loops]}

from weighttying import owntext
# the own-text section's run on a shipped sample (read from the wheel's package data), a few steps
out["owntext"] = plain(owntext.run(owntext.shipped("song"), 24, owntext.Setup(d=8, steps=30, lr=0.5, seed=3)))
from weighttying import pool
from weighttying import state
# every run section's Run in 1 part (one worker's stack) and in 3 (a pool's), each part through its JSON batches
small = {"tasks": state.Tasks(seeds=2, steps=12), "repeat": state.Repeat(steps=30),
         "pathdrop": state.Pathdrop(steps=10), "paper": state.Paper(steps=12, seeds=2, scale=4.0),
         "owntext": state.Owntext(sample="yours", text="the cat sat on the mat and the dog ran after it.\n" * 6,
                                  steps=12, d=8),
         "codelab": state.Codelab(bug="yours", steps=20)}
for section, st in small.items():
    merged = []
    for n in (1, 3):
        specs = pool.split(section, st, n)
        gather = pool.Gather(section, st, len(specs), 100)
        for i, spec in enumerate(specs):
            part = pool.Part(pool.encode(spec))
            while not part.done:
                gather.add(i, part.batch(0.01))
        merged.append(plain(gather.results()))
    out[f"pool {section}"] = {"one": merged[0], "three": merged[1]}

from weighttying import codelab, codelab_bugs
# the code lab on its batch: every named bug's checks and a short race; a run-time error and a gradient's at the
# reader's line
lab_cfg = codelab.config(0)
lab_numeric = gradcheck.numerical_grads(model.init_params(lab_cfg), lab_cfg, *codelab.batch(0))

def without_rounding(lab):
    """lab's result less the largest errors of parameters with no wrong entry: rounding over gradcheck's floor, whose
    digits are each platform's matmul (they agree to ~1e-9); that such a parameter is right, its wrong count says."""
    if lab["kind"] != "ok":
        return lab
    e = lab["entries"]
    params = [p if p["wrong"] else {**p, "max_rel_err": None} for p in e["params"]]
    return {**lab, "entries": {**e, "params": params, "max_rel_err": e["max_rel_err"] if e["wrong"] else None}}

out["codelab"] = plain({bug.id: without_rounding(codelab.lab(codelab.bug_source(bug.id), steps=20, numeric=lab_numeric))
                        for bug in codelab_bugs.BUGS})
out["codelab"]["runtime"] = plain(codelab.run_source(codelab.original_source().replace('params["W2"]', 'params["W3"]')))
# a misshaped gradient, named at the line that returned it (a profile hook notes it)
out["codelab"]["gradient"] = plain(codelab.run_source(codelab.original_source().replace('"b2": db2}', '"b2": db2[:3]}')))

RESULT = json.dumps(out)
RESULT
'''


def cpython_result() -> dict:
    ns: dict = {}
    exec(compile(CASES, "<parity cases>", "exec"), ns)
    return json.loads(ns["RESULT"])


def find_lock(dist: Path) -> Path:
    locks = sorted(dist.rglob("pyodide-lock.json"))
    assert len(locks) == 1, f"expected exactly one pyodide-lock.json in {dist}, found {locks}"
    return locks[0]


def pyodide_result(dist: Path, tmp_path: Path) -> dict:
    node = shutil.which("node")
    assert node, "node is not on PATH (./dev installs nodejs as root)"
    assert (PYODIDE / "pyodide.mjs").is_file(), f"{PYODIDE} is missing: run npm ci (./dev does)"
    lock = find_lock(dist)
    entries = json.loads(lock.read_text())["packages"]
    assert "numpy" in entries and "weighttying" in entries, f"dist lock lacks numpy/weighttying: {sorted(entries)}"
    for name in ("numpy", "weighttying"):
        f = lock.parent / entries[name]["file_name"]
        assert f.is_file(), f"dist lock names {entries[name]['file_name']} for {name} but {f} is missing"
    code = tmp_path / "cases.py"
    code.write_text(CASES)
    proc = subprocess.run(
        [node, str(RUNNER), "--pyodide", str(PYODIDE), "--lock", str(lock),
         "--packages", "numpy,weighttying", "--code", str(code)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"Pyodide run failed (exit {proc.returncode}):\n{proc.stderr[-6000:]}"
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("WT_RESULT ")]
    assert len(lines) == 1, f"no result line from the runner:\nstdout:\n{proc.stdout[-2000:]}\nstderr:\n{proc.stderr[-2000:]}"
    print(proc.stderr.strip().splitlines()[-1])  # the runner's timing line
    return json.loads(lines[0][len("WT_RESULT "):])


def compare(a, b, path="") -> list[str]:
    """Every place a (Pyodide) and b (CPython) differ beyond TOL, or differ in structure."""
    if isinstance(b, dict):
        if not isinstance(a, dict) or set(a) != set(b):
            return [f"{path}: keys {sorted(a) if isinstance(a, dict) else type(a)} != {sorted(b)}"]
        return [m for k in b for m in compare(a[k], b[k], f"{path}.{k}")]
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            return [f"{path}: length {len(a) if isinstance(a, list) else type(a)} != {len(b)}"]
        return [m for i, (x, y) in enumerate(zip(a, b)) for m in compare(x, y, f"{path}[{i}]")]
    if isinstance(b, float) and isinstance(a, (int, float)):
        if math.isnan(b):
            return [] if math.isnan(a) else [f"{path}: {a!r} != nan"]
        return [] if abs(a - b) <= TOL * max(1.0, abs(b)) else [f"{path}: pyodide {a!r} vs cpython {b!r}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def stack_vs_loop(stacked: dict, loop: dict) -> float:
    """Largest relative difference between a stack's losses, evals and final params and its runs' loops."""
    pairs = [(a, b) for k in ("loss", "eval") for a, b in zip(stacked[k]["values"], loop[k]["values"])]
    for mine, alone in zip(stacked["params"], loop["params"]):
        assert set(mine) == set(alone)
        pairs += [(a, b) for k in alone for a, b in zip(mine[k]["values"], alone[k]["values"])]
    return max(abs(a - b) / max(abs(b), 1e-12) for a, b in pairs)


def test_weighttying_under_pyodide_matches_cpython(dist_dir, tmp_path):
    want = cpython_result()
    got = pyodide_result(dist_dir, tmp_path)

    # The cases are not vacuous: real losses and non-zero gradients for every parameter.
    cases = [k for k in want if k.startswith("tied=")]
    assert len(cases) == 4
    for k in cases:
        assert 1.0 < want[k]["loss"] < 10.0, (k, want[k]["loss"])
        for name, g in want[k]["grads"].items():
            nonzero = any(v != 0.0 for v in g["values"])
            if k == "tied=False paths=output" and name == "E":
                assert not nonzero, "untied E without its input path must get no gradient"
            else:
                assert nonzero, f"{k}: grad of {name} is all zero"
    for k in ("deep tied=True", "deep tied=False"):
        assert {"W5", "b5", "W6", "b6"} <= set(want[k]["grads"]), k  # three blocks: the new blocks' grads
    assert want["lens"]["kl"]["values"][0] > 0 and set(want["fast_numeric"]) == {"E", "W1", "b1", "W2", "b2"}
    # paths=("output",) really drops the input path: E's gradient changes.
    assert want["tied=True paths=input+output"]["grads"]["E"] != want["tied=True paths=output"]["grads"]["E"]

    scales = want["init_scales"]
    assert scales["resid"]["shape"] == [4, 3] and scales["nonfinite"] == 0.0
    logit = scales["logit"]["values"]  # row-major 4 sigmas x 3 in_scales
    assert all(v > 0 for v in logit) and all(logit[9 + j] > logit[j] for j in range(3)), logit

    # The stack (many runs as one) gives each run's one-model loop numbers, in CPython and under Pyodide.
    for name in ("weighttying.model", "weighttying.deep"):
        for side, res in (("cpython", want), ("pyodide", got)):
            worst = stack_vs_loop(res[f"stack {name}"], res[f"loop {name}"])
            print(f"{side} {name}: stack vs one-model loop, largest relative difference {worst:.3g}")
            assert worst <= 1e-9, (side, name, worst)

    own = want["owntext"]  # the sample came out of the wheel, merged beyond the cap, and both models trained
    assert own["V"] == 24.0 and own["merged"] and own["bigram"] < own["unigram"], own
    assert {m: len(r["samples"]) for m, r in own["models"].items()} == {"tied": 24, "untied": 24}
    # A Run split across a pool merges into the one-worker stack's results, under Pyodide as under CPython.
    split = {k.removeprefix("pool ") for k in got if k.startswith("pool ")}
    assert split == {s for s in state.SECTIONS if pool.parted(s)}, split  # every section whose Run splits, no other
    for section in split:
        pooled = got[f"pool {section}"]
        assert pooled["one"] and not compare(pooled["three"], pooled["one"]), section

    lab = want["codelab"]  # the lab's source came out of the wheel, each bug named, the error at its line
    assert lab["correct"]["verdict"].startswith("Exact") and lab["output_only"]["bug"] == "output_only", lab["correct"]
    w2_line = next(i for i, line in enumerate(codelab.original_source().splitlines(), 1) if 'params["W2"]' in line)
    assert lab["runtime"]["message"] == "KeyError: 'W3'" and lab["runtime"]["line"] == w2_line, lab["runtime"]

    assert got["numpy"] == "2.0.2", got["numpy"]
    got.pop("numpy"), want.pop("numpy")
    diffs = compare(got, want)
    assert not diffs, f"{len(diffs)} value(s) differ beyond {TOL}:\n" + "\n".join(diffs[:30])
