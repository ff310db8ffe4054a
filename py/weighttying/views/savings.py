"""The savings section's output: the current config's share, the three presets beside the page, and the
share-vs-vocabulary curve. No Panel; cheap (arithmetic), so every slot follows the controls directly.

A preset and the five numbers are one state: `preset_fields` is what a preset means, FILLS says so as
data, and `reconcile` (state.fill over FILLS) says what to change so that they agree (used by the live
section's watchers, on load from a URL and by `slots`, so any state shows what the live section would
show after reconciling it).
"""
from __future__ import annotations

import numpy as np

from .. import render
from .. import quoted
from .. import savings
from .. import state
from .kit import claim, grid, hook, judged, table

FIELDS = ("V", "d", "layers", "d_ff", "context")
CUSTOM = "custom"
CURVE_V = np.unique(np.round(np.logspace(1, 7, 61)).astype(int))  # 10 .. 10 million tokens, log-spaced
SLOTS = ("claim", "readout", "curve", "curve_at", "curve_text", "presets")


def preset_fields(name: str) -> dict[str, int]:
    """{V, d, layers, d_ff, context} of one of savings.PRESETS, in the state's field names."""
    p = savings.PRESETS[name]
    return {"V": p["V"], "d": p["d"], "layers": p["n_layers"], "d_ff": p["d_ff"], "context": p["context"]}


# What reconcile does, as data for the player: a preset fills in its numbers, an edit away from them is custom.
FILLS = {"preset": {"by": {name: preset_fields(name) for name in savings.PRESETS}, "else": CUSTOM}}
_FILLED = FILLS["preset"]["by"].values()
# Every preset; V, d (number boxes) on a log grid, layers at a few positions, each with the presets' own values,
# so a preset's numbers edited one at a time stay on the grid.
PLAYBACK = {"preset": grid("savings", "preset"),
            "V": grid("savings", "V", (10, 100, 1000, 10_000, 100_000, 10 ** 6, 10 ** 7, *(f["V"] for f in _FILLED))),
            "d": grid("savings", "d", (16, 64, 256, 1024, 4096, 16384, *(f["d"] for f in _FILLED))),
            "layers": grid("savings", "layers", (0, 1, 6, 24, 48, *(f["layers"] for f in _FILLED)))}
DEPENDS = {"claim": (), "readout": ("preset", *FIELDS), "presets": (), "curve": ("preset", *FIELDS),
           "curve_at": ("preset", *FIELDS), "curve_text": ("preset", *FIELDS)}
OVERLAYS = {"curve_at": "curve"}  # the current V's point, drawn over the curve (which does not depend on V)
CLAIM = "claim"
DATA = ("presets",)  # the three models beside the page: the claim line and the readout say the current one


def reconcile(values: dict, changed: str = "") -> dict:
    """Updates that make preset and numbers agree; `changed` is "preset", a field, or "" on load: FILLS read by
    state.fill, the same rule site/player.js applies (picking a preset fills in its numbers; editing a number away
    from the preset makes it 'custom'; on load, numbers left at their defaults take the preset's)."""
    return state.fill(FILLS, values, vars(state.Savings()), changed)


def settled(st: state.Savings) -> dict:
    """{preset, V, d, layers, d_ff, context} of st after reconciling preset and numbers as on load."""
    values = vars(st)
    return {**values, **reconcile(values)}


def config(values: dict) -> dict:
    """savings.tying_saving's keyword arguments for the section's numbers."""
    return {"V": values["V"], "d": values["d"], "n_layers": values["layers"], "d_ff": values["d_ff"],
            "context": values["context"]}


def readout(values: dict) -> str:
    """The current config's saving: V*d, the untied and tied totals, the share, with test hooks."""
    s = savings.tying_saving(**config(values))
    name = values["preset"]
    label = f"the {name} preset" if name != CUSTOM else "your configuration"
    page = quoted.PAGE["share"].get(name)
    beside = f" (the page says {page:.1%} for this model)" if page is not None else ""
    n = {k: hook(f"savings-{k}", s[k], f"{s[k]:,}") for k in ("saved", "untied", "tied")}
    share = hook("savings-share", s["share"], f"{s['share']:.2%}")
    return (f'<p class="wt-readout" data-testid="savings-readout">For {label} (V = {values["V"]:,}, d = {values["d"]:,}, '
            f'{values["layers"]} blocks, d_ff = {values["d_ff"]:,}, context {values["context"]:,}) tying removes '
            f'V·d = {n["saved"]} of {n["untied"]} parameters, leaving {n["tied"]}: a share of {share}{beside}. '
            "Half would need every other parameter of the model to be zero.</p>")


def claim_html() -> str:
    """The page's claim: in GPT-2 small, tying saves a share of the parameters far from half."""
    _, rows = preset_rows()
    r = next(r for r in rows if r[0] == "gpt2-small")
    return claim([("GPT-2 small: share of the parameters tying saves", f"{r[8]:.1%}", f"{r[9]:.1%}", r[10])],
                 "savings-claim")


def preset_rows() -> tuple[list[str], list[list[object]]]:
    """(columns, rows): each preset's config, saving and share beside the page's share, with the verdict."""
    rows = []
    for name in savings.PRESETS:
        f, s, page = preset_fields(name), savings.tying_saving(**config(preset_fields(name))), quoted.PAGE["share"][name]
        rows.append([name, f["V"], f["d"], f["layers"], f["d_ff"], f["context"], s["saved"], s["untied"],
                     s["share"], page, judged(quoted.share_id(name), [s["share"]])])
    return (["model", "V", "d", "layers", "d_ff", "context", "saved (V·d)", "untied total", "share", "page says",
             "verdict"], rows)


def presets_table() -> str:
    """The three presets beside the page's shares (percentages to 0.01%)."""
    columns, rows = preset_rows()
    body = [[*r[:6], f"{r[6]:,}", f"{r[7]:,}", f"{r[8]:.2%}", f"{r[9]:.1%}", r[10]] for r in rows]
    return table(columns, body, "Share of parameters tying removes: ours beside the page's (the presets' "
                 "configs other than GPT-2 small are our stand-ins)", "savings-presets")


def curve(values: dict) -> dict:
    """{V, share} over CURVE_V with the current d, layers, d_ff and context."""
    c = config(values)
    return {"V": CURVE_V, "share": np.array(savings.share_curve(CURVE_V, c["d"], c["n_layers"], c["d_ff"], c["context"]))}


def curve_summary(values: dict) -> str:
    """The curve's text alternative: where it starts, where the current V sits, where it ends."""
    c, now = curve(values), savings.tying_saving(**config(values))["share"]
    return (f'<p class="wt-help" data-testid="savings-curve-text">Share against vocabulary size at d = {values["d"]:,}, '
            f'{values["layers"]} blocks: {c["share"][0]:.2%} at V = {c["V"][0]:,}, {now:.2%} at the current '
            f'V = {values["V"]:,}, {c["share"][-1]:.2%} at V = {c["V"][-1]:,}. It rises towards 50% and never '
            "reaches it.</p>")


def series(values: dict) -> dict[str, np.ndarray]:
    """The chart's two lines over CURVE_V: the share at the current width and depth, and one half."""
    c = curve(values)
    return {"share of parameters saved": c["share"], "half (never reached)": np.full(len(c["V"]), 0.5)}


def figure(values: dict) -> str:
    """The share-vs-V curve at the current width and depth as an inline SVG line chart."""
    c = curve(values)
    return render.lines(series(values), f"Share saved against vocabulary size V (log scale, {c['V'][0]:,} to {c['V'][-1]:,}), "
                   f"d = {values['d']}, {values['layers']} blocks", "vocabulary size V (log scale)", "share",
                   xs=CURVE_V, xname="V")


def current_point(values: dict) -> str:
    """The ring over the curve at the current V and its share (dashed at the edge for a V off the chart)."""
    share = savings.tying_saving(**config(values))["share"]
    return render.lines_at(series(values), CURVE_V, values["V"], share)


def slots(st: state.Savings, results: None = None) -> dict[str, str]:
    """The savings section's output for st (reconciled): readout, preset table, curve and its summary."""
    values = settled(st)
    return {"claim": claim_html(), "readout": readout(values), "curve": figure(values),
            "curve_at": current_point(values), "curve_text": curve_summary(values), "presets": presets_table()}
