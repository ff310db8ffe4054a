"""Live section: the code lab. Choosing a backward or k redraws from its checks at once (the build's, or computed
here in a moment: they need no training); the race against the page's backward is the section's Run
(kit.RunSection over views.codelab.steps): the build's at the default steps, else it waits for Run.
"""
from __future__ import annotations

import panel as pn

from ...views import codelab as V
from ..kit import RunSection, layout
from ..store import Store


def build(store: Store) -> pn.viewable.Viewable:
    """The code lab's Panel root, bound to store["codelab"]."""
    run = RunSection(store, "codelab", "Run the race", V.collect)
    return layout(store, "codelab", figures=("strip", "race"), before={"race": [run.runner.view()]})
