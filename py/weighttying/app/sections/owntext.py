"""Live section: your own text. The shipped samples answer from the build's runs; a pasted text or a .txt file
(whichever came last) is "yours": it stays in the worker's memory, never in the state, the URL or an export.
Run tokenises and trains it (kit.RunSection, views.owntext.iter_runs a chunk of CHUNK steps at a time, tied and
untied in turn) with progress and Cancel; a text the run cannot take is named in the section and changes
nothing else. The prompt only picks which ready sample each model's writing shows: no run.
"""
from __future__ import annotations

import panel as pn

from ... import owntext as O
from ...views import owntext as V
from ...views.kit import note
from ..kit import RunSection, built, export_buttons, html_pane, layout
from ..store import Store


def problem(raw) -> str:
    """Why a paste (str) or a file (bytes) cannot be trained on, in the reader's words; "" when it can."""
    try:
        O.read(raw)
    except O.TextError as err:
        return str(err)
    return ""


def build(store: Store) -> pn.viewable.Viewable:
    """The own-text section's Panel root, bound to store["owntext"]."""
    box = pn.widgets.TextAreaInput(name="Your text (it stays in this browser)", rows=5, sizing_mode="stretch_width",
                                   placeholder="Paste a text here: at least 200 characters, at most 2 MB.")
    file = pn.widgets.FileInput(name="Or a .txt file (UTF-8, at most 2 MB): choose or drop it here", accept=".txt,text/plain",
                                sizing_mode="stretch_width")
    prompt = pn.widgets.TextInput(name="Prompt for the samples (its last character starts them)",
                                  placeholder="the sample's own", sizing_mode="stretch_width")
    said = html_pane(note("", testid="owntext-input"))
    given: dict = {"raw": None}  # the reader's text, whichever of box and file came last

    def take(raw, where: str) -> None:
        given["raw"], bad = raw, problem(raw)
        text = bad or f"Ready: {where}. Press Run to train both models on it, here in your browser."
        said.object = note(text, "wt-bad" if bad else "wt-help", "owntext-input")
        if not bad:
            store["owntext"].sample = V.YOURS

    box.param.watch(lambda e: take(e.new, "your pasted text"), "value")
    file.param.watch(lambda e: take(file.value, f"the file {file.filename}"), ["value", "filename"])

    def check() -> str:
        if store.state_of("owntext").sample != V.YOURS:
            return ""
        return problem(given["raw"]) if given["raw"] is not None else "No text yet: paste one or choose a file first."

    def draw(run: RunSection) -> None:
        run.results["prompt"] = prompt.value or None
        run.slots.show()

    steps = lambda st: V.iter_runs(st, O.read(given["raw"]) if st.sample == V.YOURS else None)  # noqa: E731
    run = RunSection(store, "owntext", V, "Run", steps, lambda st: len(V.MODELS) * st.steps, V.collect,
                     fresh=lambda: V.kept_entries(built(store, "owntext", V), store.state_of("owntext").sample), draw=draw, check=check)
    prompt.param.watch(lambda e: run.draw(), "value")
    slots, entry = run.slots, lambda: run.results.get(run.st().sample)  # noqa: E731
    table = lambda rows, cols: (lambda: (cols, rows(entry())) if entry() else (["status"], [["no text yet"]]))  # noqa: E731
    exports = pn.Column(export_buttons(store, "owntext", "owntext-bits", table(V.rows, V.COLUMNS)),
                        export_buttons(store, "owntext", "owntext-ranks", table(V.rank_rows, V.RANK_COLUMNS)))
    return layout(store, "owntext", [box, file, said, prompt, run.runner.view(), slots["status"], slots.error,
                                     slots.figure("curves"), slots["table"], exports],
                  [slots["ranks"], slots["sample_tied"], slots["sample_untied"], slots["vocab"]])
