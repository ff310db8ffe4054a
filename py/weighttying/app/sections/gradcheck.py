"""Live section: every entry of the hand-written gradient against central differences.

The check is the section's run (kit.RunSection). Its view has no RUN_KEYS: every slot needs the check
and it follows every control. At start the slots show the build's check of the default settings, so
nothing runs by itself; any other setting restarts the check (views.gradcheck.iter_check, in steps of
a few batch tokens, so other sections stay live and Cancel works); when it finishes, every slot (the
fixed badge, readout, per-parameter table, E's error heatmap) is redrawn from its summary. Settings the
build did not check (a shared link) are checked once the page shows the section.
"""
from __future__ import annotations

import panel as pn

from ...views import gradcheck as view
from ...views.kit import note, slot
from ..kit import RunSection, export_buttons, layout
from ..store import Store


def pending(state: str, text: str) -> str:
    """The badge while no result stands: running, or cancelled by the reader."""
    return slot("badge", f'<a class="wt-gc-badge wt-busy" href="#gradcheck" aria-live="polite" '
                         f'data-testid="gradcheck-badge" data-value="{state}">gradient check: {text}</a>')


BUSY, CANCELLED = pending("running", "running…"), pending("cancelled", "cancelled (not checked)")


def collect(results: dict, point: dict) -> bool:
    """The check's summary, once its last step has the whole result."""
    if "result" in point:
        results.update(view.summary(point["result"]))
    return "result" in point


def draw(run: RunSection) -> None:
    """The slots from the latest finished check; while none stands, the badge says it is running."""
    if run.results:
        run.slots.show()
    else:
        run.slots["badge"].object = BUSY


def build(store: Store) -> pn.viewable.Viewable:
    """The gradient-check section's Panel root, bound to store["gradcheck"]."""
    run = RunSection(store, "gradcheck", "Check every entry", collect, draw=draw,
                     steps=lambda st: view.steps(st, store.differences))  # the memo pathdrop shares
    badge = run.slots["badge"]
    badge.margin = 0  # styled by live.css's share of site/shared.css
    run.runner.cancel.on_click(lambda _: setattr(badge, "object", CANCELLED))
    if not run.results:  # no build result for these settings: checked once the page shows the section
        run.slots["readout"].object = slot("readout", note("Checking every entry…", "wt-readout"))
    exports = export_buttons(store, "gradcheck", "gradcheck",
                             lambda: (view.COLUMNS, view.table_rows(run.results) if run.results else []))
    return layout(store, "gradcheck", figures=("heatmap",), before={"heatmap": [run.runner.view()]},
                  downloads=[exports])
