"""A section's controls as native HTML inputs, prerendered at build so they work from the first frame
(site/player.js answers them from the playback tables until the live lab replaces them). No Panel.

Built from the one spec in `state`: label, one-line help, bounds. A key on the playback grid gets a
slider over the grid's positions (a log grid for a log control) plus a number box for any exact value;
a key off the grid gets the number box, checkbox or choice alone.
"""
from __future__ import annotations

import json

from . import state
from .markup import escape

# Every line a section's status line says before Python, the page config's "says" (tools/buildsteps/assemble.py):
# site/player.js picks one and fills its {blanks}, "takes_over" and "later" by whether the live lab loads by itself
# or waits for the reader's go. The prerender says "computed" with the lab loading.
SAYS = {
    "computed": "Computed at build by this page's own code (the weighttying package, in CPython) for every step of "
                "these controls; the live lab takes over {takes_over}.",
    "takes_over": {"loading": "when Python has loaded in your browser",
                   "paused": "once you load it (the button at the top)"},
    "later": {"loading": "when the live lab (Python in your browser) has loaded",
              "paused": "once you load the live lab (the button at the top)"},
    "failed": "The precomputed answers could not be used: {error}. This section answers {later}.",
    "fetching": "Loading the precomputed answers…",
    "held": "Your text is kept in this page: it is read and trained on {later}; nothing shown yet comes from it.",
    "approx": "Approximate: nothing was precomputed for {wanted}, so this shows the nearest answer that was ({near}). "
              "The exact one comes {later}.",
}
STATUS = SAYS["computed"].format(takes_over=SAYS["takes_over"]["loading"])


def _attr(x: object) -> str:
    return escape(str(x), quote=True)


def title(c: state.Control) -> str:
    """Control c's title as the reader reads it, in both layers: its label, and a log slider says it is one."""
    return f"{c.label} (log scale)" if c.log else c.label


def _number(c: state.Control, cid: str, value, values: list | None, described: str) -> str:
    """A slider over the grid's positions (when the key has a grid) and a number box for exact values."""
    out = ""
    if values and len(values) > 1:
        urls = [state.fmt(x) for x in values]
        out += (f'<input type="range" id="{cid}" min="0" max="{len(values) - 1}" step="1" '
                f'value="{values.index(value)}" data-grid="{_attr(json.dumps(urls, separators=(",", ":")))}" '
                f'aria-valuetext="{_attr(state.fmt(value))}" {described}>')
    step = "1" if c.type is int else "any"
    box_id = f"{cid}-box" if out else cid
    name = f' aria-label="{_attr(c.label)}, exact value"' if out else f" {described}"
    out += (f'<input type="number" id="{box_id}" class="wt-pbox" min="{_attr(state.fmt(c.lo))}" '
            f'max="{_attr(state.fmt(c.hi))}" step="{step}" value="{_attr(state.fmt(value))}"{name}>')
    return _labelled(c, cid, out)


def _labelled(c: state.Control, cid: str, inputs: str) -> str:
    """A label above the inputs."""
    return f'<label for="{cid}">{_attr(title(c))}</label><div class="wt-pctl-inputs">{inputs}</div>'


def _checkbox(c: state.Control, cid: str, value, values, described: str) -> str:
    """A checkbox, its label after it."""
    return (f'<div class="wt-pctl-inputs"><input type="checkbox" id="{cid}"{" checked" if value else ""} {described}> '
            f'<label for="{cid}">{_attr(title(c))}</label></div>')


def _select(c: state.Control, cid: str, value, values, described: str) -> str:
    """A select of the choices."""
    options = "".join(f'<option value="{_attr(x)}"{" selected" if x == value else ""}>{_attr(c.says(x) or "(none)")}'
                      "</option>" for x in c.choices)
    return _labelled(c, cid, f'<select id="{cid}" {described}>{options}</select>')


def _box(c: state.Control, cid: str, value, described: str) -> str:
    """A one-line text input, up to its kind's max_chars."""
    return f'<input type="text" id="{cid}" value="{_attr(value)}" maxlength="{c.spec.max_chars}" {described}>'


def _text(c: state.Control, cid: str, value, values, described: str) -> str:
    """A one-line text box."""
    return _labelled(c, cid, _box(c, cid, value, described))


# What a box for a value only Python uses says, before Python: it is kept, and read once the live lab has loaded.
NEEDS_PYTHON = "Read by the live lab once Python has loaded in your browser; nothing before it uses this box."
# A file chosen before Python is read in the page (site/player.js, by state.decoded's rule) and kept for the live lab.
FILE_KEPT = "Read here and kept for the live lab, which trains on it once Python has loaded; it never leaves your browser."


def _textarea(c: state.Control, cid: str, value, values, described: str) -> str:
    """A text area (free text: long, never in a link) that says it waits for Python."""
    return _labelled(c, cid, f'<textarea id="{cid}" rows="4" maxlength="{c.spec.max_chars}" {described}>'
                             f'{_attr(value)}</textarea><p class="wt-note wt-needs-python">{NEEDS_PYTHON}</p>')


def _file(c: state.Control, cid: str, value, values, described: str) -> str:
    """A file picker (a .txt file's text, never in a link) that says what it read, and that the live lab trains on it."""
    return _labelled(c, cid, f'<input type="file" id="{cid}" accept=".txt,text/plain" {described}>'
                             f'<p class="wt-note wt-file-said" role="status"></p><p class="wt-note wt-needs-python">{FILE_KEPT}</p>')


def _line(c: state.Control, cid: str, value, values, described: str) -> str:
    """A one-line text box (a short free text, never in a link) that says it waits for Python."""
    return _labelled(c, cid, f'{_box(c, cid, value, described)}<p class="wt-note wt-needs-python">{NEEDS_PYTHON}</p>')


# What the code box says before Python: the page's editor (site/codelab.js) takes it over; Run needs the live lab.
CODE_SAYS = "Checked by the live lab's Run, in this browser, once Python has loaded; it is never sent anywhere."


def _code(c: state.Control, cid: str, value, values, described: str) -> str:
    """A box of code (never in a link): a plain text area that the page's code editor replaces (site/codelab.js)."""
    return _labelled(c, cid, f'<textarea id="{cid}" class="wt-code-input" rows="20" spellcheck="false" '
                             f'autocapitalize="off" autocomplete="off" maxlength="{c.spec.max_chars}" {described}>'
                             f'{_attr(value)}</textarea><p class="wt-note wt-needs-python">{CODE_SAYS}</p>')


# The editor's first frame says it is loading; site/codelab.js mounts the editor over it, in a box of the same size.
EDITOR_LOADING = "The page's backward, as the editor will show it (the editor loads with the page's script)."


def indent(line: str) -> int:
    """The columns of line's leading whitespace, a tab to the next multiple of 4 (site/codelab.js indentOf)."""
    cols = 0
    for ch in line:
        if ch not in " \t":
            break
        cols += 1 if ch == " " else 4 - cols % 4
    return cols


def editor_still(key: str) -> str:
    """The code editor's host for code control KEY, as the first frame shows it: its default as numbered lines in a
    box the editor's size (the host's --wt-editor-lines, site/style.css) and the bar the editor keeps under it (Run,
    reset, share, and the lines that say what they did), so mounting the editor (site/codelab.js) moves nothing on the
    page. Its Run checks the code before the live section is there too (site/earlyrun.js), then presses the live one."""
    c = state.BY_KEY[key]
    if c.spec.input != "code":
        raise ValueError(f"{key} is a {c.kind} control, not code: only code has an editor")
    lines = str(c.default).split("\n")
    numbered = "".join(f'<span class="wt-code-line" data-line="{n}" style="--wt-indent: {indent(line)}">'
                       f'{escape(line)}</span>' for n, line in enumerate(lines, 1))
    return (f'<div class="wt-codelab-editor wt-keep" role="group" aria-label="Code editor" '
            f'style="--wt-editor-lines: {len(lines)}">'
            f'<pre class="wt-codelab-still" tabindex="0" aria-label="{_attr(EDITOR_LOADING)}">{numbered}</pre>'
            f'<div class="wt-codelab-bar"><button type="button" class="wt-codelab-run" data-testid="codelab-run" '
            f'disabled>Run</button>'
            f'<button type="button" data-testid="codelab-reset" disabled>'
            f"Reset to the page's code</button>"
            f'<button type="button" data-testid="codelab-share" disabled>Share this code</button>'
            f'<p class="wt-note wt-codelab-run-said" role="status" data-testid="codelab-run-said" '
            f'data-run-said="{c.section}"></p>'
            f'<p class="wt-note wt-codelab-from"><span role="status" data-testid="codelab-restored"></span> '
            f'<button type="button" data-testid="codelab-back" hidden>Back to my edit</button></p>'
            f'<p class="wt-note" role="status" data-testid="codelab-share-said"></p>'
            f'<input type="text" class="wt-codelab-link" data-testid="codelab-share-link" readonly hidden '
            f'aria-label="Link to this code" spellcheck="false"></div></div>')


# Each kind's input before Python, by state.Kind.input: (control, id, value, its playback grid, aria) -> HTML
INPUTS = {"number": _number, "checkbox": _checkbox, "select": _select, "text": _text, "textarea": _textarea,
          "file": _file, "line": _line, "code": _code}


def help_html(c: state.Control, hid: str = "") -> str:
    """Control c's help line (id hid, if given); on a narrow screen it folds behind a "?" beside the control
    (site/live.css for the live lab, site/style.css for these), so the help of every control does not double
    a section's height on a phone."""
    return help_box(c.label, c.help, hid)


def help_box(name: str, text: str, hid: str = "") -> str:
    """help_html of a control named NAME whose help is TEXT (also the live lab's presets, which are no state)."""
    pid = f' id="{_attr(hid)}"' if hid else ""
    return (f'<details class="wt-help-box"><summary class="wt-help-q" aria-label="What {_attr(name)} does">'
            f'<span aria-hidden="true">?</span></summary><p class="wt-help"{pid}>{_attr(text)}</p></details>')


def control(c: state.Control, values: list | None) -> str:
    """One control: label, input(s), help; data-key names its field, the classes match the live lab's."""
    cid, value = f"wt-p-{c.section}-{c.name}", getattr(getattr(state.State(), c.section), c.name)
    inputs = INPUTS[c.spec.input](c, cid, value, values, f'aria-describedby="{cid}-help"')
    return (f'<div class="wt-pctl wt-ctl-{c.section}-{c.name}" data-key="{c.name}" data-type="{c.kind}" '
            f'data-default="{_attr(state.fmt(value))}"{" data-log" if c.log else ""}>'
            f'{inputs}{help_html(c, f"{cid}-help")}</div>')


def html_of(sid: str, grid: dict[str, list]) -> str:
    """Every control of section sid in spec order, and the status line that says where answers come from.
    (The rules site/player.js reads them by, bounds and FILLS included, are the page config's state.rules.)"""
    ctls = "".join(control(c, grid.get(c.name)) for c in state.CONTROLS if c.section == sid)
    return (f'<div class="wt-player" data-section="{sid}" role="group" aria-label="Controls">'
            f'<div class="wt-pctls">{ctls}</div>'
            f'<p class="wt-player-status" role="status" data-testid="player-status">{_attr(STATUS)}</p></div>')
