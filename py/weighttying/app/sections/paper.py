"""Live section: the paper at toy scale. The study is the section's run (kit.RunSection): at the default
settings the slots show the build's study; Run starts one streamed, cancellable study (paper.iter_study)
for the current setting: the path-norm slots grow while the first tied model trains, then the alignment,
lens and claims slots fill in, all drawn by views.paper.slots from the study so far. A RUN_KEYS change
waits for Run; back at the defaults the build's study shows again.
"""
from __future__ import annotations

import panel as pn

from ...markup import escape
from ...views import paper as view
from ..kit import RunSection, batched, export_buttons, html_pane, layout
from ..store import Store

BUDGET_S = 0.03  # compute per worker call: a slider change elsewhere waits at most this long for the study to yield


def steps(st) -> object:
    """The view's Run for st, its progress merged into calls of at most BUDGET_S."""
    return batched(view.steps(st), BUDGET_S)


def build(store: Store) -> pn.viewable.Viewable:
    """The paper section's Panel root, bound to store["paper"]."""
    phase = html_pane('<p class="wt-help" data-testid="paper-phase"></p>')

    def collect(study: dict, s: dict) -> bool:
        """The study so far: {"norms"} while it streams, then the whole result."""
        now = f'<p class="wt-help" data-testid="paper-phase">Now: {escape(s["phase"])}.</p>'
        if phase.object != now:  # one patch per phase, not per chunk
            phase.object = now
        study.update(s.get("result") or {k: s[k] for k in ("norms",) if k in s})
        return "result" in s or "norms" in s

    # a live run keeps the build's tuned lens, which no run redoes
    run = RunSection(store, "paper", "Run again", collect, keep=("tuned",), steps=steps)

    def table(rows):
        """The export of rows(run.results), or a status row while there is no result."""
        return lambda: rows(run.results) if "align" in run.results else (["status"], [["no result yet"]])

    exports = pn.Column(html_pane('<p class="wt-help">Download the similarity table:</p>'),
                        export_buttons(store, "paper", "paper-alignment", table(view.align_rows)),
                        html_pane('<p class="wt-help">Download the claims table:</p>'),
                        export_buttons(store, "paper", "paper-claims", table(view.claim_rows)),
                        sizing_mode="stretch_width")
    return layout(store, "paper", figures=("figure",), before={"norms": [run.runner.view(), phase]},
                  downloads=[exports])
