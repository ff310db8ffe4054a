"""The gradient-check section's output: badge, readout, per-parameter table, E's error heatmap. No Panel.

`results(st)` is the summary of the whole check (central differences of every entry, through the
caller's `kit.Differences` when it passes one): per-parameter errors and E's entrywise error; the live section runs the same check
in steps (`iter_check`) through its Runner and hands its summary to `slots`. The check reruns on
every change, so no control waits for a Run: RUN_KEYS is empty.
"""
from __future__ import annotations


import numpy as np

from ..markup import escape
from .. import gradcheck, model, pathdrop, render
from ..precision import carried
from .. import state
from .kit import TOL, TOY, Differences, error_heatmap, grid, hook, last, lin, shown_errors, source

SLOTS = ("badge", "readout", "heatmap", "table")
# No RUN_KEYS: every slot needs the check, so it follows every control and reruns on any change (app.kit.RunSection).
RUN_KEYS = ()
# Both toggles; res and batch at a few slider positions (each point is a full check: ~0.1 s in CPython).
PLAYBACK = {"tied": grid("gradcheck", "tied"), "repeats": grid("gradcheck", "repeats"),
            "res": grid("gradcheck", "res", lin(0.0, 1.0, 0.25)),
            "batch": grid("gradcheck", "batch", (1, 8, 32, 128, 256))}
DEPENDS = {name: ("tied", "res", "batch", "repeats", "seed") for name in SLOTS}
CLAIM = "badge"  # all entries agree (or how many do not): the section's claim
DATA = ("table",)  # per parameter: the readout and the badge say the total


def config(st: state.Gradcheck) -> model.Config:
    """The toy model this section checks: default shape, the section's tying, res and seed."""
    return model.Config(tied=st.tied, res=st.res, seed=st.seed)


def batch(st: state.Gradcheck) -> tuple[np.ndarray, np.ndarray]:
    """(inputs (B,), targets (B,)): with repeats, B // 4 distinct tokens as the page's batch; else all distinct."""
    V = TOY.V
    if st.repeats:
        return pathdrop.batch(V, max(1, st.batch // 4), st.batch, st.seed)
    rng = np.random.default_rng(st.seed)
    B = min(st.batch, V)  # more than V tokens cannot all be distinct
    return rng.choice(V, B, replace=False), rng.integers(0, V, B)


def iter_check(st: state.Gradcheck, memo: Differences | None = None):
    """gradcheck.iter_check for this section's state, its central differences through memo: progress dicts,
    the last with "result"."""
    cfg = config(st)
    inputs, targets = batch(st)
    numeric = (memo or Differences()).steps(cfg, inputs, targets)
    return gradcheck.iter_check(model.init_params(cfg), cfg, inputs, targets, numeric=numeric)


def entries(st: state.Gradcheck) -> int:
    """How many entries the check perturbs: every entry of every parameter."""
    return sum(P.size for P in model.init_params(config(st)).values())


steps, total = iter_check, entries  # the Run (app.kit.RunSection; live through the store's memo)


def check(st: state.Gradcheck) -> dict:
    """The whole check at once (build, tests): iter_check's result."""
    return last(iter_check(st))["result"]


def errors(result: dict) -> dict[str, np.ndarray]:
    """Entrywise relative error of every parameter as the page shows it (kit.shown_errors: 0 where an entry
    agrees) {name: like param}."""
    return {n: shown_errors(gradcheck.rel_error(result["analytic"][n], result["numeric"][n]))
            for n in result["numeric"]}


def summary(result: dict) -> dict:
    """{rows: [(name, entries, max error, entries over TOL)], entries, worst, disagree, E_err}."""
    errs = errors(result)
    rows = [(n, int(e.size), float(e.max()), int((e > TOL).sum())) for n, e in errs.items()]
    return {"rows": rows, "entries": sum(r[1] for r in rows), "worst": max(r[2] for r in rows),
            "disagree": sum(r[3] for r in rows), "E_err": errs["E"]}


def error_text(x: float) -> str:
    """A relative error as the page writes it: an agreeing one (0, kit.shown_errors) as at most TOL."""
    return f"≤ {TOL:g}" if x == 0 else render.num(x)


def results(st: state.Gradcheck) -> dict:
    """What the section shows of the check for st: its summary."""
    return summary(check(st))


def badge(s: dict) -> str:
    """The fixed correctness badge: all N entries agree (to TOL), or how many do not and why (a link whose text is
    its name, announced when it changes: role="status" would take the name from the author only)."""
    n, bad = s["entries"], s["disagree"]
    if bad == 0:
        text, kind = f"gradient check: all {n} entries agree to {TOL:g}", "wt-good"
    else:
        text, kind = f"gradient check: {bad} of {n} entries disagree (tanh is smooth: a bug)", "wt-bad"
    return (f'<a class="wt-gc-badge {kind}" href="#gradcheck" aria-live="polite" data-testid="gradcheck-badge" '
            f'data-value="{bad}" data-entries="{n}" data-worst="{carried(s["worst"])!r}">{escape(text)}</a>')


def readout(st: state.Gradcheck, s: dict) -> str:
    """One paragraph: what was checked, the worst error, how many entries disagree."""
    inputs, _ = batch(st)
    tokens, counts = np.unique(inputs, return_counts=True)
    return (f'<p class="wt-readout" data-testid="gradcheck-readout">{"Tied" if st.tied else "Untied"}, res = '
            f'{escape(render.num(st.res))}, a batch of {len(inputs)} tokens ({len(tokens)} distinct, '
            f'{int((counts > 1).sum())} repeated), seed {st.seed}: '
            f'{hook("gradcheck-entries", s["entries"])} entries checked, worst relative error '
            f'{hook("gradcheck-worst", s["worst"], error_text(s["worst"]))}, '
            f'{hook("gradcheck-disagree", s["disagree"])} over {TOL:g}.</p>')


def table_rows(s: dict) -> list[tuple]:
    """(parameter, entries, max relative error, entries over TOL, verdict) per parameter."""
    return [(n, size, error_text(worst), bad, "agrees" if bad == 0 else "disagrees") for n, size, worst, bad in s["rows"]]


COLUMNS = ("parameter", "entries", "max relative error", f"entries over {TOL:g}", "verdict")


def table(s: dict) -> str:
    """The per-parameter table."""
    return render.table(COLUMNS, table_rows(s), "Every entry of every parameter against central differences",
                   "gradcheck-table")


def slots(st: state.Gradcheck, results: dict | None = None) -> dict[str, str]:
    """The section's output for st from its check's summary (the check is run here when not given)."""
    s = summary(check(st)) if results is None else results
    return {"badge": badge(s), "readout": readout(st, s) + source(results, "gradcheck-source"),
            "heatmap": error_heatmap(s["E_err"], batch(st)[0], "Relative error of every entry of dE",
                                     heading="error of dE"), "table": table(s)}
