"""Every experiment's numbers beside the page's, each row with a stable id and a verdict whose rule and
tolerance are stated in the row.

The page's numbers and the verdict rules live in `quoted`; this module runs the experiments."""
from __future__ import annotations

import json

from . import data, gradcheck, lens, measure, model, owntext, paper, pathdrop, recipes, repeat, savings, sweep, tasks
from . import state
from .precision import carry
from .quoted import PAGE, PAGE_SEEDS_TASKS, SAID, explained, judge, row, same_side_of_one, share_id, sign

S_OWNTEXT = state.Owntext()  # the own-text section's defaults
SEEDS = range(5)  # the page's five seeds: the rank table at init and the tasks table average these, as the page does
TASK_SLUG = {"ALIGNED": "aligned", "MISALIGNED": "misaligned"}


def judged(quantity: str, qid: str, per_seed, noise=None) -> dict:
    """A row judged by quoted.judge from our per-seed values (ours = their mean), the sd from noise (the build's
    spread of qid, measure.spread); a trained miss says why."""
    j = judge(qid, per_seed, noise)
    return {**row(quantity, j["ours"], j["page"], explained(j), qid, j["tol"], j["page_is"]),
            "distance": j["distance"]}


def gradcheck_table(seeds=range(3)) -> list[dict]:
    """Worst relative error over every entry of every parameter, per config, over seeds."""
    rows = []
    for tied in (True, False):
        for res in (0.0, 1.0):
            worst = 0.0
            for s in seeds:
                cfg = model.Config(tied=tied, res=res, seed=s)
                inputs, targets = pathdrop.batch(seed=s)  # 8 distinct tokens among 32: repeats
                worst = max(worst, *gradcheck.check(model.init_params(cfg), cfg, inputs, targets)["max"].values())
            name = "tied" if tied else "untied"
            rows.append(row(f"{name}, res = {res:g}: worst rel. error over {len(seeds)} seeds", worst,
                            "every entry checked", "agrees (worst < 1e-4)" if worst < 1e-4 else "differs (worst >= 1e-4)",
                            f"gradcheck.{name}.res{res:g}", 1e-4))
    return rows


def pathdrop_rows() -> list[dict]:
    """The wrong-rows table (exact counts), the chance a k-entry check misses the bug, the += trap."""
    rows, slug = [], pathdrop.SLUG
    table = pathdrop.wrong_rows_table()
    for r in table:
        for kind in ("wrong_rows", "right_rows"):
            rows.append(judged(f"{r['setting']}: {kind.replace('_', ' ')}", f"pathdrop.{kind}.{slug[r['setting']]}",
                               [r[kind]]))
    wrong = table[1]
    for k in (5, 20, 100):
        p = pathdrop.miss_probability(k, wrong["wrong_entries"], wrong["entries"])
        sim = pathdrop.miss_simulated(k, wrong["wrong_entries"], wrong["entries"])
        rows.append(row(f"P(k={k} random entries of {wrong['entries']} miss the {wrong['wrong_entries']} wrong)"
                        f" exact | simulated {sim:.4f}", p, SAID["random_check"], "n/a (no number)",
                        f"pathdrop.miss.k{k}"))
    trap = pathdrop.fancy_index_trap()
    rows.append(row(f"dE[t] += dx: wrong rows (tokens repeated in batch: {trap['repeated_tokens']})",
                    trap["wrong_rows"], "(title's hint)", "n/a (no number)", "pathdrop.trap.wrong_rows"))
    return rows


def spread_rows(spread: dict, labels: dict[str, str]) -> list[dict]:
    """Rows {id: label} judged from the build's spread itself: our mean over its seeds, its sd."""
    return [judged(label, qid, spread[qid], spread[qid]) for qid, label in labels.items()]


def pathdrop_table() -> list[dict]:
    """pathdrop_rows, then the final loss of the correct and the output-path-only race over the build's seeds."""
    r = recipes.PATHDROP
    entropy = data_entropy(r, aligned=False)
    return pathdrop_rows() + spread_rows(measure.spread("pathdrop"), {
        "pathdrop.loss.correct": f"both paths: loss after {r.steps} steps (task entropy {entropy:.3f})",
        "pathdrop.loss.output_only": f"output path only: loss after {r.steps} steps",
        "pathdrop.loss.gap": "output path only minus both paths: the broken model's extra loss"})


def data_entropy(r: recipes.Recipe, aligned: bool) -> float:
    """The entropy (nats) of recipe r's task."""
    return data.entropy(measure.task(r.rank, r.beta, aligned))


def repeat_table(seeds=SEEDS) -> list[dict]:
    """Mean rank of the just-read token at init (over seeds, as the page's table) and after the race (over the
    build's seeds), tied vs untied; the sd of every noisy row from the build's spread."""
    ids = {"tied, res = 1": "tied_res1", "untied": "untied", "chance": "chance", "tied, res = 0 (the control)": "tied_res0"}
    init = measure.spread("repeat.init")
    rows = [judged(f"at init, {r['model']}", f"repeat.init.{ids[r['model']]}", r["per_seed"],
                   init.get(f"repeat.init.{ids[r['model']]}")) for r in repeat.init_table(seeds=seeds)]
    return rows + spread_rows(measure.spread("repeat"), {
        f"repeat.trained.{m}": f"after {recipes.REPEAT.steps} steps, {m}" for m in ("tied", "untied")})


def tasks_table(seeds=SEEDS) -> list[dict]:
    """Excess loss tied and untied on both tasks over seeds (the sd from the build's spread), ratio, per-seed
    range, parameter saving."""
    m, n = measure.spread("tasks"), len(seeds)
    rows = []
    for t, slug in TASK_SLUG.items():
        entropy = data_entropy(recipes.TASKS, tasks.TASKS[t])
        for key in ("tied", "untied", "ratio"):
            qid = f"tasks.{slug}.{key}"
            rows.append(judged(f"{t} (entropy {entropy:.3f}): {key if key == 'ratio' else key + ' excess'}",
                               qid, m[qid][:n], m[qid]))
        lo, hi = (f(m[f"tasks.{slug}.ratio"][:n]) for f in (min, max))
        page_lo, page_hi = PAGE["ratio_range"][t]
        rows.append(row(f"{t}: per-seed ratio range", f"{lo:.2f}-{hi:.2f}", f"{page_lo:.2f}-{page_hi:.2f}",
                        same_side_of_one(lo, hi, page_lo, page_hi), f"tasks.{slug}.ratio_range",
                        page_is=f"range of {PAGE_SEEDS_TASKS} runs"))
    counts = tasks.parameter_counts()
    rows.append(judged("fewer parameters tied: V*d / untied total", "tasks.saving", [counts["saving"]]))
    rows.append(judged("  (the same V*d / tied total)", "tasks.saving_of_tied", [counts["saving_of_tied"]]))
    return rows


OWNTEXT_ROWS = {"heldout.tied": "held-out bits/char, tied", "heldout.untied": "held-out bits/char, untied",  # the own-text rows
                "unigram": "unigram entropy H(c), bits/char", "bigram": "bigram entropy H(next | current), bits/char",
                "repeat_rate": "share of positions where next = current", "rank.tied": "rank of the just-read char, tied",
                "rank.untied": "rank of the just-read char, untied", "rank.chance": "rank by chance, (V + 1) / 2",
                "share": "share of parameters tying saves"}


def owntext_table() -> list[dict]:
    """Each shipped text's own-text run at the section's defaults: held-out bits per character tied and untied
    beside the text's unigram and bigram entropies, the repeat rate, the ranks and the share saved. The page
    trains no character model, so nothing here is judged."""
    st, rows, none = S_OWNTEXT, [], "n/a (the page trains no character model)"
    for name, sample in owntext.SAMPLES.items():
        r = owntext.run(owntext.shipped(name), st.cap, owntext.Setup.of(st))
        m = r["models"]
        values = {"heldout.tied": m["tied"]["curve"][-1]["heldout"], "heldout.untied": m["untied"]["curve"][-1]["heldout"],
                  "unigram": r["unigram"], "bigram": r["bigram"], "repeat_rate": r["repeat_rate"],
                  "rank.tied": m["tied"]["rank_after"], "rank.untied": m["untied"]["rank_after"],
                  "rank.chance": r["chance"], "share": r["share"]}
        rows += [row(f"{name} ({sample.file}, V = {r['V']}): {OWNTEXT_ROWS[k]}", v, "", none, f"owntext.{name}.{k}")
                 for k, v in values.items()]
    return rows


def sweep_table() -> list[dict]:
    """Grid cells with both init scales within 10% of 1, coarse and fine; the effect of doubling sigma (over the
    build's seeds of the init draw)."""
    labels = {f"sweep.{kind}_hits": f"{kind} grid {len(sweep.GRIDS[kind]['sigma'])}x{len(sweep.GRIDS[kind]['in_scale'])}: "
              "settings with both scales in [0.9, 1.1]" for kind in ("coarse", "fine")}
    labels.update({f"sweep.doubling.{k}": f"{name} x when sigma doubles"
                   for k, name in (("resid", "residual-stream scale"), ("logit", "logit scale"))})
    return spread_rows(measure.spread("sweep"), labels)


def savings_table() -> list[dict]:
    """Share of parameters tying removes, for the three presets (fractions)."""
    rows = []
    for name, cfg in savings.PRESETS.items():
        s = savings.tying_saving(**cfg)
        rows.append(judged(f"{name} (V={cfg['V']}, d={cfg['d']}, {cfg['n_layers']} layers): saved {s['saved']:,} "
                           f"of {s['untied']:,}", share_id(name), [s["share"]]))
    return rows


def paper_table() -> list[dict]:
    """The paper's claims at toy scale, each judged by its direction (the paper gives no numbers)."""
    norms = paper.grad_norms()
    rows = [row("output/input gradient norm into tied E, mean over first 100 steps", norms["mean_ratio"],
                "output dominates early (> 1)", sign(norms["mean_ratio"] > 1), "paper.grad_ratio")]
    for r in paper.alignment():
        bias = r["cka_with_U"] - r["cka_with_E"]
        rows.append(row(f"input_grad_scale {r['input_grad_scale']:g}: CKA(tied E, untied U) - CKA(tied E, untied E) "
                        f"= {r['cka_with_U']:.3f} - {r['cka_with_E']:.3f}", bias,
                        "> 0, shrinking as the scale grows", sign(bias > 0) if r["input_grad_scale"] == 1 else
                        sign(bias < rows[-1]["ours"]), f"paper.cka_bias.scale{r['input_grad_scale']:g}"))
    return rows + lens_rows()


def lens_rows() -> list[dict]:
    """The tuned lens (and the logit lens beside it) on the deep toy, tied vs untied: early blocks' contribution."""
    t = lens.study()
    rows = []
    for key, name in lens.MEASURES.items():
        diff = t["tied"][key] - t["untied"][key]
        rows.append(row(f"{name}, blocks 1..{lens.EARLY}: tied - untied = {t['tied'][key]:.3f} - {t['untied'][key]:.3f}"
                        f" ({t['seeds']} seeds, paired SE {t['se'][key]:.3f})", diff,
                        "early blocks contribute less when tied (< 0)", t["verdict"][key], f"paper.lens.{key}",
                        2 * t["se"][key]))
    return rows


SECTIONS = {"gradcheck": gradcheck_table, "pathdrop": pathdrop_table, "repeat": repeat_table, "tasks": tasks_table,
            "owntext": owntext_table, "sweep": sweep_table, "savings": savings_table, "paper": paper_table}


def build() -> dict:
    """Every table: {section: [rows]}; deterministic (fixed seeds)."""
    return {name: make() for name, make in SECTIONS.items()}


def cell(value) -> str:
    """A value as table text: floats to 4 significant figures, None blank, the rest as str."""
    return f"{value:.4g}" if isinstance(value, float) else "" if value is None else str(value)


def to_text(report: dict) -> str:
    """Plain-text tables: id | quantity | ours | page says | the page's is | tolerance | verdict, one block per
    section."""
    lines = []
    for name, rows in report.items():
        cells = [("id", "quantity", "ours", "page says", "page is", "tol", "verdict")] + [
            (r["id"], r["quantity"], cell(r["ours"]), cell(r["page"]), r["page_is"], cell(r["tol"]), r["verdict"])
            for r in rows]
        widths = [max(len(c[i]) for c in cells) for i in range(7)]
        lines += [f"== {name} =="] + [" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells] + [""]
    return "\n".join(lines)


def to_json(report: dict) -> str:
    """The report as JSON text, its numbers plain and carried (precision.carry), so a machine's last bits stay out."""
    return json.dumps(carry(report), indent=1, default=str)
