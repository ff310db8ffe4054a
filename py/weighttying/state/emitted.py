"""rules(): the package's rules as data, emitted into the page's config for site/state.js."""
from __future__ import annotations

import dataclasses

from .files import FILE_SAYS, MB
from .kinds import FALSE_WORDS, HIDE_SEP, KINDS, SPACE, TRUE_WORDS
from .page import CONTROLS
from .presets import CUSTOM_PRESET, PRESETS
from .sections import SECTIONS
from .url import HIDE_TOKENS, NO_DEFAULT, NOTE_JOIN, NOTE_NAMES, NOTES, SHOW_CHARS, SHOW_CUT, url_keeps


def rules(fills: dict[str, dict]) -> dict:
    """Every rule of this package as data, for the page's JS (build.py puts it into the page's config as "state";
    site/state.js reads it): the on/off words, the kinds table (KINDS), the notes (NOTES) and how they quote, what a
    link leaves unescaped, what a file box says (FILE_SAYS, MB), each control's kind, default and bounds, presets and
    FILLS ({section: its view's FILLS}). The JS re-types none of it; it runs the readers, fmt, fill and decoded over
    it."""
    return {
        "true": TRUE_WORDS, "false": FALSE_WORDS, "space": SPACE, "hide_tokens": sorted(HIDE_TOKENS), "hide_sep": HIDE_SEP,
        "url_keeps": url_keeps(),
        "file_says": FILE_SAYS, "mb": MB, "notes": {"say": NOTES, "show_chars": SHOW_CHARS, "cut": SHOW_CUT, "names": NOTE_NAMES,
                                          "join": NOTE_JOIN, "no_default": NO_DEFAULT},
        "kinds": {k.name: {f.name: getattr(k, f.name) for f in dataclasses.fields(k) if f.name != "type"}
                  | {"whole": k.type is int} for k in KINDS.values()},
        "sections": SECTIONS,
        "controls": [{"key": c.key, "section": c.section, "name": c.name, "label": c.label, "kind": c.kind,
                      "default": c.default, "lo": c.lo, "hi": c.hi, "choices": c.choices, "log": c.log, "own": c.own}
                     for c in CONTROLS],
        "presets": PRESETS, "custom_preset": CUSTOM_PRESET,
        "fills": {sid: f for sid, f in fills.items() if f},
    }
