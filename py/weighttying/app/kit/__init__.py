"""The Panel pieces every live section shares, in one place: slot panes filled from the section's view,
a guard that turns a failure into a readable line, the section layout, a run/cancel/progress strip for
long work and the one lifecycle of a section's run around it (RunSection), and CSV/JSON exports stamped
with the link that reproduces them; one module each, all imported from here (`from ..kit import ...`).
No section imports another.

A live section is `build(store)`: `Slots` makes one HTML pane per slot of its view and sets each pane's
`.object` from `view.slots(st, results)`, the same function the build prerenders and plays back from,
so a live number is byte-identical to the precomputed one.
"""
from .arrange import DATA_CARD_CSS, MAIN, SIDE, layout
from .exports import export_buttons, export_cell, figure_download, page_url
from .panes import STYLE, failure, guard, html_pane, wrap_row
from .runner import Runner, batched, on_document_ready
from .runsection import DRAW_S, RunSection, every
from .slot_panes import SECTION_SLOTS, Slots, kept, prebuilt_for
