"""Tables whose cells may carry test hooks and verdict chips, their export form, and short notes."""
from __future__ import annotations

from typing import Iterable, Sequence

from ...markup import escape
from ... import render
from .hooks import Num, hook, plain_number
from .verdicts import Verdict, chip, chip_html, verdict_chip



def cell(v: object) -> str:
    """HTML of one cell: a Num or Verdict with its hooks, a tuple of cells joined by an en dash, else escaped text."""
    if isinstance(v, Num):
        return hook(v.testid, v.x, tag="span")
    if isinstance(v, Verdict):
        return verdict_chip(v)
    if isinstance(v, tuple):
        return "–".join(cell(x) for x in v)
    return escape(render.num(v))


def plain(v: object) -> object:
    """The export form of a cell: Nums become their number, tuples of Nums 'lo-hi' text."""
    if isinstance(v, Num):
        return plain_number(v.x)
    if isinstance(v, Verdict):
        return v.text
    if isinstance(v, tuple):
        return "-".join(render.num(plain(x)) for x in v)
    return v


def scroll(inner: str, label: str) -> str:
    """A wide table in a box that scrolls sideways on a narrow screen instead of widening the page; the box
    is a named region in the tab order, so a keyboard reader can reach it and scroll it with the arrows."""
    return (f'<div class="wt-scroll" role="region" tabindex="0" aria-label="{escape(label)}" '
            f'style="overflow-x: auto">{inner}</div>')


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], caption: str, testid: str) -> str:
    """render.table's layout with cells that may carry test hooks (Num), in a sideways-scrolling box."""
    head = "".join(f'<th scope="col">{escape(c)}</th>' for c in columns)
    verdict = [c == "verdict" for c in columns]
    body = "".join("<tr>" + "".join(f'<td data-label="{escape(c)}">'
                                    f"{chip_html(*chip(v)) if is_v and isinstance(v, str) else cell(v)}</td>"
                                    for v, is_v, c in zip(r, verdict, columns)) + "</tr>" for r in rows)
    return scroll(f'<table class="wt-table" data-testid="{escape(testid)}">'
                  f"<caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
                  caption)


def note(text: str, kind: str = "wt-help", testid: str = "") -> str:
    """A short escaped paragraph (help text, a status, a failure)."""
    tid = f' data-testid="{escape(testid)}"' if testid else ""
    return f'<p class="{escape(kind)}"{tid}>{escape(text)}</p>'


def pending(what: str, testid: str = "") -> str:
    """What a slot shows while its run has not produced a result for the current settings."""
    return note(f"{what}: not computed for these settings yet.", testid=testid)
