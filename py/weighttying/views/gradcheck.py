"""The gradient-check section's HTML: badge, per-parameter table, kink note, E's error heatmap. No Panel.

build.py prerenders `prerender(State().gradcheck)`; the live section runs the same check in steps
(gradcheck.iter_check) and feeds its result to the same functions, so the page reads the same
before and after it upgrades. The E heatmap pieces and the memo of central differences are shared
with the path-drop section.
"""
from __future__ import annotations

import html
import math

import numpy as np

from .. import gradcheck, model, pathdrop
from .. import render as R
from .. import state as S

TOL = pathdrop.TOL  # an entry agrees when its relative error is at most this (the path-drop rule too)
# (cfg, inputs, targets) -> central differences at init, newest last: at page load the gradient-check
# and path-drop sections check the same default model on the same batch, so it is computed once.
NUMERIC_MEMO: dict = {}
MEMO_SIZE = 8


def config(st: S.Gradcheck) -> model.Config:
    """The toy model this section checks: default shape, the section's tying, res and seed."""
    return model.Config(tied=st.tied, res=st.res, seed=st.seed)


def batch(st: S.Gradcheck, V: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """(inputs (B,), targets (B,)): with repeats, B // 4 distinct tokens as the page's batch; else all distinct."""
    if st.repeats:
        return pathdrop.batch(V, max(1, st.batch // 4), st.batch, st.seed)
    rng = np.random.default_rng(st.seed)
    B = min(st.batch, V)  # more than V tokens cannot all be distinct
    return rng.choice(V, B, replace=False), rng.integers(0, V, B)


def iter_numeric(cfg: model.Config, inputs, targets):
    """gradcheck.iter_numerical_grads of model.init_params(cfg), through NUMERIC_MEMO: progress dicts, the last with "numeric"."""
    key = (cfg, tuple(np.asarray(inputs).tolist()), tuple(np.asarray(targets).tolist()))
    if key in NUMERIC_MEMO:
        total = sum(P.size for P in NUMERIC_MEMO[key].values())
        yield {"step": total, "total": total, "numeric": dict(NUMERIC_MEMO[key])}
        return
    for point in gradcheck.iter_numerical_grads(model.init_params(cfg), cfg, inputs, targets):
        if "numeric" in point:
            for grad in point["numeric"].values():
                grad.flags.writeable = False  # shared by both sections: nobody may change it
            NUMERIC_MEMO[key] = point["numeric"]
            while len(NUMERIC_MEMO) > MEMO_SIZE:
                NUMERIC_MEMO.pop(next(iter(NUMERIC_MEMO)))
            point = {**point, "numeric": dict(point["numeric"])}
        yield point


def iter_check(st: S.Gradcheck):
    """gradcheck.iter_check for this section's state: progress dicts, the last with "result"."""
    cfg = config(st)
    inputs, targets = batch(st)
    return gradcheck.iter_check(model.init_params(cfg), cfg, inputs, targets, numeric=iter_numeric(cfg, inputs, targets))


def entries(st: S.Gradcheck) -> int:
    """How many entries the check perturbs: every entry of every parameter."""
    return sum(P.size for P in model.init_params(config(st)).values())


def run_check(st: S.Gradcheck) -> dict:
    """The whole check at once (prerender, tests): iter_check's result."""
    for point in iter_check(st):
        pass
    return point["result"]


def errors(result: dict) -> dict[str, np.ndarray]:
    """Entrywise relative error of every parameter {name: like param}."""
    return {n: gradcheck.rel_error(result["analytic"][n], result["numeric"][n]) for n in result["numeric"]}


def summary(result: dict) -> dict:
    """{rows: [(name, entries, max error, entries over TOL)], entries, worst, disagree, kink fields}."""
    errs = errors(result)
    rows = [(n, int(e.size), float(e.max()), int((e > TOL).sum())) for n, e in errs.items()]
    return {"rows": rows, "entries": sum(r[1] for r in rows), "worst": max(r[2] for r in rows),
            "disagree": sum(r[3] for r in rows), "E_err": errs["E"],
            **{k: result[k] for k in ("nearest_kink", "bump_reach", "kink_safe")}}


def decade(x: float) -> str:
    """The power of ten at or above x, as '1e-7' (x = 0 gives '0')."""
    return "0" if x <= 0 else f"1e{math.ceil(math.log10(x))}" if math.isfinite(x) else R.num(x)


def badge(s: dict) -> str:
    """The fixed correctness badge: all N entries agree to 1e-x, or how many do not and why."""
    n, bad = s["entries"], s["disagree"]
    if bad == 0:
        text, kind = f"gradient check: all {n} entries agree to {decade(s['worst'])}", "wt-good"
    else:
        why = "a ReLU kink lies inside the step" if not s["kink_safe"] else "not a kink: a bug"
        text, kind = f"gradient check: {bad} of {n} entries disagree ({why})", "wt-bad"
    return (f'<a class="wt-gc-badge {kind}" href="#gradcheck" role="status" data-testid="gradcheck-badge" '
            f'data-value="{bad}" data-entries="{n}" data-worst="{s["worst"]!r}">{html.escape(text)}</a>')


def value(name: str, x: object, text: str | None = None) -> str:
    """A live number with its data-testid and the exact value in data-value."""
    shown = html.escape(R.num(x) if text is None else text)
    return f'<strong data-testid="{name}" data-value="{x!r}">{shown}</strong>'


def readout(st: S.Gradcheck, s: dict) -> str:
    """One paragraph: what was checked, the worst error, how many entries disagree, kink distance."""
    inputs, _ = batch(st)
    tokens, counts = np.unique(inputs, return_counts=True)
    kink = ("farther than" if s["kink_safe"] else "closer than")
    return (f'<p class="wt-readout" data-testid="gradcheck-readout">{"Tied" if st.tied else "Untied"}, res = '
            f'{html.escape(R.num(st.res))}, a batch of {len(inputs)} tokens ({len(tokens)} distinct, '
            f'{int((counts > 1).sum())} repeated), seed {st.seed}: '
            f'{value("gradcheck-entries", s["entries"])} entries checked, worst relative error '
            f'{value("gradcheck-worst", s["worst"])}, {value("gradcheck-disagree", s["disagree"])} over {TOL:g}. '
            f'The nearest ReLU kink is {value("gradcheck-kink", s["nearest_kink"])} away, {kink} one '
            f'finite-difference bump can move a pre-activation ({html.escape(R.num(s["bump_reach"]))}): '
            f'kink-safe {value("gradcheck-kink-safe", s["kink_safe"])}.</p>')


def table_rows(s: dict) -> list[tuple]:
    """(parameter, entries, max relative error, entries over TOL, verdict) per parameter."""
    return [(n, size, worst, bad, "agrees" if bad == 0 else "disagrees") for n, size, worst, bad in s["rows"]]


COLUMNS = ("parameter", "entries", "max relative error", f"entries over {TOL:g}", "verdict")


def table(s: dict) -> str:
    """The per-parameter table."""
    return R.table(COLUMNS, table_rows(s), "Every entry of every parameter against central differences",
                   "gradcheck-table")


def kink_note(s: dict) -> str:
    """What a kink does to the check, said for the current result (shown only when it matters)."""
    if s["kink_safe"]:
        return ('<p class="wt-help">No ReLU pre-activation sits within one bump of zero, so central '
                'differences see a smooth function and the comparison is fair.</p>')
    return ('<p class="wt-help wt-bad">A ReLU pre-activation sits within one bump of zero: for the entries '
            'that move it across the kink, (loss(+ε) − loss(−ε)) / 2ε averages two different slopes, so '
            'the <em>numerical</em> side is wrong there, not the backward pass. We show the disagreement '
            'instead of hiding it; change the seed or res and it moves or vanishes.</p>')


def row_errors(err: np.ndarray) -> np.ndarray:
    """Max relative error of each row of E (V,)."""
    return err.max(axis=1)


def heatmap_desc(err: np.ndarray, inputs) -> str:
    """The text alternative of E's error heatmap: which rows are wrong, which tokens the batch read."""
    bad = np.flatnonzero(row_errors(err) > TOL).tolist()
    return (f"Rows of E over {TOL:g}: {len(bad)} of {len(err)}"
            f"{' (' + ', '.join(map(str, bad)) + ')' if 0 < len(bad) <= 16 else ''}; "
            f"tokens in the batch: {', '.join(map(str, np.unique(inputs).tolist()))}; "
            f"largest row error {R.num(float(err.max()))}.")


def heatmap_svg(err: np.ndarray, inputs, title: str) -> str:
    """E's entrywise relative error as a d x V grid (x = row of E = token id), rows over TOL outlined."""
    V, d = err.shape
    mark = np.broadcast_to(row_errors(err) > TOL, (d, V))
    return (R.heatmap(err.T, np.arange(V), np.arange(d), title, "row of E (token id)", "column of E", mark=mark)
            + f'<p class="wt-help">{html.escape(heatmap_desc(err, inputs))}</p>')


def prerender(st: S.Gradcheck) -> str:
    """The default state: badge, readout, table, kink note and E's error heatmap."""
    s = summary(run_check(st))
    return (badge(s) + readout(st, s) + table(s) + kink_note(s)
            + heatmap_svg(s["E_err"], batch(st)[0], "Relative error of every entry of dE"))
