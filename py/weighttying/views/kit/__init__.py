"""What every view shares: hooked numbers and tables, notes, slot markup, playback grids, the toy's
defaults, E's error heatmap and the memo of central differences (whose owner passes it in), one module each,
all imported from here (`from .kit import ...`). No Panel; no view imports another.

A view `views/<id>.py` is one section's output as named HTML fragments (see views/__init__.py); the
pieces two or more views need live here, so a section never reaches into another.
"""
from .differences import Differences, last
from .grids import GRIDS, control, grid, lin, log
from .heatmap import ERROR_DIGITS, TOL, error_heatmap, heatmap_desc, row_errors, shown_errors
from .hooks import Num, hook, plain_number
from .provenance import (BUILT, SOURCE_TEXT, as_built, built_applies, no_results, origin, plain_data, source,
    with_results)
from .slots import DATA_BEFORE, DATA_SUMMARY, compose, data_box, slot
from .tables import cell, note, pending, plain, scroll, table
from .verdicts import (TOY, Verdict, at_defaults, chip, chip_html, claim, judged, reader_rule, recipe_text,
    run_verdict, search_html, seeds_row, verdict_chip)
