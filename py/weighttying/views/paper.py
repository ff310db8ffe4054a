"""The paper section's output: path-norm readout and curve, CKA alignment, the two-block logit lens and
the claims table (paper says | ours | verdict). No Panel.

`results(st)` is one `paper.study` (seconds of training): every slot renders from it, or, while a
live run streams, from its "norms" so far; any change of a control (RUN_KEYS: all of them) leaves
the slots pending until the study runs for the new settings.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import lens, model, paper, pool
from .. import render
from .. import quoted
from .. import state
from .kit import Verdict, claim, grid, hook, lin, log, note, pending, source, table

MILD = 2.0  # an output/input ratio under this is "dominates only mildly"
SLOTS = ("claim", "norms", "figure", "claims", "tuned", "align", "lens", "layers")
# A change of a RUN_KEYS field leaves the run's slots pending until the reader presses Run (the one policy:
# app.kit.RunSection, docs/DESIGN.md "Runs"); nothing starts by itself.
RUN_KEYS = ("scale", "seeds", "steps", "lr", "seed")
_LR = state.BY_KEY["paper.lr"]
# Every slot needs the study, so away from the defaults the slots say "pending" (cheap): the scale
# slider at a few positions and its presets, every seed count, a few steps and a log grid of lr.
PLAYBACK = {"scale": grid("paper", "scale", (*lin(0.0, 2.0, 0.5), 4.0, 10.0, 16.0, 100.0)),
            "seeds": grid("paper", "seeds", range(1, 6)), "steps": grid("paper", "steps", (10, 100, 1000, 5000)),
            "lr": grid("paper", "lr", log(_LR.lo, _LR.hi, 1))}
DEPENDS = {name: RUN_KEYS for name in SLOTS}
CLAIM = "claim"
DATA = ("tuned", "align", "lens", "layers")  # the tuned lens (its share is the claim line), the two-block study's tables
# (the claims table carries their verdicts), the tuned lens per layer


def ratio_text(x: float) -> str:
    """A path-norm ratio: ×1.23, or ∞ when the input path is switched off (scale 0)."""
    return "∞ (input path off)" if np.isinf(x) else "×" + render.num(x, 3)


def norms_readout(norms: dict, scale: float) -> str:
    """Mean and latest output / (scale · input) gradient-norm ratio, with hooks."""
    early = min(int(norms["step"][-1]), paper.EARLY)
    mean, last = norms["mean_ratio"], float(norms["ratio"][-1])
    return (f'<p class="wt-readout" data-testid="paper-norms">Input-gradient scale {render.num(scale)}: over steps 0 to '
            f'{early} the output path’s gradient into E is {hook("paper-ratio", mean, ratio_text(mean))} the size of the '
            f'(scaled) input path’s, on average; at step {int(norms["step"][-1])} it is '
            f'{hook("paper-ratio-last", last, ratio_text(last))}.</p>')


def norms_figure(norms: dict) -> str:
    """Inline SVG of both path norms over the measured steps, with the plotted numbers as text."""
    out = np.asarray(norms["output"], float)
    scaled = out / np.asarray(norms["ratio"], float)  # = scale * input, without recomputing the scale
    return (render.lines({"output path": out, "input path × scale": scaled},
                    f"Gradient norm into the tied E, steps 0 to {int(norms['step'][-1])}", "training step",
                    "gradient norm (Frobenius)", xs=norms["step"], xname="step",
                    alt=f"Plotted: {len(out)} measurements; output-path norm {out[0]:.3g} at step 0 and {out[-1]:.3g} at "
                        f"step {int(norms['step'][-1])}; scaled input-path norm {scaled[0]:.3g} and {scaled[-1]:.3g}.")
            + note(f"The output path's curve lies {'above' if norms['mean_ratio'] > 1 else 'below'} the scaled input "
                   f"path's: it is the {'larger' if norms['mean_ratio'] > 1 else 'smaller'} gradient into E."))


def align_rows(result: dict) -> tuple[list[str], list[list[object]]]:
    """(columns, rows) of CKA(tied E, untied U) and CKA(tied E, untied E), at this scale and at scale 1."""
    a, scale = result["align"], result["scale"]
    rows = [[f"tied, scale {render.num(scale)}", a["cka_with_U"], a["cka_with_E"], a["cka_with_U"] - a["cka_with_E"]]]
    if scale != 1.0:
        rows.append(["tied, scale 1 (reference)", a["ref_cka_with_U"], a["ref_cka_with_E"],
                     a["ref_cka_with_U"] - a["ref_cka_with_E"]])
    return ["tied model", "CKA with untied U", "CKA with untied E", "bias (U minus E)"], rows


def align_html(result: dict) -> str:
    """The alignment readout and table."""
    a = result["align"]
    bias = a["cka_with_U"] - a["cka_with_E"]
    ref = a["ref_cka_with_U"] - a["ref_cka_with_E"]
    side = "its output matrix U" if bias > 0 else "its input matrix E" if bias < 0 else "neither"
    text = (f'<p class="wt-readout" data-testid="paper-align">Averaged over {len(result["align_seeds"])} seed(s), '
            f'the tied E is {hook("paper-cka-u", a["cka_with_U"], render.num(a["cka_with_U"], 3))} similar to the untied '
            f'model’s U and {hook("paper-cka-e", a["cka_with_E"], render.num(a["cka_with_E"], 3))} to its E (linear CKA, '
            f'1 = identical up to rotation): a bias of {hook("paper-bias", bias, render.num(bias, 3))}, towards {side}. '
            f'Unscaled (scale 1) the bias is {hook("paper-ref-bias", ref, render.num(ref, 3))}.</p>')
    columns, rows = align_rows(result)
    return text + render.table(columns, [[r[0], *(render.num(v, 3) for v in r[1:])] for r in rows],
                          "Similarity of the tied E to an untied model's two matrices", "paper-align-table")


def baseline_html(seed: int, seeds: int) -> str:
    """What the similarity table reads before training (paper.init_cka over the study's seeds): its baselines."""
    c = paper.init_cka(range(seed, seed + seeds))
    return (f'<p class="wt-help" data-testid="paper-cka-baselines">Before any training the same table would read '
            f'{hook("paper-cka-u-init", c["with_U"], render.num(c["with_U"], 3))} with U, what two independent random '
            f'{model.Config().V} × {model.Config().d} matrices score (chance level), and '
            f'{hook("paper-cka-e-init", c["with_E"], render.num(c["with_E"], 3))} with E, because the tied and untied '
            'models of a seed start from the same E. Training moves both: read the columns against these.</p>')


def lens_rows(result: dict) -> tuple[list[str], list[list[object]]]:
    """(columns, rows): block 1's share of the loss drop and of the residual norm, tied vs untied, seed range."""
    m, seeds = result["lens"], result["lens_seeds"]

    def spread(key: str) -> str:
        v = [r[key] for r in seeds]
        return f"{min(v):.3f} to {max(v):.3f}"

    return (["measure (two-block toy, logit lens)", "tied", "untied", "tied minus untied", "tied, per seed",
             "untied, per seed"],
            [["block 1's share of the loss drop", m["tied_loss_drop"], m["untied_loss_drop"],
              m["tied_loss_drop"] - m["untied_loss_drop"], spread("tied_loss_drop"), spread("untied_loss_drop")],
             ["block 1's output norm / final residual norm", m["tied_norm_share"], m["untied_norm_share"],
              m["tied_norm_share"] - m["untied_norm_share"], spread("tied_norm_share"), spread("untied_norm_share")]])


def lens_html(result: dict) -> str:
    """The lens readout and table."""
    m = result["lens"]
    text = (f'<p class="wt-readout" data-testid="paper-lens">Block 1 makes '
            f'{hook("paper-lens-drop-tied", m["tied_loss_drop"], render.num(m["tied_loss_drop"], 3))} of the tied model’s '
            f'loss drop and {hook("paper-lens-drop-untied", m["untied_loss_drop"], render.num(m["untied_loss_drop"], 3))} '
            f'of the untied one’s; its output is '
            f'{hook("paper-lens-norm-tied", m["tied_norm_share"], render.num(m["tied_norm_share"], 3))} vs '
            f'{hook("paper-lens-norm-untied", m["untied_norm_share"], render.num(m["untied_norm_share"], 3))} of the final '
            "residual norm.</p>")
    columns, rows = lens_rows(result)
    body = [[r[0], *(render.num(v, 3) for v in r[1:4]), r[4], r[5]] for r in rows]
    return text + table(columns, body, "What the early block contributes (logit lens on a two-block toy, "
                        "not the paper's tuned lens)", "paper-lens-table")


def paired(result: dict, key: str) -> tuple[float, float, str]:
    """lens.verdict of the per-seed tied - untied differences of a two-block lens measure: (mean, SE, verdict)."""
    return lens.verdict([r[f"tied_{key}"] - r[f"untied_{key}"] for r in result["lens_seeds"]])


def claim_rows(result: dict) -> tuple[list[str], list[list[object]]]:
    """(columns, rows): each claim of the paper, what it says, our number, and the verdict with its rule."""
    n, a, scale = result["norms"], result["align"], result["scale"]
    bias, ref = a["cka_with_U"] - a["cka_with_E"], a["ref_cka_with_U"] - a["ref_cka_with_E"]
    ratio = n["mean_ratio"]
    mild = " — only mildly (under ×2)" if 1 < ratio < MILD else ""
    rows = [["output gradients dominate early (mean output / input norm, steps 0-100, this scale)",
             "> 1", ratio, quoted.sign(ratio > 1) + mild],
            ["tied E is closer to untied U than to untied E (scale 1)", "> 0", ref, quoted.sign(ref > 0)]]
    if scale > 1:
        rows.append([f"scaling input gradients (×{render.num(scale)}) shrinks that bias", f"< {render.num(ref, 3)}", bias,
                     quoted.sign(bias < ref) + (" — and reverses it" if bias < 0 < ref else "")])
    else:
        rows.append(["scaling input gradients shrinks that bias", "smaller bias at scale > 1", bias,
                     "n/a: set the scale above 1 to test it"])
    # The norm share is shown beside the paper's measure, not as its claim: the paper says "less effectively", not
    # "less" (the section's aside on the norm measure).
    for key, label, rule in (("loss_drop", "early block contributes less when tied (share of loss drop)", "< 0"),
                             ("norm_share",
                              "early block's output norm share, tied minus untied (not the paper's claim)", "—")):
        diff, se, verdict = paired(result, key)
        rows.append([label, rule, diff, f"{verdict}, paired SE {render.num(se, 3)} over {len(result['lens_seeds'])} seeds"])
    return ["claim", "paper says", "ours", "verdict"], rows


def claims_html(result: dict) -> str:
    """The claims table."""
    columns, rows = claim_rows(result)
    body = [[r[0], r[1], "∞" if np.isinf(r[2]) else render.num(r[2], 3), r[3]] for r in rows]
    return table(columns, body, "The paper's claims at toy scale", "paper-claims")


# ---- the tuned lens (lens.study: a four-block toy, five seeds; computed at build) ----------------------

@functools.lru_cache(maxsize=1)
def tuned_study() -> dict:
    """lens.study() at its own settings, which no control of this section changes: computed once."""
    return lens.study()


LAYER_COLUMNS = ("layer", "block's output / final residual norm: tied", "untied", "tuned-lens KL: tied", "untied",
                 "logit-lens KL: tied", "untied")


def tuned_layer_rows(t: dict) -> list[list[object]]:
    """Per layer l = 0..L (mean over seeds): block l's output norm share, the tuned and the logit lens's held-out KL."""
    L, n = t["layers"]["tied"], t["layers"]["untied"]
    return [["embedding (before block 1)" if l == 0 else f"after block {l}",
             *(render.num(x["norm"][l - 1], 3) if l else "—" for x in (L, n)),
             *(render.num(x[k][l], 3) for k in ("tuned_kl", "logit_kl") for x in (L, n))] for l in range(t["blocks"] + 1)]


def tuned_claim_rows(t: dict) -> list[list[object]]:
    """Per early-block measure: tied, untied, their difference, the tolerance (2 paired SE over the seeds) and
    the report's verdict."""
    return [[f"{name} (blocks 1..{lens.EARLY})", render.num(t["tied"][k], 3), render.num(t["untied"][k], 3),
             render.num(t["tied"][k] - t["untied"][k], 3), render.num(2 * t["se"][k], 3),
             Verdict(f"paper.lens.{k}", t["verdict"][k], 2 * t["se"][k])] for k, name in lens.MEASURES.items()]


def claim_html(t: dict | None) -> str:
    """The paper's claim: the early blocks contribute less when tied (tuned lens, 5 seeds at toy scale)."""
    k = "tuned_kl_share"
    if t is None:
        return claim([("Early blocks' share of the tuned lens's KL drop, tied minus untied", "computed at build",
                       "< 0", "n/a")], "paper-claim", "the paper")
    return claim([("Early blocks' share of the tuned lens's KL drop, tied minus untied",
                   render.num(t["tied"][k] - t["untied"][k], 3), "< 0",
                   Verdict(f"paper.lens.{k}", t["verdict"][k], 2 * t["se"][k]))], "paper-claim", "the paper")


def tuned_html(t: dict) -> str:
    """The tuned lens beside the logit lens on the deep toy: where it comes from, per layer, and the verdicts."""
    k = "tuned_kl_share"
    text = (f'<p class="wt-readout" data-testid="paper-tuned">A tuned lens (Belrose et al. 2023: one affine '
            f'translator per block, fitted to the model\'s own final predictions; the KL is measured on held-out '
            f'tokens) on a {t["blocks"]}-block toy, {t["seeds"]} seeds, tied vs untied: the early blocks\' share of '
            f'its KL drop is {hook("paper-tuned-tied", t["tied"][k], render.num(t["tied"][k], 3))} tied and '
            f'{hook("paper-tuned-untied", t["untied"][k], render.num(t["untied"][k], 3))} untied; verdict on the '
            f'paper\'s claim: {t["verdict"][k].split(" (")[0]} at toy scale. Computed at build by this page\'s own '
            "code (the weighttying package in CPython), not in your browser: it trains 10 models.</p>")
    claims = table(("measure", "tied", "untied", "tied minus untied", "tolerance: 2 paired SE", "verdict"),
                   tuned_claim_rows(t),
                   "Do the early blocks contribute less when tied? Tuned lens, with the logit lens as the baseline",
                   "paper-tuned-claims")
    return text + claims


def layers_html(t: dict) -> str:
    """The tuned-lens study per layer (mean over seeds): each block's output norm share, both lenses' KL."""
    return table(LAYER_COLUMNS, tuned_layer_rows(t), "Per layer, mean over seeds: what each block adds and how "
                 "far each lens is from the model's final prediction (KL, nats)", "paper-tuned-layers")


def results(st: state.Paper) -> dict:
    """paper.study for st, {scale, norms, align, align_seeds, lens, lens_seeds}, and "tuned": tuned_study()."""
    return {**paper.study(st.scale, st.steps, st.seed, st.seeds, st.lr), "tuned": tuned_study()}


def steps(st: state.Paper):
    """The Run (app.kit.RunSection): paper.iter_study for st, its progress dicts, the last with "result"."""
    return paper.iter_study(st.scale, st.steps, st.seed, st.seeds, st.lr)


def total(st: state.Paper) -> int:
    """The Run's steps: every model's SGD steps."""
    return paper.study_total(st.scale, st.steps, st.seeds)


def slots(st: state.Paper, results: dict | None = None) -> dict[str, str]:
    """The section's output for st from a study (finished, or streaming: only "norms" so far), else pending."""
    r = results or {}
    norms = r.get("norms")
    if norms is None or len(norms["step"]) == 0:
        out = {"norms": pending("Gradient norms", "paper-norms"), "figure": ""}
    else:
        out = {"norms": norms_readout(norms, st.scale) + source(r, "paper-source"), "figure": norms_figure(norms)}
    done = "align" in r
    tuned = tuned_html(r["tuned"]) if "tuned" in r else note(
        "Tuned lens: computed at build by this page's own code for the default settings (ten models, too heavy to "
        "train here by default); a live run recomputes only the two-block study above.", testid="paper-tuned")
    return {"claim": claim_html(r.get("tuned")), **out, "claims": claims_html(r) if done else pending("Claims"), "tuned": tuned,
            "align": align_html(r) + baseline_html(st.seed, st.seeds) if done else pending("Similarity"), "lens": lens_html(r) if done else pending("Lens"),
            "layers": layers_html(r["tuned"]) if "tuned" in r else ""}


# ---- a Run split across workers (weighttying.pool) ----

LATEST = ("norms",)  # the path norms so far: each point's supersedes the one before
COST = {"lens_tied": 2.0, "lens_untied": 2.0}  # a two-block run costs about two one-block runs


def split(st: state.Paper, n: int) -> list[dict]:
    """The study's runs (role, seed) in at most n parts of near-equal cost: {"keys": [[role, seed]]}."""
    keys = [list(k) for k in paper.study_keys(st.scale, st.seed, st.seeds)]
    return [{"keys": p} for p in pool.balanced(keys, n, lambda k: COST.get(k[0], 1.0))]


def iter_part(st: state.Paper, part: dict):
    """paper.iter_trained for the part's runs; its last point's trained runs as [[role, seed, params]]."""
    for p in paper.iter_trained(st.scale, st.steps, st.seed, st.seeds, st.lr, keys=part["keys"]):
        if "final" in p:
            p = {**p, "final": [[role, s, params] for (role, s), params in p.pop("final").items()],
                 "raw_norms": p.pop("norms")}
        yield p


def merge(st: state.Paper, streams: list[list[dict]]) -> dict:
    """The study so far as one Run streams it: the latest path norms, then, every part done, its result."""
    last = [s[-1] for s in streams if s]
    if len(last) == len(streams) and all("final" in p for p in last):
        final = {(role, s): params for p in last for role, s, params in p["final"]}
        raw = next(p["raw_norms"] for p in last if p["raw_norms"] is not None)
        return paper.study_result(final, raw, st.scale, st.seed, st.seeds)
    norms = [p["norms"] for s in streams for p in s if "norms" in p]
    return {"norms": norms[-1]} if norms else {}
