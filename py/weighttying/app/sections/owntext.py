"""Live section: your own text. The shipped samples answer from the build's runs; a pasted text (the `text`
control) or a .txt file (the `file` control, whichever came last) is "yours": both are controls of kinds that
never enter the URL or an export, so the text stays in this browser. Run tokenises and trains it
(kit.RunSection over views.owntext.iter_runs, or its two models side by side on the pool of numerics workers)
with progress and Cancel; a text the run cannot take is named in the section and changes nothing else. The
prompt (`prompt`) only picks which ready sample each model's writing shows: no run.
"""
from __future__ import annotations

import panel as pn

from ... import owntext
from ...views import owntext as view
from ...views.kit import note
from ..kit import RunSection, export_buttons, html_pane, layout, prebuilt_for
from ..store import Store


def problem(raw: str) -> str:
    """Why a text cannot be trained on, in the reader's words; "" when it can."""
    try:
        owntext.read(raw)
    except owntext.TextError as err:
        return str(err)
    return ""


def build(store: Store) -> pn.viewable.Viewable:
    """The own-text section's Panel root, bound to store["owntext"]."""
    obj = store["owntext"]
    said = html_pane(note("", testid="owntext-input"))

    def take(raw: str, where: str) -> None:
        bad = problem(raw)
        text = bad or f"Ready: {where}. Press Run to train both models on it, here in your browser."
        said.object = note(text, "wt-bad" if bad else "wt-help", "owntext-input")
        if not bad:
            obj.sample = view.YOURS

    def pasted(text: str) -> None:
        obj.file = ""  # the paste is the reader's latest text
        take(text, "your pasted text")

    def chosen(text: str) -> None:
        if text:  # "" is the file cleared by a paste
            take(text, f"the file you chose ({len(text):,} characters)")

    obj.param.watch(lambda e: pasted(e.new), "text")
    obj.param.watch(lambda e: chosen(e.new), "file")
    # typed or chosen before Python (the page carries the latest into the State, the other cleared): taken as here
    if obj.file:
        chosen(obj.file)
    elif obj.text:
        pasted(obj.text)

    def check() -> str:
        st = store.state_of("owntext")
        return problem(view.yours(st)) if st.sample == view.YOURS else ""  # no text yet: "The text is empty: paste ..."

    run = RunSection(store, "owntext", "Run", view.collect,
                     fresh=lambda: view.kept_entries(prebuilt_for(store, "owntext"), store.state_of("owntext").sample),
                     check=check)

    def entry() -> dict | None:
        return run.results.get(run.st().sample)

    def table(rows, cols):
        """The export of rows(entry()) under cols, or a status row while there is no text."""
        return lambda: (cols, rows(entry())) if entry() else (["status"], [["no text yet"]])

    exports = pn.Column(export_buttons(store, "owntext", "owntext-bits", table(view.rows, view.COLUMNS)),
                        export_buttons(store, "owntext", "owntext-ranks", table(view.rank_rows, view.RANK_COLUMNS)))
    return layout(store, "owntext", figures=("curves",), before={"status": [said, run.runner.view()]},
                  downloads=[exports])
