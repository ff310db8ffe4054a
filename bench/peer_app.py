"""The peer: the same live sections as our page, as a plain Panel app for
`panel convert --to pyodide-worker` (bench/peer.py converts it; bench/README.md, "The peer").

It builds what weighttying.app.main.start builds for our worker (every shown section's
`sections/<id>.py build(store)` on one default Store, the same page-wide Panel settings), but into one
pn.Column(...).servable(), so Panel's own converter, worker script and page script do the rest.
"""
from importlib import import_module

import panel as pn

from weighttying import state
from weighttying.app.main import FOCUS_CSS, shown_sections
from weighttying.app.store import Store

initial, _ = state.parse_query("")
store = Store(initial)
pn.config.raw_css = [FOCUS_CSS]
pn.config.browser_info = False
sections = [import_module(f"weighttying.app.sections.{sid}").build(store) for sid in shown_sections(initial.page)]
pn.Column(*sections, sizing_mode="stretch_width").servable(title="Weight tying (panel convert peer)")
