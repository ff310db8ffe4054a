"""The page's front, made at build from what the sections themselves show: "What this page finds", every
section's claim slot (views' CLAIM) as its prerender drew it, one line per section. No number is typed or
recomputed here: each line is the claim's own HTML (a table's rows as phrases), its test hooks renamed
`finding-<hook>` so that a test can hold the list to the section, hook by hook."""
from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from typing import Iterable

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
    return ('<section class="wt-findings" aria-labelledby="wt-findings-title" data-testid="findings">'
            '<h2 id="wt-findings-title">What this page finds</h2>'
            '<p class="wt-findings-note">Each section\'s claim at its first settings: our number, computed at build '
            "by this page's code, beside the post's or the paper's, and the verdict (open it for the rule).</p>"
            f'<ol class="wt-findings-list">{"".join(lines)}</ol></section>')

