"""The code lab's numerics: the lesson backward against the stacked one, each named bug's checks against
values derived here from the model's own pieces, the reader's errors at their lines, and the race."""
import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from weighttying import codelab, codelab_bugs, data, gradcheck, measure, model, pathdrop, train
from weighttying import state
from weighttying.views import gradcheck as gradcheck_view

ROOT = Path(__file__).resolve().parents[1]

SEEDS = (0, 5)  # seed 5's batch reads one of its tokens once: the buffered bug is right on that row
STEPS = 20  # race steps: enough for two chunks, a few milliseconds


@pytest.fixture(scope="module")
def numeric():
    """Central differences of the lab's model on its batch, per seed (computed once for the module)."""
    out = {}
    for seed in SEEDS:
        cfg, (inputs, targets) = codelab.config(seed), codelab.batch(seed)
        out[seed] = gradcheck.numerical_grads(model.init_params(cfg), cfg, inputs, targets)
    return out


def lesson_grads(params, cfg, inputs, targets):
    """lesson_backward's gradients for one batch."""
    _, cache, dlogits = codelab.forward(params, cfg, inputs, targets)
    return codelab.lesson_backward(params, cfg, np.asarray(inputs), cache, dlogits)


BATCHES = {"lab": codelab.batch(0), "lab seed 5": codelab.batch(5),
           "one token 9 times": (np.full(9, 3), np.arange(9)), "one token once": (np.array([7]), np.array([2])),
           "random with repeats": (np.random.default_rng(1).integers(0, 20, 50), np.random.default_rng(2).integers(0, 20, 50))}
CONFIGS = {"lab": codelab.CONFIG, "page toy": model.Config(), "seed 3": codelab.config(3),
           "res 0.3, in_scale 0.7, small": model.Config(V=20, d=5, hidden=7, res=0.3, in_scale=0.7, sigma=0.9, seed=2)}


@pytest.mark.parametrize("cfg_name", CONFIGS)
@pytest.mark.parametrize("batch_name", BATCHES)
def test_lesson_backward_equals_the_stacked_backward(cfg_name, batch_name):
    cfg, (inputs, targets) = CONFIGS[cfg_name], BATCHES[batch_name]
    if inputs.max() >= cfg.V:
        inputs, targets = inputs % cfg.V, targets % cfg.V
    params = model.init_params(cfg)
    _, fast = model.loss_and_grads(params, cfg, inputs, targets)
    mine = lesson_grads(params, cfg, inputs, targets)
    assert set(mine) == set(fast) == {"E", "W1", "b1", "W2", "b2"}
    for name in fast:
        assert mine[name].shape == fast[name].shape
        assert np.abs(mine[name] - fast[name]).max() <= 1e-12 * max(1.0, np.abs(fast[name]).max()), name
        assert np.abs(fast[name]).max() > 0, name


def test_original_source_is_lesson_backward_and_runs_as_the_reader_text():
    text = codelab.original_source()
    assert text.startswith(f"def {codelab.NAME}(params, cfg, inputs, cache, dlogits):")
    assert 15 <= len(text.splitlines()) <= 30 and "np.add.at(dE, inputs" in text
    out = codelab.run_source(text)
    cfg = codelab.config(0)
    want = lesson_grads(model.init_params(cfg), cfg, *codelab.batch(0))
    assert out["kind"] == "ok" and set(out["grads"]) == set(want)
    for name in want:
        assert np.array_equal(np.array(out["grads"][name]), want[name]), name


def test_the_lab_batch_is_the_gradient_check_sections_batch_and_repeats_tokens():
    inputs, targets = codelab.batch()
    want_inputs, want_targets = gradcheck_view.batch(state.Gradcheck())
    assert np.array_equal(inputs, want_inputs) and np.array_equal(targets, want_targets)
    assert len(np.unique(inputs)) == codelab.DISTINCT < len(inputs)


# ---- the named bugs ----

def test_every_bug_is_an_edit_of_the_original_of_at_most_two_lines():
    original = codelab.original_source().splitlines()
    assert codelab_bugs.BUGS[0].id == "correct" and codelab.bug_source("correct") == codelab.original_source()
    for bug in codelab_bugs.BUGS[1:]:
        edited = codelab.bug_source(bug.id).splitlines()
        changed = len(set(original) ^ set(edited))
        assert 1 <= changed <= 4 and abs(len(original) - len(edited)) <= 2, bug.id  # a line out, a line in, per edit
        assert bug.label and bug.wrong.endswith(".") and bug.wrong.count(". ") == 0, bug.id  # one sentence


def test_a_bug_whose_old_text_is_gone_or_repeated_fails_naming_it():
    bug = codelab_bugs.BY_ID["buffered"]
    with pytest.raises(ValueError, match="'buffered'.*0 times"):
        codelab_bugs.apply(codelab.original_source().replace("np.add.at", "numpy.add.at"), bug)
    with pytest.raises(ValueError, match="2 times"):
        codelab_bugs.apply(codelab.original_source() * 2, bug)
    with pytest.raises(ValueError, match="no named bug 'nope'"):
        codelab.bug_source("nope")


def test_a_deleting_edit_removes_its_whole_line_first_middle_or_last():
    drop = codelab_bugs.Bug("drop", "d", "d.", (("b = 2", None),))
    assert codelab_bugs.apply("b = 2  # x\na\n", drop) == "a\n"
    assert codelab_bugs.apply("a\n  b = 2  # x\nc\n", drop) == "a\nc\n"
    assert codelab_bugs.apply("a\nb = 2", drop) == "a\n"


def expected_grads(bug_id: str, seed: int) -> dict:
    """A named bug's gradients from the model's own pieces (model.backward's two paths, mlp_backward), not from the
    lab's text."""
    cfg, (inputs, targets) = codelab.config(seed), codelab.batch(seed)
    params = model.init_params(cfg)
    cache = model.forward(params, cfg, inputs)
    _, dlogits = model.cross_entropy(cache["logits"], targets)
    parts = model.backward(params, cfg, inputs, cache, dlogits)
    E_in, E_out = parts["E_in"], parts["E_out"]
    grads = {"E": E_in + E_out, **{name: parts[name] for name in ("W1", "b1", "W2", "b2")}}
    if bug_id == "output_only":
        return {**grads, "E": E_out}
    if bug_id == "input_only":
        return {**grads, "E": E_in}
    if bug_id == "in_scale":
        return {**grads, "E": E_out + E_in / cfg.in_scale}
    if bug_id == "buffered":
        return {**grads, "E": E_out + model.backward(params, cfg, inputs, cache, dlogits,
                                                     scatter=pathdrop.scatter_buffered)["E_in"]}
    if bug_id == "tanh_slope":  # the MLP's backward with a's slope 1 - a**2: its cache with a in z's place
        x, a, _ = cache["mlp"]
        dh = dlogits @ params["E"]
        dx_mlp, mlp = model.mlp_backward(dh, (x, a, a), params["W1"], params["W2"])
        E_in = model.scatter_rows(cfg.V, inputs, cfg.in_scale * (cfg.res * dh + dx_mlp))
        return {**grads, "W1": mlp["W1"], "b1": mlp["b1"], "E": E_in + E_out}
    assert bug_id == "correct"
    return grads


def hand_wrong_rows(bug_id: str, inputs: np.ndarray, V: int) -> np.ndarray:
    """The rows of E a bug gets wrong, from what it does: the batch's rows, every row, the repeated tokens', none."""
    reads = np.bincount(inputs, minlength=V)
    return {"correct": reads < 0, "input_only": reads >= 0, "buffered": reads > 1}.get(bug_id, reads > 0)


RESULT_BUGS = [bug.id for bug in codelab_bugs.BUGS if bug.id != "transposed"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("bug_id", RESULT_BUGS)
def test_each_bugs_checks_equal_the_values_derived_by_hand(bug_id, seed, numeric):
    out = codelab.lab(codelab.bug_source(bug_id), k=20, steps=STEPS, seed=seed, numeric=numeric[seed])
    assert out["kind"] == "ok"
    inputs, _ = codelab.batch(seed)
    V, d = codelab.CONFIG.V, codelab.CONFIG.d
    rows = hand_wrong_rows(bug_id, inputs, V)
    entries = out["entries"]
    assert entries["E"]["wrong_rows"] == rows.tolist()
    assert entries["E"]["batch_rows"] == np.isin(np.arange(V), inputs).tolist()
    assert entries["E"]["reads"] == [int((inputs == v).sum()) for v in range(V)]
    want = expected_grads(bug_id, seed)
    by_name = {p["name"]: p for p in entries["params"]}
    assert list(by_name) == ["E", "W1", "b1", "W2", "b2"]
    for name, g in want.items():
        err = gradcheck.rel_error(g, numeric[seed][name])
        assert by_name[name]["max_rel_err"] == pytest.approx(err.max(), rel=1e-9, abs=1e-9), name
        assert by_name[name]["wrong"] == int((err > pathdrop.TOL).sum()), name
        assert by_name[name]["entries"] == g.size
    if bug_id in ("output_only", "buffered", "in_scale"):  # every entry of a wrong row is wrong; nothing else is
        assert entries["wrong"] == by_name["E"]["wrong"] == int(rows.sum()) * d
    if bug_id == "input_only":
        assert entries["wrong"] == V * d
    if bug_id == "tanh_slope":
        assert {n for n, p in by_name.items() if p["wrong"]} == {"E", "W1", "b1"}
    if bug_id == "correct":
        assert entries["wrong"] == 0 and entries["max_rel_err"] < pathdrop.TOL
    n, wrong = entries["entries"], entries["wrong"]
    assert n == sum(P.size for P in model.init_params(codelab.CONFIG).values())
    assert out["random"]["miss_probability"] == pytest.approx(math.comb(n - wrong, 20) / math.comb(n, 20), rel=1e-12)


def test_the_transposed_product_is_called_transposed_at_the_line_that_made_it():
    text = codelab.bug_source("transposed")
    out = codelab.lab(text, steps=STEPS)
    W2 = model.init_params(codelab.CONFIG)["W2"]
    assert out["kind"] == "gradient" and out["parameter"] == "W2"
    assert f"the gradient of W2 (dW2) is transposed: shape {W2.T.shape} where W2 has shape {W2.shape}" == out["message"]
    assert out["line"] == line_of(text, "dW2 = dh.T @ z"), out


@pytest.mark.parametrize("bug_id", RESULT_BUGS)
def test_a_bugs_verdict_names_it(bug_id, numeric):
    out = codelab.lab(codelab.bug_source(bug_id), steps=STEPS, numeric=numeric[0])
    label = codelab_bugs.BY_ID[bug_id].label
    if bug_id == "correct":
        n = sum(P.size for P in model.init_params(codelab.CONFIG).values())
        assert out["bug"] is None and out["verdict"].startswith(f"Exact: all {n} entries") and label not in out["verdict"]
    else:
        assert out["bug"] == bug_id and label in out["verdict"] and out["verdict"].startswith("Wrong on ")
        E = out["entries"]["E"]
        wrong, read = np.array(E["wrong_rows"]), np.array(E["batch_rows"])
        said = f"E ({wrong.sum()} of {codelab.CONFIG.V} rows"
        if not wrong.any():
            assert said not in out["verdict"]
        elif (wrong == read).all():
            assert f"{said}, exactly the {read.sum()} tokens the batch reads)" in out["verdict"]
        elif not (wrong & ~read).any():
            assert f"{said}, all of them tokens the batch reads)" in out["verdict"]
        else:
            assert f"{said})" in out["verdict"]


def test_gradients_near_a_bugs_but_not_equal_name_no_bug(numeric):
    text = codelab.bug_source("output_only").replace("dW1 = x.T @ da", "dW1 = x.T @ da * (1 + 1e-6)")
    out = codelab.lab(text, steps=STEPS, numeric=numeric[0])
    assert out["bug"] is None and "bug" not in out["verdict"]


# ---- the random-entry check ----

def test_the_random_check_draws_without_replacement_at_the_exact_miss_rate(numeric):
    grads = expected_grads("output_only", 0)
    first = codelab.random_check(grads, numeric[0], 20, seed=3)
    assert first == codelab.random_check(grads, numeric[0], 20, seed=3)  # seeded
    passed = [codelab.random_check(grads, numeric[0], 20, seed=s)["passed"] for s in range(400)]
    p = first["miss_probability"]
    assert abs(np.mean(passed) - p) <= 4 * math.sqrt(p * (1 - p) / len(passed))
    n, wrong = first["entries"], first["wrong"]
    pigeonhole = codelab.random_check(grads, numeric[0], n - wrong + 1)
    assert pigeonhole["miss_probability"] == 0.0 and not pigeonhole["passed"] and pigeonhole["hit"] >= 1
    everything = codelab.random_check(grads, numeric[0], 10**6)
    assert everything["k"] == n and everything["hit"] == wrong
    assert codelab.random_check(expected_grads("correct", 0), numeric[0], 50)["passed"]
    for k in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must be an integer"):
            codelab.random_check(grads, numeric[0], k)


# ---- the reader's errors ----

ORIGINAL = codelab.original_source()


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of text holding fragment."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


def edited(old: str, new: str) -> str:
    assert ORIGINAL.count(old) == 1, old
    return ORIGINAL.replace(old, new)


RUNTIME = {  # an edit, the line it must be reported at, and the message's start
    "shape mismatch": (("dz = dh @ W2.T", "dz = dh @ W2"), "dz = dh @ W2", "ValueError: matmul"),
    "name": (("db1 = da.sum", "db1 = daa.sum"), "db1 = daa.sum", "NameError: name 'daa' is not defined"),
    "key": (('W2 = params["E"], params["W1"], params["W2"]', 'W2 = params["E"], params["W1"], params["W3"]'),
            'params["W3"]', "KeyError: 'W3'"),
    "frozen config": (("dE = np.zeros_like(E)", "cfg.res = 2.0; dE = np.zeros_like(E)"), "cfg.res = 2.0",
                      "FrozenInstanceError"),
    "arguments": (("(params, cfg, inputs, cache, dlogits)", "(params, cfg)"), "def lesson_backward",
                  "TypeError: lesson_backward() takes 2 positional arguments but 5 were given"),
}


@pytest.mark.parametrize("case", RUNTIME)
def test_a_runtime_error_is_one_line_at_the_readers_line(case):
    (old, new), at, start = RUNTIME[case]
    text = edited(old, new)
    out = codelab.lab(text, steps=STEPS)
    assert out["kind"] == "runtime" and out["line"] == line_of(text, at), out
    assert out["message"].startswith(start) and "\n" not in out["message"]
    assert "weighttying" not in out["message"] and "Traceback" not in out["message"]
    assert out == codelab.run_source(text)


def test_a_returned_mapping_that_fails_as_it_is_read_is_a_runtime_error_at_its_line():
    text = edited("return {", "return Grads({") + (
        "\n\nclass Grads(dict):\n    def __iter__(self):\n        raise LookupError('unreadable')\n\n"
        "    keys = __iter__\n")
    text = text.replace('"b2": db2}', '"b2": db2})')
    out = codelab.lab(text)
    assert out["kind"] == "runtime" and out["line"] == line_of(text, "raise LookupError"), out
    assert out["message"] == "LookupError: unreadable"


def test_an_error_as_the_text_runs_is_at_its_line():
    text = "import numpy as np\nscale = 1 / 0\n" + ORIGINAL
    assert codelab.run_source(text) == {"kind": "runtime", "message": "ZeroDivisionError: division by zero", "line": 2,
                                        "column": None, "parameter": None}


@pytest.mark.parametrize("old,new,at,points_at", [("dh = dlogits @ E ", "dh = dlogits @@ E", "@@", "@"),
                                                  ("    dW2 = z.T", "      dW2 = z.T", "dW2", " d")])
def test_a_syntax_error_has_the_readers_line_and_column(old, new, at, points_at):
    text = edited(old, new)
    out = codelab.lab(text)
    assert out["kind"] == "syntax" and out["line"] == line_of(text, at), out
    assert text.splitlines()[out["line"] - 1][out["column"] - 1] in points_at, out  # Python's column, 1-based
    assert out["message"].split(":")[0] in ("SyntaxError", "IndentationError")


# An edit of the return or a gradient, the parameter named, a phrase of the message, and the line named: the one
# that last assigned the reader's variable holding the gradient, else (None here) the reader's return statement,
# or (a function that returns nothing) its last line run.
GRADIENT = {
    "missing": (('"b2": db2}', '}'), "b2", "no gradient for b2: the returned dict has E, W1, b1, W2", None),
    "shape": (("db2 = dh.sum(axis=0)", "db2 = dh.sum(axis=1)"), "b2",
              "the gradient of b2 (db2) has shape (32,); b2 has shape (16,)", "db2 = dh.sum(axis=1)"),
    "returned by another name": (('"b1": db1', '"b1": da'), "b1", "the gradient of b1 (da) has shape (32, 64)",
                                 "da = dz * (1 - z**2)"),
    "written in the return": (('"b2": db2}', '"b2": db2[:3]}'), "b2", "the gradient of b2 has shape (3,)", None),
    "non-finite": (("db1 = da.sum(axis=0)", "db1 = da.sum(axis=0) / 0"), "b1",
                   "64 of the 64 entries of the gradient of b1 (db1)", "db1 = da.sum(axis=0) / 0"),
    "not numbers": (('"b2": db2}', '"b2": "db2"}'), "b2", "the gradient of b2 is not an array of real numbers (str)",
                    None),
    "a number": (('"b2": db2}', '"b2": 0}'), "b2", "the gradient of b2 has shape ()", None),
    "not a dict": (('return {"E": dE', 'print; {"E": dE'), None, "returned None (is its return missing?)", None),
}


@pytest.mark.parametrize("case", GRADIENT)
def test_a_bad_gradient_names_its_parameter_at_the_line_that_made_it(case):
    (old, new), parameter, phrase, made_at = GRADIENT[case]
    text = edited(old, new)
    out = codelab.lab(text)
    assert out["kind"] == "gradient" and out["parameter"] == parameter and phrase in out["message"], out
    want = line_of(text, made_at) if made_at else len(text.rstrip("\n").splitlines())
    assert out["line"] == want and out["column"] is None, out


def test_a_return_in_the_middle_is_the_line_named():
    # the gradient written in the return (dh * 1, no variable holds it), so the line named is the return's
    text = edited('    dh = dlogits @ E', '    dh = dlogits @ E\n    if dh.size:\n        return {"E": dh * 1}')
    out = codelab.lab(text)
    assert out["kind"] == "gradient" and out["line"] == line_of(text, 'return {"E": dh * 1}'), out


@pytest.mark.parametrize("text,phrase", [(ORIGINAL.replace("def lesson_backward", "def backward"), "no function named"),
                                         ("lesson_backward = 3\n", "not a function: it is of type int")])
def test_no_function_to_call_says_so(text, phrase):
    out = codelab.lab(text)
    assert out["kind"] == "undefined" and phrase in out["message"] and out["line"] is None


# ---- the race ----

def test_the_races_correct_side_is_a_plain_train_run_and_the_correct_backward_ties_it():
    cfg, r = codelab.config(2), codelab.RECIPE
    plain = train.train(model.init_params(cfg), cfg, measure.race_task(r), steps=STEPS, lr=r.lr, batch=r.batch,
                        seed=2, chunk=codelab.CHUNK)["history"]
    race = codelab.race(codelab.lesson_backward, STEPS, seed=2)
    assert race["steps"] == [p["step"] for p in plain] == list(range(0, STEPS + 1, codelab.CHUNK))
    assert race["correct"] == [p["eval"] for p in plain] and race["error"] is None
    assert np.allclose(race["yours"], race["correct"], rtol=1e-9, atol=0)
    assert race["final"] == {"correct": plain[-1]["eval"], "yours": race["yours"][-1]}


def test_a_broken_backward_trains_to_a_different_loss():
    race = codelab.race(codelab.load(codelab.bug_source("input_only")), STEPS)
    assert race["correct"][0] == race["yours"][0] and race["final"]["yours"] > race["final"]["correct"]


def test_a_backward_that_writes_into_its_arguments_changes_nothing_of_the_correct_run():
    text = edited("    dE = np.zeros_like(E)",
                  "    E *= 0; cache['h'][:] = 1; dlogits[:] = 0; inputs[:] = 0\n    dE = np.zeros_like(E)")
    race = codelab.race(codelab.load(text), STEPS)
    assert race["correct"] == codelab.race(codelab.lesson_backward, STEPS)["correct"]
    assert race["yours"][-1] != race["correct"][-1]


def test_an_error_in_the_race_ends_it_at_the_readers_line():
    text = edited("    dE = np.zeros_like(E)", "    assert len(inputs) == 32, 'a batch of 32'\n    dE = np.zeros_like(E)")
    out = codelab.lab(text, steps=STEPS)  # the check's batch has 32 tokens, the race's RECIPE.batch
    assert codelab.RECIPE.batch != 32 and out["kind"] == "ok" and out["entries"]["wrong"] == 0
    assert out["race"]["error"] == {"kind": "runtime", "message": "AssertionError: a batch of 32",
                                    "line": line_of(text, "assert len"), "column": None, "parameter": None}
    assert out["race"]["steps"] == [0] and out["race"]["final"]["correct"] == out["race"]["correct"][0]


def test_a_lab_result_is_plain_json():
    out = codelab.lab(codelab.bug_source("buffered"), steps=STEPS)
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    assert set(out) == {"kind", "entries", "random", "race", "bug", "verdict"}
    assert set(out["random"]) == {"k", "entries", "wrong", "miss_probability", "hit", "passed"}
    assert codelab.checks(codelab.bug_source("buffered")) == {k: v for k, v in out.items() if k != "race"}


def test_a_diverging_race_stops_with_the_gradient_that_went_non_finite():
    race = codelab.race(codelab.load(codelab.bug_source("tanh_slope")), 300)
    assert race["error"]["kind"] == "gradient" and "not finite" in race["error"]["message"]
    assert race["steps"][-1] < 300 and data.expected_loss(model.init_params(codelab.CONFIG), codelab.CONFIG,
                                                          measure.race_task(codelab.RECIPE)) == race["yours"][0]


def test_the_prose_on_races_holds_for_every_named_bug():
    """codelab.html: a wrong backward's race ends at a worse loss without a word, except the bugs it names, whose
    race stops on a gradient no longer finite within a few dozen steps (at most 50)."""
    prose = " ".join((ROOT / state.SECTION["codelab"].html).read_text(encoding="utf-8").split())
    for bug in codelab_bugs.BUGS:
        out = codelab.lab(codelab.bug_source(bug.id))
        if out["kind"] != "ok" or bug.id == "correct":
            continue
        race = out["race"]
        if race["error"] is None:
            assert race["final"]["yours"] > race["final"]["correct"], bug.id
            assert f"“{bug.label}” is the exception" not in prose, bug.id
        else:
            assert race["error"]["kind"] == "gradient" and race["steps"][-1] <= 50, bug.id
            assert f"“{bug.label}” is the exception" in prose, bug.id


def test_the_lab_config_makes_in_scale_matter():
    assert codelab.CONFIG.in_scale != 1 and codelab.CONFIG.tied
    assert dataclasses.replace(codelab.CONFIG, in_scale=1.0) == model.Config()
