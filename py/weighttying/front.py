"""The page's front, made at build from what the sections themselves show: "What this page finds", every
section's claim slot (views' CLAIM) as its prerender drew it, one line per section. No number is typed or
recomputed here: each line is the claim's own HTML (a table's rows as phrases), its test hooks renamed
`finding-<hook>` so that a test can hold the list to the section, hook by hook."""
from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from typing import Iterable

from . import render

HOOK = "finding-"  # the prefix of a finding's copy of a section's data-testid
SAYS = " says"  # a claim table's column of the quoted number: "page says", "paper says"


class FrontError(ValueError):
    """A section's claim slot that the front cannot read: the message names the section."""


def slot_html(section_html: str, name: str) -> str:
    """The <div class="wt-slot" data-slot=NAME> element of a section's prerendered HTML (views.kit.slot), whole."""
    start = section_html.find(f'<div class="wt-slot" data-slot="{html.escape(name)}">')
    if start < 0:
        return ""
    depth = 0
    for tag in re.finditer(r"<div\b|</div>", section_html[start:]):
        depth += 1 if tag.group(0) == "<div" else -1
        if depth == 0:
            return section_html[start:start + tag.end()]
    return ""


def _renamed(el: ET.Element) -> ET.Element:
    """el with every data-testid prefixed by HOOK and no aria-live (the copy is read once, not announced)."""
    for node in el.iter():
        if "data-testid" in node.attrib:
            node.set("data-testid", HOOK + node.get("data-testid"))
        node.attrib.pop("aria-live", None)
        node.attrib.pop("id", None)
    return el


def _text(el: ET.Element | None) -> str:
    return html.escape("".join(el.itertext()).strip()) if el is not None else ""


def _inner(el: ET.Element | None) -> str:
    """el's content as HTML (its text and its children), without el's own tag."""
    if el is None:
        return ""
    return html.escape(el.text or "") + "".join(ET.tostring(child, encoding="unicode", method="html")
                                                for child in el)


def _row_phrases(table: ET.Element) -> list[str]:
    """A claim table's rows as claim phrases (views.kit.claim's wording): "what: ours X, the page Y <chip>"."""
    heads = [_text(th) for th in table.iter("th")]
    quoted = next((h for h in heads if h.endswith(SAYS)), "")
    if not quoted:
        raise FrontError(f"its claim table has no column of what is quoted (headed '… says'): {heads}")
    who = "the " + html.unescape(quoted)[: -len(SAYS)]
    phrases = []
    for row in table.iter("tr"):
        cells = {td.get("data-label"): td for td in row.iter("td")}
        if cells:
            phrases.append(f"{_text(cells.get(heads[0]))}: ours <strong>{_text(cells.get('ours'))}</strong>, "
                           f"{html.escape(who)} {_text(cells.get(quoted))} {_inner(cells.get('verdict'))}")
    return phrases


def phrases(claim_html: str) -> list[str]:
    """A claim slot's claims as HTML phrases, hooks renamed: its claim items (views.kit.claim), else its
    table's rows, else the whole slot (a badge, a sentence)."""
    try:
        root = _renamed(ET.fromstring(claim_html))
    except ET.ParseError as err:
        raise FrontError(f"its claim slot is not well-formed HTML ({err})") from err
    items = [el for el in root.iter() if "wt-claim-item" in el.get("class", "").split()]
    if items:
        return [_inner(el) for el in items]
    table = next(root.iter("table"), None)
    return _row_phrases(table) if table is not None else [_inner(root)]


def findings(sections: Iterable[tuple[str, str, str]]) -> str:
    """The list "What this page finds" of SECTIONS, (id, title, claim slot's HTML or "") in page order: per
    section its title linking to it and its claims as phrases; a section without a claim says so."""
    lines, none = [], '<span class="wt-finding wt-none">Nothing quoted to check: a lab to try.</span>'
    for sid, title, claim in sections:
        try:
            said = phrases(claim) if claim else []
        except FrontError as err:
            raise FrontError(f"section {sid!r}: {err}") from err
        words = "".join(f'<span class="wt-finding" data-from="{i}">{p}</span>' for i, p in enumerate(said))
        lines.append(f'<li data-section="{html.escape(sid)}"><a class="wt-finding-go" href="#{html.escape(sid)}">'
                     f"{html.escape(title)}</a><span class=\"wt-finding-says\">"
                     f"{words or none}"
                     "</span></li>")
    return ('<section class="wt-findings" id="findings" aria-labelledby="wt-findings-title" data-testid="findings">'
            '<h2 id="wt-findings-title">What this page finds</h2>'
            "<p class=\"wt-findings-note\">Ours computed at build by this page's code, at each section's first "
            "settings.</p>"
            f'<ol class="wt-findings-list">{"".join(lines)}</ol></section>')


# ---- the opening figure: tied against untied in one picture ----------------------------------------------------
# A few rows of the vocabulary, as words so that a reader can pick one (the toy's tokens are numbers, V of them).
TOKENS = ("the", "cat", "sat", "on", "a", "mat", "and", "ran")
PICKED = 1  # the token the figure opens on
WIDE, ROW, TOP = 360, 22, 44  # the viewBox's width (text at 12 units stays 11 px on a 344 px phone column); a row
# of E or U and where the first one starts
COLS = {"token": 40, "E": 72, "h": 196, "U": 250}  # the token column's right edge, each matrix's left edge, h's centre
CELL, CELLS, STRIPE = 18, 4, 6  # a matrix's cells (d of them drawn) and the stripe that marks a row's dense gradient


def _row_y(i: float) -> float:
    """The top of row i of E and U in the drawing's units."""
    return TOP + i * ROW


def _matrix(name: str, x: float, stripe_x: float, part: str, read: bool) -> str:
    """A matrix of len(TOKENS) rows at x: its name above, every row a box (READ: the one the way in reads, data-row,
    which front.js lights and a click picks), and a stripe per row that the way out marks (class PART: the drawing
    shows one matrix's stripes at a time)."""
    out = [f'<text class="wt-head" x="{x + CELLS * CELL / 2}" y="{TOP - 8}" text-anchor="middle">{name}</text>']
    for i in range(len(TOKENS)):
        y = _row_y(i)
        row = f' data-row="{i}"' if read else ""
        out.append(f'<rect class="wt-idea-row{" wt-on" if i == PICKED and read else ""}"{row} '
                   f'x="{x}" y="{y}" width="{CELLS * CELL}" height="{ROW}"/>'
                   f'<rect class="wt-idea-stripe {part}" x="{stripe_x}" y="{y + 2}" width="{STRIPE}" height="{ROW - 4}"/>')
    bottom = _row_y(len(TOKENS))
    cells = "".join(f'<line class="wt-grid" x1="{x + c * CELL}" y1="{TOP}" x2="{x + c * CELL}" y2="{bottom}"/>'
                    for c in range(1, CELLS))
    return "".join(out) + cells


def _arrow(x1: float, y1: float, x2: float, y2: float, cls: str, row: int | None = None) -> str:
    """A line with its head at (x2, y2), in CLS's colour; ROW: it belongs to that token (front.js shows the picked)."""
    on = "" if row is None else f' data-row="{row}"'
    picked = " wt-on" if row == PICKED else ""
    return (f'<line class="{cls}{picked}"{on} x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
            f'marker-end="url(#{cls.split()[0]}-head)"/>')


def _idea_svg() -> str:
    """The drawing: tokens, E, h and U; the way in (the picked token's row of E, in the first series' colour) and
    the way out (h to every row of E when tied, of U when not, in the second's); the tied or untied one shows."""
    e_right, u_left, mid_y = COLS["E"] + CELLS * CELL, COLS["U"], _row_y(len(TOKENS) / 2)
    heads = "".join(f'<marker id="{c}-head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" '
                    f'orient="auto-start-reverse"><path class="{c}" d="M0 0 L8 4 L0 8 z"/></marker>'
                    for c in ("wt-idea-in", "wt-idea-out"))
    body = [f"<defs>{heads}</defs>",
            '<text class="wt-idea-tied wt-head" x="0" y="16">Tied: E reads the token and scores every row</text>',
            '<text class="wt-idea-untied wt-head" x="0" y="16">Untied: E reads the token, U scores every row</text>',
            f'<text class="wt-axis" x="{COLS["token"]}" y="{TOP - 8}" text-anchor="end">token</text>',
            f'<text class="wt-idea-in-word" x="{(COLS["token"] + COLS["E"]) / 2 + 2}" y="{TOP - 8}" '
            'text-anchor="middle">in</text>']
    for i, word in enumerate(TOKENS):
        y = _row_y(i) + ROW / 2
        body.append(f'<text class="wt-idea-token{" wt-on" if i == PICKED else ""}" data-row="{i}" x="{COLS["token"]}" '
                    f'y="{y + 4}" text-anchor="end">{word}</text>')
        body.append(_arrow(COLS["token"] + 3, y, COLS["E"] - 1, y, "wt-idea-in", i))
        body.append(_arrow(e_right + STRIPE, y, COLS["h"] - 15, mid_y + 4, "wt-idea-in wt-idea-forward", i))
        body.append(_arrow(COLS["h"] - 14, mid_y - 4, e_right + STRIPE + 2, y, "wt-idea-out wt-idea-tied"))
        body.append(_arrow(COLS["h"] + 14, mid_y, u_left - STRIPE - 2, y, "wt-idea-out wt-idea-untied"))
    body += [_matrix("E", COLS["E"], e_right, "wt-idea-tied", True),
             f'<g class="wt-idea-u">{_matrix("U", COLS["U"], u_left - STRIPE, "wt-idea-untied", False)}</g>',
             f'<circle class="wt-idea-h" cx="{COLS["h"]}" cy="{mid_y}" r="13"/>',
             f'<text x="{COLS["h"]}" y="{mid_y + 4}" text-anchor="middle">h</text>',
             f'<text class="wt-idea-out-word wt-idea-tied" x="{(e_right + COLS["h"]) / 2 + 4}" y="{TOP - 8}" '
             f'text-anchor="middle">out</text>',
             f'<text class="wt-idea-out-word wt-idea-untied" x="{(COLS["h"] + u_left) / 2 - 2}" y="{TOP - 8}" '
             f'text-anchor="middle">out</text>']
    legend_y = _row_y(len(TOKENS)) + 22
    for k, (cls, words) in enumerate((("wt-idea-in", "in: one row of E gets a gradient (sparse)"),
                                      ("wt-idea-out wt-idea-tied", "out: every row of E gets one (dense)"),
                                      ("wt-idea-out wt-idea-untied", "out: every row of U gets one (dense)"))):
        y = legend_y + min(k, 1) * 18
        body.append(f'<rect class="{cls} wt-idea-key" x="0" y="{y - 9}" width="10" height="10"/>'
                    f'<text class="{cls.split()[-1] if k else "wt-idea-in-word"}" x="16" y="{y}">{words}</text>')
    desc = ("E has one row per token (eight drawn). On the way in the model reads the picked token's row of E; on the "
            "way out it scores h against every row of the output matrix. Tied, that matrix is E itself, so E gets a "
            "gradient in the row that was read and a gradient in every row from the scores; untied, the scores go "
            "to a separate matrix U and E gets only the row that was read.")
    return render.diagram("".join(body), "Tied against untied: the way in and the way out of the vocabulary", desc,
                          WIDE, legend_y + 26, ' tabindex="0" data-testid="idea"'
                          f' data-token="{PICKED}" aria-describedby="wt-idea-said"')


def idea() -> str:
    """The opening figure: the drawing, its tied/untied switch and a caption that says what it shows, for the picked
    token and the switch's side (site/front.js keeps the three in step; without it the figure shows tied)."""
    word = f'“<span class="wt-idea-word">{TOKENS[PICKED]}</span>”'
    return ('<figure class="wt-idea-box">' + _idea_svg()
            + '<fieldset class="wt-idea-switch"><legend>The output matrix</legend>'
            '<label><input type="radio" name="wt-idea-tied" value="tied" checked> tied: <var>E</var> again</label>'
            '<label><input type="radio" name="wt-idea-tied" value="untied"> untied: its own <var>U</var></label>'
            '</fieldset><figcaption><span id="wt-idea-said" aria-live="polite">'
            f'<span class="wt-idea-tied">Tied: {word} is read from one row of <var>E</var>; <var>h</var> is scored '
            'against every row of <var>E</var>.</span>'
            f'<span class="wt-idea-untied">Untied: {word} is read from one row of <var>E</var>; <var>h</var> is scored '
            'against every row of <var>U</var>.</span></span> <span class="wt-idea-hint">Tap a token.</span>'
            '<span class="wt-idea-hint">Click a token, or focus the figure and use the arrow keys.</span>'
            '</figcaption></figure>')


def contents(sections: Iterable[tuple[str, str]]) -> str:
    """The page's contents, SECTIONS (id, title) in page order after the findings: one list that is a column beside
    the article at wide widths (site/front.js opens it there and marks the section in view) and a jump menu, closed,
    on a phone (style.css)."""
    items = "".join(f'<li><a href="#{html.escape(sid)}" data-section="{html.escape(sid)}">{html.escape(title)}</a></li>'
                    for sid, title in sections)
    return ('<nav class="wt-toc" aria-label="Contents" data-testid="contents"><details><summary>Contents</summary>'
            f'<ol><li><a href="#findings">What this page finds</a></li>{items}</ol></details></nav>')
