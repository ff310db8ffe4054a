"""The tying section's output: the toy's parameter count tied vs untied, the page's 32% beside ours,
and the notation table. No Panel; cheap (arithmetic), so every slot follows V and d directly."""
from __future__ import annotations

from .. import quoted, render, state
from ..savings import toy_params
from .kit import TOY, grid, hook, judged, table

HIDDEN = TOY.hidden  # the toy's MLP width: fixed, so the count depends on V and d only
SLOTS = ("page", "readout", "count", "notation")
# V and d are number boxes (ranges far wider than a slider): powers of two and the presets' values.
PLAYBACK = {"V": grid("tying", "V", [2 ** k for k in range(1, 21)] + [10 ** 6]),
            "d": grid("tying", "d", [2 ** k for k in range(0, 17)] + [10 ** 5])}
DEPENDS = {"readout": ("V", "d"), "count": ("V", "d"), "page": ("V", "d"), "notation": ()}
CLAIM = "page"  # the page's 32% beside ours opens the section
DATA = ("count", "notation")  # the readout says the count; the table splits it by matrix

NOTATION = (
    ("V", "scalar", "vocabulary size: how many distinct tokens"),
    ("d", "scalar", "model width: the length of every token vector"),
    ("t", "index", "the token just read, 0 ≤ t < V"),
    ("E", "(V, d)", "input embedding: row t is token t's vector"),
    ("U", "(V, d)", "output matrix of an untied model: row v scores token v"),
    ("σ (sigma)", "scalar", "standard deviation of E's (and U's) random initial entries"),
    ("inScale", "scalar", "input scale: x = inScale · E[t]"),
    ("x", "(d,)", "what the model reads: the scaled embedding of t"),
    ("res", "scalar", "residual weight: h = res · x + MLP(x); 0 removes the residual stream"),
    ("h", "(d,)", "the final hidden state (the residual stream)"),
    ("logits", "(V,)", "one score per candidate next token: h · Uᵀ untied, h · Eᵀ tied"),
)


def count(V: int, d: int) -> dict:
    """{tied, untied, saved, share (of untied), more (untied over tied - 1)} for the toy at V, d."""
    tied, untied = toy_params(V, d, HIDDEN, True), toy_params(V, d, HIDDEN, False)
    return {"tied": tied, "untied": untied, "saved": untied - tied, "share": (untied - tied) / untied,
            "more": untied / tied - 1}


def count_rows(V: int, d: int) -> tuple[list[str], list[list[object]]]:
    """(columns, rows) of the per-matrix count, tied and untied (also what the exports hold)."""
    mlp = toy_params(V, d, HIDDEN, True) - V * d
    c = count(V, d)
    return (["matrix", "shape", "tied", "untied"],
            [["E", f"({V}, {d})", V * d, V * d], ["U", f"({V}, {d})", 0, V * d],
             ["MLP (W1, b1, W2, b2)", f"d·{HIDDEN} + {HIDDEN} + {HIDDEN}·d + d", mlp, mlp],
             ["total", "", c["tied"], c["untied"]]])


def readout(V: int, d: int) -> str:
    """The toy's parameter count at V, d in one paragraph, with test hooks."""
    c = count(V, d)
    n = {k: hook(f"tying-{k}", c[k], f"{c[k]:,}") for k in ("tied", "untied", "saved")}
    pct = {k: hook(f"tying-{k}", c[k], f"{c[k]:.1%}") for k in ("share", "more")}
    return (f'<p class="wt-readout" data-testid="tying-readout">At V = {V:,} and d = {d:,} the tied toy has '
            f'{n["tied"]} parameters and the untied one {n["untied"]}. Tying removes exactly V·d = {n["saved"]}: '
            f'{pct["share"]} of the untied model (said the other way round, the untied model is {pct["more"]} '
            'larger than the tied one).</p>')


def count_table(V: int, d: int) -> str:
    """The per-matrix count as a table."""
    columns, rows = count_rows(V, d)
    body = [[name, shape, f"{t:,}", f"{u:,}"] for name, shape, t, u in rows]
    return render.table(columns, body, f"Parameters of the toy at V = {V}, d = {d} (MLP width {HIDDEN})", "tying-table")


def page(V: int, d: int) -> str:
    """Both readings of the saving beside the page's 32%, at the page's own toy only (else how to get there)."""
    c, quote = count(V, d), quoted.PAGE["toy_saving"]
    if (V, d) != (TOY.V, TOY.d):  # the page quotes its saving for its own toy only
        return (f'<p class="wt-help">The page quotes {quote:.0%} for its toy (V = {TOY.V}, d = {TOY.d}); '
                "set those values to compare.</p>")
    return table(["reading of the saving", "ours", "page says", "verdict"],
                 [["V·d / untied total (fewer parameters when tied)", f"{c['share']:.1%}", f"{quote:.0%}",
                   judged("tasks.saving", [c["share"]])],
                  ["V·d / tied total (more parameters when untied)", f"{c['more']:.1%}", f"{quote:.0%}",
                   judged("tasks.saving_of_tied", [c["more"]])]],
                 f"With our MLP of width {TOY.hidden} (the page gives none), the page's “32% fewer parameters” "
                 "matches V·d over the tied count, not over the untied one",
                 "tying-page")


def notation() -> str:
    """The symbols every section uses, with shapes."""
    return render.table(["symbol", "shape", "meaning"], NOTATION, "Notation used on this page", "tying-notation")


def slots(st: state.Tying, results: None = None) -> dict[str, str]:
    """The tying section's output for st: count readout, count table, the page's reading, notation."""
    return {"page": page(st.V, st.d), "readout": readout(st.V, st.d), "count": count_table(st.V, st.d),
            "notation": notation()}
