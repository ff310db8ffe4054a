"""A section's controls as native HTML inputs, prerendered at build so they work from the first frame
(site/player.js answers them from the playback tables until the live lab replaces them). No Panel.

Built from the one spec in `state`: label, one-line help, bounds. A key on the playback grid gets a
slider over the grid's positions (a log grid for a log control) plus a number box for any exact value;
a key off the grid gets the number box, checkbox or choice alone.
"""
from __future__ import annotations

import html
import json

from . import state as S

# player.js says the same while the live lab is loading (and other things when it is not)
STATUS = ("Computed at build by this page's own code (the weighttying package, in CPython) for every "
          "step of these controls; the live lab takes over when Python has loaded in your browser.")


def _attr(x: object) -> str:
    return html.escape(str(x), quote=True)


def _label(c: S.Control) -> str:
    return f"{c.name} (log scale)" if c.log else c.name


def _number(c: S.Control, cid: str, values: list | None, described: str) -> str:
    """A slider over the grid's positions (when the key has a grid) and a number box for exact values."""
    value = getattr(getattr(S.State(), c.section), c.name)
    out = ""
    if values and len(values) > 1:
        urls = [S.fmt(x) for x in values]
        out += (f'<input type="range" id="{cid}" min="0" max="{len(values) - 1}" step="1" '
                f'value="{values.index(value)}" data-grid="{_attr(json.dumps(urls, separators=(",", ":")))}" '
                f'aria-valuetext="{_attr(S.fmt(value))}" {described}>')
    step = "1" if c.type is int else "any"
    box_id = f"{cid}-box" if out else cid
    name = f' aria-label="{_attr(c.name)}, exact value"' if out else f" {described}"
    out += (f'<input type="number" id="{box_id}" class="wt-pbox" min="{_attr(S.fmt(c.lo))}" '
            f'max="{_attr(S.fmt(c.hi))}" step="{step}" value="{_attr(S.fmt(value))}"{name}>')
    return out


def help_html(c: S.Control, hid: str = "") -> str:
    """Control c's help line (id hid, if given); on a narrow screen it folds behind a "?" beside the control
    (site/live.css for the live lab, site/style.css for these), so the help of every control does not double
    a section's height on a phone."""
    pid = f' id="{_attr(hid)}"' if hid else ""
    return (f'<details class="wt-help-box"><summary class="wt-help-q" aria-label="What {_attr(c.name)} does">'
            f'<span aria-hidden="true">?</span></summary><p class="wt-help"{pid}>{_attr(c.help)}</p></details>')


def control(c: S.Control, values: list | None) -> str:
    """One control: label, input(s), help; data-key names its field, the classes match the live lab's."""
    cid, value = f"wt-p-{c.section}-{c.name}", getattr(getattr(S.State(), c.section), c.name)
    described = f'aria-describedby="{cid}-help"'
    label = f'<label for="{cid}">{_attr(_label(c))}</label>'
    if c.type is bool:
        inputs = f'<input type="checkbox" id="{cid}"{" checked" if value else ""} {described}> {label}'
        label = ""
    elif c.choices:
        options = "".join(f'<option value="{_attr(x)}"{" selected" if x == value else ""}>{_attr(x or "(none)")}'
                          "</option>" for x in c.choices)
        inputs = f'<select id="{cid}" {described}>{options}</select>'
    else:
        inputs = _number(c, cid, values, described)
    return (f'<div class="wt-pctl wt-ctl-{c.section}-{c.name}" data-key="{c.name}" data-type="{c.kind}" '
            f'data-default="{_attr(S.fmt(value))}"{" data-log" if c.log else ""}>{label}'
            f'<div class="wt-pctl-inputs">{inputs}</div>{help_html(c, f"{cid}-help")}</div>')


def html_of(sid: str, grid: dict[str, list]) -> str:
    """Every control of section sid in spec order, and the status line that says where answers come from.
    (The rules site/player.js reads them by, bounds and FILLS included, are the page config's state.rules.)"""
    ctls = "".join(control(c, grid.get(c.name)) for c in S.CONTROLS if c.section == sid)
    return (f'<div class="wt-player" data-section="{sid}" role="group" aria-label="Controls">'
            f'<div class="wt-pctls">{ctls}</div>'
            f'<p class="wt-player-status" role="status" data-testid="player-status">{_attr(STATUS)}</p></div>')
