"""Live section: the code lab. Choosing a backward or k redraws from its checks at once (the build's, or computed
here in a moment: they need no training); the race against the page's backward is the section's Run
(kit.RunSection over views.codelab.steps): the build's at the default steps, else it waits for Run. The reader's
code (bug "yours") runs only on the pool's numerics workers, never in this worker.
"""
from __future__ import annotations

import io

import panel as pn

from ... import codelab
from ...views import codelab as codelab_view
from .. import pooled
from ..kit import RunSection, layout
from ..store import Store

ELSEWHERE = "Your code runs on a numerics worker of its own, and this browser could not start one: nothing was run."


def here(st):
    """The Run when it runs in this worker (no pool, or the pool failed): a named bug's, never the reader's code."""
    if st.bug != codelab_view.YOURS:
        return codelab_view.steps(st)
    return iter([{"step": 0, "bug": codelab_view.YOURS, "entry": codelab.error("runtime", ELSEWHERE)}])


def build(store: Store) -> pn.viewable.Viewable:
    """The code lab's Panel root, bound to store["codelab"]."""
    def check() -> str:
        mine = store.state_of("codelab").bug == codelab_view.YOURS
        return ELSEWHERE if mine and not pooled.available("codelab") else ""

    good: dict = {}  # the reader's last code that ran: a failing run shows its error over these results

    def draw(run: RunSection) -> None:
        mine = run.results.get(codelab_view.YOURS)
        if mine and mine["kind"] == "ok" and "failed" not in mine:
            good["entry"] = mine
        elif mine and mine["kind"] != "ok" and "entry" in good:
            run.results[codelab_view.YOURS] = {**good["entry"], "failed": mine}
        run.slots.show()

    # hold: the last verdict stays until the new one, which the worker sends first (a "Not checked yet" would flash)
    run = RunSection(store, "codelab", "Run", codelab_view.collect, check=check, steps=here, draw=draw, hold=True)
    obj = store["codelab"]  # an edit makes the code the reader's, as before Python (player.js: the kind's `own`)
    obj.param.watch(lambda _: setattr(obj, "bug", codelab_view.YOURS), "code")
    kinds = ((codelab_view.script, "codelab.py", "Python script"), (codelab_view.notebook, "codelab.ipynb", "notebook"))
    take = [pn.widgets.FileDownload(callback=lambda f=f: io.StringIO(f(store.state_of("codelab"))), filename=name,
                                    label=f"Download the code and its check ({kind})", button_type="light")
            for f, name, kind in kinds]
    return layout(store, "codelab", figures=("strip", "race"), before={"race": [run.runner.view()]},
                  downloads=[pn.Row(*take, css_classes=["wt-exports"])])
