"""The live sections, in page order. Each is a module `sections/<id>.py` with `build(store)` returning
its Panel root; app.main embeds that root into `<div id="live-<id>">` of site/index.html."""

SECTIONS = ("sweep",)
