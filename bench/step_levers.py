"""Levers on the stacked training step (stack.iter_train: every run section's Run), measured in Pyodide (Node,
npm pyodide with the built site's NumPy, the page worker's arithmetic) and in this CPython, in one command:

    .venv/bin/python bench/step_levers.py [--against REF] [--repeats 41] [--steps 100] [--dist dist]
        -> bench/out/step_levers.json

Each interpreter imports two copies of the package from source: `weighttying` (this tree's py/) and `base` (py/ of
REF, by default the commit before these levers, unpacked by git archive). For each run section's stack, at the
shapes its default Run trains (SHAPES): one step of stack.iter_train with each copy, alternated, `repeats` times
(medians of CPU time, base / ours), and the largest difference of the params after `steps` steps from the same init
(|ours - base| / max(1, |base|); 0: the same bits). Then each lever alone, on that stack's own arrays from one
step: a kept lever as base's function against ours, one not kept as ours against the alternative written here,
with the largest difference it makes.
If one interpreter's run fails, it is recorded as failed with its error's first line (bench/failures.py) and the
other's is kept: `failed` lists it, and the exit code is then 1.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import failures  # bench/failures.py: a failed run is recorded, the other kept
from report_bench import checkout_py  # bench/report_bench.py: py/ of a git ref, by git archive

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "77e3a46"  # main before these levers
RUNNER = ROOT / "tests" / "node" / "run_pyodide.mjs"

# Runs in both interpreters after SOURCES (the two copies' files), REPEATS and STEPS are defined; its last line
# is the result as a JSON str (what run_pyodide.mjs prints).
SNIPPET = r'''
import importlib, json, os, statistics, sys, tempfile, time
import numpy as np

root = tempfile.mkdtemp(prefix="wt-levers-")
for rel, text in SOURCES.items():
    os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
    with open(os.path.join(root, rel), "w") as f:
        f.write(text)
sys.path.insert(0, root)
ours, base = (importlib.import_module(p) for p in ("weighttying", "base"))
for pkg in (ours, base):
    for name in ("model", "deep", "data", "stack"):
        setattr(pkg, name, importlib.import_module(f"{pkg.__name__}.{name}"))

BOTH, OUT = ("input", "output"), ("output",)
# section: ([(tied, seed, paths, input_grad_scale)], batch, blocks (0: the one-block model), lr)
SHAPES = {
    "tasks": ([(t, s, BOTH, 1.0) for s in range(5) for _ in range(2) for t in (True, False)], 32, 0, 0.5),
    "paper": ([(t, s, BOTH, 1.0) for s in range(3) for t in (True, False)], 64, 0, 0.5),
    "paper_deep": ([(t, s, BOTH, 1.0) for s in range(3) for t in (True, False)], 64, 2, 0.5),
    "repeat": ([(True, 0, BOTH, 1.0), (False, 0, BOTH, 1.0)], 64, 0, 0.5),
    "pathdrop": ([(True, 0, BOTH, 1.0), (True, 0, OUT, 1.0)], 128, 0, 2.0),
    "lens": ([(t, s, BOTH, 1.0) for t in (True, False) for s in range(5)], 64, 4, 0.5),
}


def setup(pkg, section):
    """(runs, params, net, kw) of SECTION's stack in package PKG."""
    spec, batch, blocks, lr = SHAPES[section]
    task = pkg.data.default_task(64)
    runs = [pkg.stack.Run(pkg.model.Config(tied=t, seed=s), task, s, p, g) for t, s, p, g in spec]
    net = pkg.deep if blocks else pkg.model
    params = [pkg.deep.init_params(r.cfg, blocks) if blocks else pkg.model.init_params(r.cfg) for r in runs]
    return runs, params, net, {"batch": batch, "lr": lr, "net": net, "steps": STEPS, "chunk": STEPS}


def trained(pkg, section):
    runs, params, net, kw = setup(pkg, section)
    return pkg.stack.train(runs, params, **kw)


def gap(a, b):
    """Largest |a - b| / max(1, |b|) over nested arrays."""
    if isinstance(a, (list, tuple)):
        return max(gap(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return max(gap(a[k], b[k]) for k in b)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float((np.abs(a - b) / np.maximum(1.0, np.abs(b))).max())


try:  # CPU time, not wall-clock: on a shared 2-core box a 10 ms step is mostly other processes' time slices
    import js  # Pyodide in Node: the process's CPU time (V8's helper threads included), microseconds

    def clock():
        used = js.process.cpuUsage()
        return (used.user + used.system) / 1e6
except ImportError:
    clock = time.process_time


def timed(fn):
    t = clock()
    fn()
    return clock() - t


def compare(old, new):
    """Medians of REPEATS single calls of old and new, alternated (CPU ms), old / new, new's largest difference
    from old."""
    o, w = [], []
    for _ in range(REPEATS):
        o.append(timed(old))
        w.append(timed(new))
    mo, mw = statistics.median(o), statistics.median(w)
    return {"before_ms": 1e3 * mo, "after_ms": 1e3 * mw, "ratio": mo / mw, "max_diff": gap(new(), old())}


def stepper(pkg, section):
    """A function taking one more step of SECTION's stack in PKG (stack.iter_train, one step per yield)."""
    runs, params, net, kw = setup(pkg, section)
    steps = iter(pkg.stack.iter_train(runs, params, **{**kw, "steps": 10 ** 6, "chunk": 1, "every": 10 ** 6}))
    return lambda: next(steps)


def step_arrays(section):
    """One step's arrays of SECTION's stack in ours: everything the levers below act on."""
    runs, params, net, kw = setup(ours, section)
    m, st = ours.model, ours.stack
    cfg, P = st.shared_cfg(runs), st.stack(params, runs)
    cdf = np.cumsum(np.stack([r.task for r in runs]), -1)
    rngs = [np.random.default_rng(s) for s in sorted({r.seed for r in runs})]
    stream = np.array([r.seed for r in runs]) - min(r.seed for r in runs)
    inputs, targets = ours.data.sample_batches(cdf, kw["batch"], rngs, stream)
    cache = net.forward(P, cfg, inputs)
    _, dlogits = m.cross_entropy(cache["logits"].copy(), targets)
    grads = net.backward(P, cfg, inputs, cache, dlogits)
    masks = (np.array([r.cfg.tied for r in runs]), *(np.array([p in r.paths for r in runs]) for p in m.PATHS),
             np.array([r.input_grad_scale for r in runs]))
    u = np.random.default_rng(1).random(inputs.shape)
    x, a, _ = cache["mlp"] if "mlp" in cache else cache["mlps"][0]
    W1, b1 = P["W1"], P["b1"]  # block 1's in deep too
    return {"P": P, "cfg": cfg, "inputs": inputs, "targets": targets, "logits": cache["logits"], "grads": grads,
            "masks": masks, "cdf": cdf, "u": u, "x": x, "a": a, "W1": W1, "b1": b1, "lr": kw["lr"], "net": net,
            "cache": cache, "dlogits": dlogits, "rngs": rngs, "stream": stream, "batch": kw["batch"]}


def profile(section):
    """Where one step of SECTION's stack (ours) goes: median CPU ms of each part, and of the arithmetic inside them
    (one of the step's matmuls, its tanh, the exp of its softmax) that no lever here removes."""
    A = step_arrays(section)
    m, st, net = ours.model, ours.stack, A["net"]
    def median(fn):
        return 1e3 * statistics.median(timed(fn) for _ in range(REPEATS))
    parts = {
        "sample_batches": lambda: ours.data.sample_batches(A["cdf"], A["batch"], A["rngs"], A["stream"]),
        "forward": lambda: net.forward(A["P"], A["cfg"], A["inputs"]),
        "cross_entropy": lambda: m.cross_entropy(A["logits"].copy(), A["targets"]),
        "backward": lambda: net.backward(A["P"], A["cfg"], A["inputs"], A["cache"], A["dlogits"]),
        "route": lambda: st.route(A["grads"], *A["masks"]),
        "update": lambda: {k: Q - A["lr"] * Q for k, Q in A["P"].items()},
        "one matmul (x @ W1)": lambda: A["x"] @ A["W1"],
        "tanh (one block)": lambda: np.tanh(A["a"]),
        "exp of the logits": lambda: np.exp(A["logits"]),
    }
    return {k: median(f) for k, f in parts.items()}


def levers(section):
    """{lever: compare(...)} on SECTION's arrays: kept ones (base's code against ours) and the alternatives."""
    A = step_arrays(section)
    x, W1, b1, a, P, g = A["x"], A["W1"], A["b1"], A["a"], A["P"], A["grads"]
    rows = A["cdf"].reshape(-1, A["cdf"].shape[-1])[ours.model.stacked_rows(A["inputs"], A["cdf"].shape[-1])]
    u = A["u"][..., None]

    def tanh_expm1(a):  # tanh = t / (t + 2), t = expm1(2a): musl's own formula without its branches
        t = np.clip(a, -20.0, 20.0)
        t *= 2.0
        np.expm1(t, out=t)
        return np.divide(t, t + 2.0, out=t)

    def biased_in_place():
        out = x @ W1
        out += b1[..., None, :]
        return out

    def update_in_place():
        new = {}
        for k, Q in P.items():
            step = np.multiply(g2[k], A["lr"])
            new[k] = np.subtract(Q, step, out=step)
        return new

    def target_entries(flat):
        """cross_entropy's two uses of the targets' entries (read them, subtract 1/B) through model.at_targets' tuple
        of index arrays, or through one 1-D index into the flat view (NumPy's fast path for a single index array)."""
        L, t = A["logits"].copy(), A["targets"]
        view, at = (L, ours.model.at_targets(t)) if not flat else \
            (L.reshape(-1), np.arange(t.size) * L.shape[-1] + t.reshape(-1))
        picked = view[at].reshape(t.shape)
        view[at] -= 1.0 / t.shape[-1]
        return picked, L

    g2 = {**{k: v for k, v in g.items() if k in P}, "E": g["E_in"], "U": g["E_out"]}
    def route(pkg):
        return lambda: pkg.stack.route(g, *A["masks"])
    kept = {"uniform_route": (route(base), route(ours))}
    alternatives = {
        "flat_target_index": (lambda: target_entries(False), lambda: target_entries(True)),
        "tanh_expm1": (lambda: np.tanh(a), lambda: tanh_expm1(a)),
        "einsum": (lambda: x @ W1, lambda: np.einsum("...bd,...dh->...bh", x, W1)),
        "matmul_per_model": (lambda: x @ W1, lambda: np.stack([xi @ Wi for xi, Wi in zip(x, W1)])),
        "bias_in_place": (lambda: x @ W1 + b1[..., None, :], biased_in_place),
        "update_in_place": (lambda: {k: Q - A["lr"] * g2[k] for k, Q in P.items()}, update_in_place),
        "count_nonzero": (lambda: (u > rows).sum(-1), lambda: np.count_nonzero(u > rows, axis=-1)),
    }
    return {"kept": {k: compare(*f) for k, f in kept.items()},
            "not_kept": {k: compare(*f) for k, f in alternatives.items()}}


result = {"numpy": np.__version__, "python": sys.version.split()[0], "steps": STEPS, "repeats": REPEATS, "sections": {}}
for section in SHAPES:
    old, new = stepper(base, section), stepper(ours, section)
    for _ in range(5):  # warm: V8 tiers the wasm up on hot code
        old(), new()
    step = compare(old, new)
    step["max_diff"] = gap(trained(ours, section), trained(base, section))  # after STEPS steps from the same init
    result["sections"][section] = {"step": step, "profile_ms": profile(section), **levers(section)}
RESULT = json.dumps(result)
RESULT
'''


def sources(py: Path, name: str) -> dict[str, str]:
    """{NAME/relative path: text} of py/weighttying's numerics (the app, which needs Panel, left out)."""
    pkg = py / "weighttying"
    return {f"{name}/{p.relative_to(pkg)}": p.read_text() for p in sorted(pkg.rglob("*.py"))
            if "app" not in p.relative_to(pkg).parts}


def find_lock(dist: Path) -> Path:
    locks = sorted(dist.rglob("pyodide-lock.json"))
    if len(locks) != 1:
        sys.exit(f"expected one pyodide-lock.json in {dist} (build it first: .venv/bin/python build.py), found {locks}")
    return locks[0]


def in_pyodide(code: str, lock: Path, packages: str, what: str = "the Pyodide run") -> dict:
    """CODE's result (its last expression a JSON str) in Node-Pyodide with LOCK's PACKAGES (tests/node/run_pyodide.mjs);
    a failure exits, saying WHAT failed and Node's last words."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(code)
        f.flush()
        node = subprocess.run(["node", str(RUNNER), "--lock", str(lock), "--packages", packages, "--code", f.name],
                              capture_output=True, text=True, cwd=ROOT)
    if node.returncode or "WT_RESULT " not in node.stdout:
        sys.exit(f"{what} failed (exit {node.returncode}):\n{node.stderr[-3000:]}")
    return json.loads(node.stdout.split("WT_RESULT ", 1)[1])


def in_cpython(code: str, tmp: Path) -> dict:
    """CODE's result (its RESULT, a JSON str) in a child of this CPython; a failure says the child's last words."""
    (tmp / "cpython.py").write_text(code + "\nprint(RESULT)\n")
    cp = subprocess.run([sys.executable, str(tmp / "cpython.py")], capture_output=True, text=True)
    if cp.returncode:
        raise RuntimeError(f"the CPython run failed (exit {cp.returncode}): {(cp.stderr.strip().splitlines() or [''])[-1]}")
    return json.loads(cp.stdout.strip().splitlines()[-1])


def run_both(code: str, lock: Path, tmp: Path) -> dict:
    """The snippet's result in Pyodide (Node) and in this CPython, one after the other (2 cores: never at once);
    either one's failure is recorded as failed and the other still runs."""
    return {"pyodide": failures.tried("the Pyodide run", in_pyodide, code, lock, "numpy"),
            "cpython": failures.tried("the CPython run", in_cpython, code, tmp)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", default=BEFORE, help=f"git ref of the base copy (default {BEFORE}: before the levers)")
    ap.add_argument("--repeats", type=int, default=41)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--dist", type=Path, default=ROOT / "dist", help="a built site: its lock gives Pyodide's NumPy")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "step_levers.json")
    a = ap.parse_args(argv)
    lock = find_lock(a.dist)
    with tempfile.TemporaryDirectory(prefix="wt-step-levers-") as tmp:
        files = {**sources(ROOT / "py", "weighttying"), **sources(checkout_py(a.against, Path(tmp)), "base")}
        code = f"SOURCES = {files!r}\nREPEATS = {a.repeats}\nSTEPS = {a.steps}\n" + SNIPPET
        both = run_both(code, lock, Path(tmp))
        report = {"against": a.against, **both, "failed": [f"{k}: {r['failed']}" for k, r in both.items() if "failed" in r],
                  "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg": os.getloadavg()}}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=1) + "\n")
    for engine in ("pyodide", "cpython"):
        for section, r in report[engine].get("sections", {}).items():
            s, each = r["step"], {**r["kept"], **r["not_kept"]}
            print(f"{engine:8s} {section:10s} step {s['before_ms']:6.2f} -> {s['after_ms']:6.2f} ms "
                  f"(x{s['ratio']:.3f}, diff {s['max_diff']:.0e}); "
                  + ", ".join(f"{k} x{v['ratio']:.2f} ({v['max_diff']:.0e})" for k, v in each.items()))
            print(" " * 20 + ", ".join(f"{k} {v:.2f}" for k, v in r["profile_ms"].items()))
    print(f"[bench] wrote {a.out}", file=sys.stderr)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
