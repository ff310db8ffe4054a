"""Live section: every entry of the hand-written gradient against central differences.

At start the slots show the build's check of the default settings (store.built), so nothing runs by
itself; any control change restarts the check (views.gradcheck.iter_check, in steps of a few batch
tokens, through a Runner so other sections stay live and Cancel works); when it finishes, every slot
(the fixed badge, readout, per-parameter table, E's error heatmap) is redrawn from its
summary. Settings the build did not check (a shared link) are checked once the page shows the section.
"""
from __future__ import annotations

import panel as pn

from ...views import gradcheck as V
from ...views.kit import note, slot
from ..kit import Runner, Slots, built, export_buttons, layout, on_document_ready
from ..store import Store

# The badge pane renders in a shadow root, where the page's CSS does not reach: it carries its own
# rules (the prerendered badge, in the light DOM, is styled by site/sections/gradcheck.html).
BADGE_CSS = """
.wt-gc-badge { position: fixed; right: 10px; bottom: 10px; z-index: 50; max-width: calc(100vw - 20px);
  padding: 4px 10px; border-radius: 12px; font: 600 12px/1.4 system-ui, sans-serif; text-decoration: none;
  box-shadow: 0 1px 4px rgba(0,0,0,.3); background: #e7f5ea; color: #14532d; border: 1px solid #2f855a; }
.wt-gc-badge.wt-bad { background: #fdecea; color: #7f1d1d; border-color: #c53030; }
.wt-gc-badge.wt-busy { background: #f1f1f1; color: #333; border-color: #888; }
@media (prefers-color-scheme: dark) {
  .wt-gc-badge { background: #12301f; color: #bdf0cf; }
  .wt-gc-badge.wt-bad { background: #3b1212; color: #ffd1d1; }
  .wt-gc-badge.wt-busy { background: #2a2a2a; color: #ddd; } }
"""


def pending(state: str, text: str) -> str:
    """The badge while no result stands: running, or cancelled by the reader."""
    return slot("badge", f'<a class="wt-gc-badge wt-busy" href="#gradcheck" aria-live="polite" '
                         f'data-testid="gradcheck-badge" data-value="{state}">gradient check: {text}</a>')


BUSY, CANCELLED = pending("running", "running…"), pending("cancelled", "cancelled (not checked)")


def build(store: Store) -> pn.viewable.Viewable:
    """The gradient-check section's Panel root, bound to store["gradcheck"]."""
    cur: dict = {}  # the summary of the latest finished check, for the slots and the exports
    slots = Slots(store, "gradcheck", V, lambda: cur["result"])
    badge = slots["badge"]
    badge.param.update(object=BUSY, stylesheets=[*badge.stylesheets, BADGE_CSS], margin=0)

    def done(last: dict | None) -> None:
        cur["result"] = V.summary(last["result"])
        slots.show()

    runner = Runner("Check every entry", lambda: V.iter_check(store.state_of("gradcheck"), store.differences),
                    lambda: V.entries(store.state_of("gradcheck")), on_step=lambda _: None, on_done=done)

    def restart(*_) -> None:
        badge.object = BUSY
        runner.start()

    p = store["gradcheck"]
    p.param.watch(restart, [n for n in p.param if n != "name"])
    runner.run.on_click(lambda _: setattr(badge, "object", BUSY))
    runner.cancel.on_click(lambda _: setattr(badge, "object", CANCELLED))
    if (first := built(store, "gradcheck", V)) is not None:
        cur["result"] = first
        slots.show()
    else:  # no build result for these settings: check once the page shows the section
        slots["readout"].object = slot("readout", note("Checking every entry…", "wt-readout"))
        on_document_ready(lambda: cur or runner.job.running or restart())
    exports = export_buttons(store, "gradcheck", "gradcheck",
                             lambda: (V.COLUMNS, V.table_rows(cur["result"]) if cur else []))
    return layout(store, "gradcheck", [badge, slots["readout"], slots.error, slots["table"], exports],
                  [runner.view(), slots.figure("heatmap")])
