"""Every experiment's numbers beside the page's, with a verdict whose rule is stated in the row.

The page's numbers and the verdict rules live in `quoted`; this module runs the experiments."""
from __future__ import annotations

import json

import numpy as np

from . import gradcheck, model, paper, pathdrop, repeat, savings, sweep, tasks
from .quoted import (EXCESS_TOL, PAGE, RANK_TOL, RATIO_TOL, SAVING_TOL, row, same_side_of_one, sign,
                     within)


def gradcheck_table(seeds=range(3)) -> list[dict]:
    """Worst relative error over every entry of every parameter, per config, over kink-safe seeds."""
    rows = []
    for tied in (True, False):
        for res in (0.0, 1.0):
            safe, worst = 0, 0.0
            for s in seeds:
                cfg = model.Config(tied=tied, res=res, seed=s)
                inputs, targets = pathdrop.batch(seed=s)  # 8 distinct tokens among 32: repeats
                result = gradcheck.check(model.init_params(cfg), cfg, inputs, targets)
                if result["kink_safe"]:
                    safe, worst = safe + 1, max(worst, max(result["max"].values()))
            verdict = "agrees (worst < 1e-4)" if safe and worst < 1e-4 else "differs (worst >= 1e-4)"
            rows.append(row(f"{'tied' if tied else 'untied'}, res = {res:g}: worst rel. error "
                            f"({safe}/{len(seeds)} seeds kink-safe)", worst, "every entry checked", verdict))
    return rows


def pathdrop_table() -> list[dict]:
    """The page's wrong-rows table, the += trap, the miss chance of a k-entry check, the loss curves."""
    rows = []
    for r in pathdrop.wrong_rows_table():
        s = r["setting"]
        rows.append(row(f"{s}: wrong rows", r["wrong_rows"], PAGE["wrong_rows"][s], within(r["wrong_rows"], PAGE["wrong_rows"][s], 0)))
        rows.append(row(f"{s}: rows exactly right", r["right_rows"], PAGE["right_rows"][s],
                        within(r["right_rows"], PAGE["right_rows"][s], 0)))
    wrong = pathdrop.wrong_rows_table()[1]
    for k in (5, 20, 100):
        p = pathdrop.miss_probability(k, wrong["wrong_entries"], wrong["entries"])
        sim = pathdrop.miss_simulated(k, wrong["wrong_entries"], wrong["entries"])
        rows.append(row(f"P(k={k} random entries of {wrong['entries']} miss the {wrong['wrong_entries']} wrong)"
                        f" exact | simulated {sim:.4f}", p, "a random-entry check passes it", "n/a (no number)"))
    trap = pathdrop.fancy_index_trap()
    rows.append(row(f"dE[t] += dx: wrong rows (tokens repeated in batch: {trap['repeated_tokens']})",
                    trap["wrong_rows"], "(title's hint)", "n/a (no number)"))
    curves = pathdrop.training_curves()
    for s, history in curves.items():
        rows.append(row(f"{s}: loss after 600 steps", history[-1]["eval"], PAGE["final_loss"][s],
                        within(history[-1]["eval"], PAGE["final_loss"][s], 0.05)))
    return rows


def repeat_table() -> list[dict]:
    """Mean rank of the just-read token at init (5 seeds) and after 600 steps (tied vs untied)."""
    rows = [row(f"at init, {r['model']} (seeds {r['min']:.1f}-{r['max']:.1f})", r["mean_rank"],
                PAGE["rank_init"][r["model"]], within(r["mean_rank"], PAGE["rank_init"][r["model"]], RANK_TOL))
            for r in repeat.init_table()]
    rows += [row(f"after 600 steps, {r['model']} (seeds {r['min']:.1f}-{r['max']:.1f})", r["mean_rank"],
                 PAGE["rank_trained"][r["model"]], within(r["mean_rank"], PAGE["rank_trained"][r["model"]], RANK_TOL))
             for r in repeat.trained_table()]
    return rows


def tasks_table() -> list[dict]:
    """Excess loss tied and untied on both tasks (5 seeds), ratio, per-seed range, parameter saving."""
    rows = []
    for r in tasks.table():
        t, (page_tied, page_untied) = r["task"], PAGE["excess"][r["task"]]
        rows.append(row(f"{t} (entropy {r['entropy']:.3f}): tied excess", r["tied"], page_tied, within(r["tied"], page_tied, EXCESS_TOL)))
        rows.append(row(f"{t}: untied excess", r["untied"], page_untied, within(r["untied"], page_untied, EXCESS_TOL)))
        rows.append(row(f"{t}: ratio tied/untied", r["ratio"], PAGE["ratio"][t], within(r["ratio"], PAGE["ratio"][t], RATIO_TOL)))
        page_lo, page_hi = PAGE["ratio_range"][t]
        rows.append(row(f"{t}: per-seed ratio range", f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}",
                        f"{page_lo:.2f}-{page_hi:.2f}", same_side_of_one(r["ratio_min"], r["ratio_max"], page_lo, page_hi)))
    rows.append(row("fewer parameters tied: V*d / untied total", r["saving"], PAGE["toy_saving"],
                    within(r["saving"], PAGE["toy_saving"], SAVING_TOL)))
    rows.append(row("  (the same V*d / tied total)", r["saving_of_tied"], PAGE["toy_saving"],
                    within(r["saving_of_tied"], PAGE["toy_saving"], SAVING_TOL)))
    return rows


def sweep_table() -> list[dict]:
    """Grid cells with both init scales within 10% of 1, coarse and fine; the effect of doubling sigma."""
    rows = []
    for kind in ("coarse", "fine"):
        g = sweep.sweep_grid(kind)
        claim = "agrees" if (g["hits"] > 0) == (PAGE["hits"][kind] > 0) else "differs"
        rows.append(row(f"{kind} grid {len(g['sigmas'])}x{len(g['in_scales'])}: settings with both scales in "
                        f"[0.9, 1.1]", g["hits"], PAGE["hits"][kind], f"{claim} (both zero or both nonzero)"))
    doubled = sweep.doubling()
    for k, name in (("resid", "residual-stream scale"), ("logit", "logit scale")):
        rows.append(row(f"{name} x when sigma doubles", doubled[k], PAGE["doubling"][k],
                        within(doubled[k], PAGE["doubling"][k], 0.05)))
    return rows


def savings_table() -> list[dict]:
    """Share of parameters tying removes, for the three presets."""
    rows = []
    for name, cfg in savings.PRESETS.items():
        s = savings.tying_saving(**cfg)
        rows.append(row(f"{name} (V={cfg['V']}, d={cfg['d']}, {cfg['n_layers']} layers): saved {s['saved']:,} "
                        f"of {s['untied']:,}", s["share"], PAGE["share"][name], within(s["share"], PAGE["share"][name], 0.0005)))
    return rows


def paper_table() -> list[dict]:
    """The paper's four claims at toy scale, each judged by its direction."""
    norms = paper.grad_norms()
    rows = [row("output/input gradient norm into tied E, mean over first 100 steps", norms["mean_ratio"],
                "output dominates early (> 1)", sign(norms["mean_ratio"] > 1))]
    for r in paper.alignment():
        bias = r["cka_with_U"] - r["cka_with_E"]
        rows.append(row(f"input_grad_scale {r['input_grad_scale']:g}: CKA(tied E, untied U) - CKA(tied E, untied E) "
                        f"= {r['cka_with_U']:.3f} - {r['cka_with_E']:.3f}", bias,
                        "> 0, shrinking as the scale grows", sign(bias > 0) if r["input_grad_scale"] == 1 else
                        sign(bias < rows[-1]["ours"])))
    tied, untied = paper.lens(True), paper.lens(False)
    for k, name in (("block1_loss_drop", "share of the loss drop made by block 1 (logit lens)"),
                    ("block1_norm_share", "block 1 output norm / final residual norm")):
        rows.append(row(f"two blocks, {name}: tied - untied = {tied[k]:.3f} - {untied[k]:.3f}", tied[k] - untied[k],
                        "early block contributes less when tied (< 0)", sign(tied[k] < untied[k])))
    return rows


SECTIONS = {"gradcheck": gradcheck_table, "pathdrop": pathdrop_table, "repeat": repeat_table, "tasks": tasks_table,
            "sweep": sweep_table, "savings": savings_table, "paper": paper_table}


def build() -> dict:
    """Every table: {section: [rows]}; deterministic (fixed seeds)."""
    return {name: make() for name, make in SECTIONS.items()}


def cell(value) -> str:
    """A value as table text: floats to 4 significant figures, the rest as str."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def to_text(report: dict) -> str:
    """Plain-text tables: quantity | ours | page says | verdict, one block per section."""
    lines = []
    for name, rows in report.items():
        cells = [("quantity", "ours", "page says", "verdict")] + [
            (r["quantity"], cell(r["ours"]), cell(r["page"]), r["verdict"]) for r in rows]
        widths = [max(len(c[i]) for c in cells) for i in range(4)]
        lines += [f"== {name} =="] + [" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells] + [""]
    return "\n".join(lines)


def to_json(report: dict) -> str:
    """The report as JSON text (numpy scalars as plain numbers)."""
    return json.dumps(report, indent=1, default=lambda v: v.item() if isinstance(v, np.generic) else str(v))
