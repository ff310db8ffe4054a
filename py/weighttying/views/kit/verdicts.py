"""A number of ours judged against the page's (quoted.judge): the verdict cell, its chip and the rule behind it,
and the claim that opens a section."""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from ...markup import escape
from ... import data, quoted, recipes
from ... import render
from ... import state
from ...precision import carried
from .hooks import Num, hook, plain_number



TOY = state.TOY  # the page's toy (model.Config()): every "of 64" on the page reads V from here


@dataclass(frozen=True)
class Verdict:
    """A verdict cell: quoted.judge's text (the report's, which the exports keep), hooked as verdict-<id> with
    data-value = repr(its tolerance) (nan: not judged). On the page it is a chip (`chip`): the word and, for
    a number that differs, by how much; the rule behind one click (`rule`, the reader's wording)."""
    qid: str
    text: str
    tol: float
    suffix: str = ""  # "-seeds" on the build's seeds' row, so it never shares a hook with this run's row
    gap: float = math.nan  # |ours - page| of a judged number
    rule: str = ""  # what the chip opens to; "" = the text's parenthesis


def judged(qid: str, per_seed, noise=None) -> Verdict:
    """quoted.judge(qid, per_seed, noise) as a table cell: the report's rule, tolerance and wording. One run of
    a noisy quantity without the build's spread (noise) is not judged: its own spread is unmeasured, not 0."""
    if len(per_seed) < 2 and quoted.QUOTES[qid][2] and noise is None:
        return Verdict(qid, "n/a (one run: no measured spread to judge it by; two seeds or more judge it)", math.nan)
    j = quoted.judge(qid, per_seed, noise)
    return Verdict(qid, quoted.explained(j), j["tol"], gap=abs(j["ours"] - j["page"]), rule=reader_rule(j, noise))


def reader_rule(j: dict, noise=None) -> str:
    """quoted.judge's rule as a reader reads it: the distance, the tolerance and where the tolerance comes from
    (never a command or a file: those are the report's)."""
    _, decimals, page_seeds = quoted.QUOTES[j["id"]]
    gap, tol, n = abs(j["ours"] - j["page"]), j["tol"], j["seeds"]
    if page_seeds:
        ours = (f"one run of ours, with the spread of the build's {len(noise)} seeds" if n < 2 and noise is not None
                else f"our {n} seeds")
        why = (f"two standard errors of the difference ({ours}, against the page's "
               f"{page_seeds} {'run' if page_seeds == 1 else 'seeds'}) plus half a unit of the page's last digit")
    else:
        why = "an exact quantity: only the page's rounding (half a unit of its last digit)"
    out = (f"|ours − page| = {gap:.3g}, {'within' if gap <= tol else 'beyond'} the tolerance {tol:.3g}: {why}.")
    if j["id"] in quoted.TRAINED and j["distance"] > 1:
        out += (" The training recipe (task, learning rate, batch) is the one, of those searched for this "
                "experiment, that comes closest to the page's numbers for it; this one it does not reach.")
    return out


def chip(text: str, gap: float = math.nan) -> tuple[str, str]:
    """(word, detail) of a verdict text: 'agrees', 'differs by 0.49', 'not resolved', 'n/a'; the detail is
    what the text says in its parenthesis (and after it)."""
    word, _, rest = text.partition(" (")
    if word == "differs" and math.isfinite(gap):
        word = f"differs by {render.num(gap, 2)}"
    depth = 0
    for i, ch in enumerate(rest):  # drop the parenthesis that closes the one the word opened
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return word, (rest[:i] + rest[i + 1:]).strip()
    return word, rest


def chip_html(word: str, detail: str, hook_attrs: str = "") -> str:
    """A verdict chip: the word on the page, the rule one click, tap or keyboard focus away (a <details>)."""
    kind = re.sub(r"[^a-z]", "", (word.split() or ["none"])[0]) or "none"  # "n/a:" is na, the class style.css mutes
    inner = f'<span class="wt-chip-word"{hook_attrs}>{escape(word)}</span>'
    if not detail:
        return f'<span class="wt-chip wt-{escape(kind)}">{inner}</span>'
    return (f'<details class="wt-chip wt-{escape(kind)}"><summary>{inner}</summary>'
            f'<span class="wt-rule">{escape(detail)}</span></details>')


def verdict_chip(v: Verdict, prefix: str = "verdict-") -> str:
    """A Verdict as its chip, hooked <prefix><id> with data-value = repr(its tolerance) and data-verdict = its word."""
    word, detail = chip(v.text, v.gap)
    attrs = (f' data-testid="{prefix}{escape(v.qid)}{v.suffix}" data-value="{escape(repr(carried(plain_number(v.tol))))}"'
             f' data-verdict="{escape((word.split() or ["none"])[0])}"')
    return chip_html(word, v.rule or detail, attrs)


def at_defaults(st, fields: Iterable[str]) -> bool:
    """Whether st has its default value on every one of fields (the page's recipe, for a judged run)."""
    default = type(st)()
    return all(getattr(st, f) == getattr(default, f) for f in fields)


def run_verdict(qid: str, value: float, noise: dict, comparable: bool, why: str) -> Verdict | str:
    """One live run of qid judged like the report, its spread from the build's seeds (noise {id: per-seed
    values}); 'n/a (why)' when the run is not the one the page describes."""
    return judged(qid, [value], noise.get(qid)) if comparable else f"n/a ({why})"


def seeds_row(label: str, qid: str, noise: dict, testid: str) -> list[object]:
    """[label, mean, page, verdict] of the build's seeds of qid: the report's row, as the page shows it."""
    return [f"{label}, mean of the build's {len(noise[qid])} seeds", Num(testid, quoted.mean_sd(noise[qid])[0]),
            quoted.QUOTES[qid][0], dataclasses.replace(judged(qid, noise[qid], noise[qid]), suffix="-seeds")]


def recipe_text(r: recipes.Recipe) -> str:
    """A race's calibrated choices in words, for its table's caption: the task, its entropy and the batch."""
    entropy = data.entropy(data.markov_task(TOY.V, aligned=False, rank=r.rank, beta=r.beta))
    return (f"its task: rank {r.rank}, β = {render.num(r.beta)} ({entropy:.2f} nats), batch {r.batch}; "
            f"chosen by our search, since the page does not say")


def search_html(experiment: str, st, fields: Iterable[str]) -> str:
    """How many recipes the calibration search tried for an experiment and how many reproduced every one of the
    post's numbers for it at once (recipes.searched, hooked <experiment>-search-*), at the recipe in use only (st
    default on fields); nothing off it."""
    if not at_defaults(st, fields):
        return ""
    n = {k: hook(f"{experiment}-search-{k.replace('_', '-')}", v, tag="span")
         for k, v in recipes.searched(experiment).items()}
    return (f'<p class="wt-help" data-testid="{experiment}-search">The post gives neither this task nor its '
            f'training recipe; a search chose them. Of the {n["searched"]} recipes it tried, {n["all_within"]} '
            f'reproduced all {n["total"]} of the post\'s numbers for it within tolerance at once: agreement here '
            "reproduces a chosen recipe, it does not replicate the post independently (counted from the search's "
            "own record, shipped with this page).</p>")


def claim(parts: Sequence[tuple[str, str, object, Verdict | str]], testid: str, who: str = "the page") -> str:
    """A section's claim, the first thing in its block: per part (what, ours, the page's number, verdict), one
    phrase and the verdict's chip (hooked claim-<id>: the tables below keep the verdict-<id> hooks)."""
    items = "".join(
        f'<span class="wt-claim-item">{escape(what)}: ours <strong>{escape(ours)}</strong>, {who} '
        f'{escape(render.num(page))} {verdict_chip(v, "claim-") if isinstance(v, Verdict) else chip_html(*chip(v))}'
        "</span>" for what, ours, page, v in parts)
    return f'<div class="wt-claim" data-testid="{escape(testid)}">{items}</div>'  # a <p> cannot hold a <details>
