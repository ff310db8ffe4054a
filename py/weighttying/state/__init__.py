"""The one state of the page: every control, its bounds and help text, and its URL form, one idea per module:

- kinds.py: the kinds of control (Kind, KINDS), the syntax of their values in a link, and `spec`, a control's field.
- sections.py: each section's State dataclass, the registry declaring a section's parts (REGISTRY, SECTIONS,
  SECTION), the test-only sections $WT_TEST_SECTIONS adds, and the check that every declared part exists.
- page.py: the whole page's State (the sections', then Page) and its controls as one table (CONTROLS, BY_KEY).
- url.py: a link read (parse_query, never raising, with its notes) and written (to_query, fmt).
- files.py: what a file box reads (decoded) and says of a file.
- presets.py: named settings per section (PRESETS) and the fills a view declares (fill).
- emitted.py: rules(), all of the above as data for the page's JS (site/state.js).

The names below are the ones the rest of the package and its tests use, as `state.NAME`.
"""
from .emitted import rules
from .files import FILE_SAYS, decoded
from .kinds import FALSE_WORDS, HIDE_SEP, HIDE_WORDS, KINDS, MAX_TEXT_CHARS, TRUE_WORDS, URL_SAFE, Kind, spec
from .page import BY_KEY, CONTROLS, Control, Page, State, from_values, replace, values
from .presets import CUSTOM_PRESET, PRESETS, fill, linked, matching_preset, preset_values
from .sections import (REGISTRY, SECTION, SECTIONS, TOY, Codelab, Gradcheck, Owntext, Paper, Pathdrop, Repeat,
                       Savings, Section, Sweep, Tasks, Tying, extra_sections, missing_parts)
from .url import (HIDE_TOKENS, NOTES, READERS, SHOW_CHARS, _names, _show, carry, fmt, link_values, parse_query,
                  parse_value, to_query, url_keeps)
