"""The live sections, in page order (state.SECTIONS). Each is a module `sections/<id>.py` with
`build(store)` returning its Panel root; app.main embeds that root into `<div id="live-<id>">`.
A section is live as soon as its module exists, so adding one touches no shared list."""
import importlib.util

from ...state import SECTIONS as ALL

SECTIONS = tuple(s for s in ALL if importlib.util.find_spec(f"{__name__}.{s}") is not None)
