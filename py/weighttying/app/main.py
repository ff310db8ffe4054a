"""The worker's entry points: build each shown section into a Bokeh document of its own and keep it in
sync with the page (Panel's pyodide-worker protocol, driven from site/worker.js).

`start` runs once per worker; `build` once per section, in the order the page asks; `link` and
`apply_patch` carry a section's widget changes both ways afterwards.
`add_root` and `shown_sections` run under CPython (tests); the rest needs Pyodide's `js` module.
"""
from __future__ import annotations

import json
import traceback
from typing import Callable

import panel as pn
from bokeh.embed.util import standalone_docs_json_and_render_items

from ..markup import escape
from .. import early, prebuilt
from .. import state
from . import sections as live
from .sections import SECTIONS
from .kit.runsection import adopt
from .store import Store

# Every Panel/Bokeh model renders in its own shadow root, out of reach of style.css: this rule goes
# into each one (Panel adds config.raw_css to every component), so keyboard focus is always visible.
FOCUS_CSS = ":focus-visible { outline: 3px solid #3d8bd9 !important; outline-offset: 2px; }"

LIVE_CSS = "live.css"  # beside index.html in dist/ (build.py copies it from site/)

_store: Store | None = None  # the one live State of this worker; sections hold their own references
_scheme = "light"  # the colour scheme of every section's document
_docs: dict = {}  # section id -> its Bokeh document, once built


def shown_sections(page: state.Page) -> tuple[str, ...]:
    """The live sections the reader sees: only the embedded one, else all but those teacher mode hides.

    Sections the page hides are not built at all, so an embed or a locked-down link boots faster."""
    hidden = set(page.hide.split(","))
    return tuple(s for s in SECTIONS if (s == page.embed if page.embed else s not in hidden))


def add_root(doc, store: Store, sid: str):
    """Add section sid's root to doc and return it; if the section fails to build, a readable note
    takes its place, so one broken section never takes the rest of the page down with it."""
    first = len(doc.roots)  # server_doc adds the section's model first, then any helper roots
    try:
        live.build(store, sid).server_doc(doc, location=False)
        return doc.roots[first]
    except Exception as err:
        traceback.print_exc()  # the worker's console keeps the traceback; the reader gets one line
        message = escape(f"{type(err).__name__}: {err}"[:300])
        pn.pane.HTML(f'<p class="wt-bad" role="alert" data-testid="section-error">This section could not '
                     f"start ({message}). The text above still explains it, and the other sections work.</p>"
                     ).server_doc(doc, location=False)
        return doc.roots[first]


def scheme_of(page: state.Page, preferred: str) -> str:
    """'dark' or 'light': the link's theme, or the reader's system preference when it says auto."""
    return page.theme if page.theme != "auto" else ("dark" if preferred == "dark" else "light")


def built_results(text: str | None, problem: str = "") -> tuple[dict | None, list[str]]:
    """(the build's results from results.json's text, or None; the note saying why there are none)."""
    try:
        if text is None:
            raise ValueError(problem or f"{prebuilt.FILE} was not loaded")
        return prebuilt.loads(text), []
    except ValueError as err:
        return None, [f"The results computed at build could not be used ({err}): the sections with a Run "
                      "compute their default results live in your browser instead."]


def start(query: str, emit: Callable[[str, str], None], preferred: str = "light", address: str = "",
          results_text: str | None = None, results_problem: str = "") -> str:
    """Set up the live State from a URL query; JSON {sections, query}: the sections to build (each with
    build(sid), in the order the page asks for them) and the query the State holds.

    emit(kind, json) posts to the page: "notes" (what parse_query rejected or clamped, and why the
    build's results are unusable, plain text) and "values" ({section: its link values}, state.link_values: every
    section's now, then a section's after each change; the page's address bar writes the URL of the sections
    Python holds from them). preferred is the reader's prefers-color-scheme ("dark" or "light"), used when the link
    says theme=auto. address is the page's URL without query (http or file://), the base of every link an
    export or figure carries. results_text is results.json's text (None: not loaded, results_problem says why).
    """
    global _store, _scheme
    initial, notes = state.parse_query(query)
    results, problems = built_results(results_text, results_problem)
    _store = Store(initial, on_change=lambda values: emit("values", json.dumps(values)), base_url=address,
                   prebuilt=results)
    _scheme = scheme_of(initial.page, preferred)
    _docs.clear()
    if notes or problems:  # the link held values we did not use: show why (the URL shows the State we use)
        emit("notes", json.dumps(notes + problems))
    emit("values", json.dumps({sid: state.link_values(initial, sid) for sid in state.SECTIONS}))
    return json.dumps({"sections": list(shown_sections(initial.page)), "query": state.to_query(initial)})


def new_doc():
    """A fresh Bokeh document as Panel's pyodide mode makes one, with this page's per-document settings."""
    from panel.io.pyodide import init_doc

    init_doc()
    # Panel keys these by curdoc and reads them as each component is created: after init_doc, before
    # the section is built.
    pn.config.theme = "dark" if _scheme == "dark" else "default"
    pn.config.raw_css = [FOCUS_CSS]
    # The narrow-screen and touch rules (site/live.css) as a file, not raw_css: Panel puts raw_css text
    # into every model's JSON, a file once; each component's shadow root links it and the browser
    # loads it once.
    pn.config.css_files = [LIVE_CSS]
    # Panel would add a BrowserInfo root after every section; nothing here reads it, and each extra
    # root is one more model for BokehJS to place.
    pn.config.browser_info = False
    return pn.state.curdoc


def build(sid: str) -> str:
    """Build section sid into a Bokeh document of its own; JSON {docs_json, render_items, section}.

    One document per section lets the page show the section it has in view live first and build the
    rest later, each when the reader nears it or the page is idle (site/boot.js decides the order)."""
    doc = _docs[sid] = new_doc()
    # One recompute of the document's model graph at the end instead of one per model added.
    with doc.models.freeze():
        root = add_root(doc, _store, sid)
    docs_json, [item] = standalone_docs_json_and_render_items(doc.roots, suppress_callback_warning=True)
    render_item = {**item.to_json(), "roots": {root.id: f"live-{sid}"}, "root_ids": [root.id]}
    doc._session_context = None  # as panel.io.pyodide.write_doc: the mock server session ends here
    return json.dumps({"docs_json": docs_json, "render_items": [render_item], "section": sid})


def set_query(query: str, sections: list[str] | None = None, carried: str = "{}", ran: str = "{}") -> None:
    """Move the live State of SECTIONS (default: all) to a URL query's: the reader moved the playback
    controls of sections not yet live. A section already live keeps its own state: the query's values
    for it may be older than a change the reader just made to it. carried: JSON {key: value} of the playback's
    values no link holds (free text typed before Python: site/address.js), put in as state.carry allows. ran: JSON
    {section: its one part's batches} of the Runs the page ran before the section was live (site/earlyrun.js), which
    the section takes in as its results (kit.runsection.adopt)."""
    page, _ = state.parse_query(query)  # the page already showed the notes of the query it booted with
    page = state.carry(page, json.loads(carried))
    for sid in state.SECTIONS if sections is None else sections:
        _store.take_playback(sid, getattr(page, sid))
    for sid, batches in json.loads(ran).items():
        if early.has_run(sid):
            adopt(_store, sid, batches)


def link(sid: str, send_patch) -> None:
    """After the page embedded section sid: forward its document's Python-side changes as patches
    (send_patch(patch, buffers, sid); the document's changes made meanwhile were held until now)."""
    from panel.io.pyodide import _link_docs_worker

    _link_docs_worker(_docs[sid], send_patch, msg_id=sid, setter="js")


def apply_patch(sid: str, patch) -> None:
    """Apply one JSON patch of browser-side widget changes (a JsProxy) to section sid's document."""
    from panel.io.pyodide import _convert_json_patch

    _docs[sid].apply_json_patch(_convert_json_patch(patch), setter="js")  # Panel's callbacks run with it as curdoc
