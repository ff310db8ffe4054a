"""The tying section's HTML: the notation table and the toy's parameter count, tied vs untied. No Panel.

build.py prerenders `prerender(State().tying)`; the live section reuses `counts` so the numbers read
the same before and after the page upgrades. `hook` is the readout idiom the other two sections of
this file's author (savings, paper) share: a number with data-testid and its exact repr in data-value.
"""
from __future__ import annotations

import html

from .. import render as R
from .. import quoted
from .. import state as S
from ..model import Config
from ..savings import toy_params

HIDDEN = Config().hidden  # the toy's MLP width: fixed, so the count depends on V and d only

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


def hook(testid: str, x: object, text: str | None = None) -> str:
    """A readout number: <strong data-testid data-value=repr(x)>text</strong> (text defaults to render.num)."""
    shown = R.num(x) if text is None else text
    return f'<strong data-testid="{html.escape(testid)}" data-value="{html.escape(repr(x))}">{html.escape(shown)}</strong>'


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


def counts(V: int, d: int) -> str:
    """Readout and table of the toy's parameter count at V, d, with the page's 32% beside ours at its toy."""
    c = count(V, d)
    columns, rows = count_rows(V, d)
    body = [[name, shape, f"{t:,}", f"{u:,}"] for name, shape, t, u in rows]
    n = {k: hook(f"tying-{k}", c[k], f"{c[k]:,}") for k in ("tied", "untied", "saved")}
    pct = {k: hook(f"tying-{k}", c[k], f"{c[k]:.1%}") for k in ("share", "more")}
    out = (f'<p class="wt-readout" data-testid="tying-readout">At V = {V:,} and d = {d:,} the tied toy has '
           f'{n["tied"]} parameters and the untied one {n["untied"]}. Tying removes exactly V·d = {n["saved"]}: '
           f'{pct["share"]} of the untied model (said the other way round, the untied model is {pct["more"]} '
           'larger than the tied one).</p>')
    out += R.table(columns, body, f"Parameters of the toy at V = {V}, d = {d} (MLP width {HIDDEN})", "tying-table")
    page = quoted.PAGE["toy_saving"]
    if (V, d) == (Config().V, Config().d):  # the page quotes its saving for its own toy only
        out += R.table(["reading of the saving", "ours", "page says", "verdict"],
                       [["V·d / untied total (fewer parameters when tied)", f"{c['share']:.1%}", f"{page:.0%}",
                         quoted.within(c["share"], page, 0.01)],
                        ["V·d / tied total (more parameters when untied)", f"{c['more']:.1%}", f"{page:.0%}",
                         quoted.within(c["more"], page, 0.01)]],
                       "The page's “32% fewer parameters” matches V·d over the tied count, not over the untied one",
                       "tying-page")
    else:
        out += (f'<p class="wt-help">The page quotes {page:.0%} for its toy (V = {Config().V}, d = {Config().d}); '
                "set those values to compare.</p>")
    return out


def notation() -> str:
    """The symbols every section uses, with shapes."""
    return R.table(["symbol", "shape", "meaning"], NOTATION, "Notation used on this page", "tying-notation")


def prerender(st: S.Tying) -> str:
    """The tying section's default state: count readout and table, then the notation table."""
    return counts(st.V, st.d) + notation()
