"""HTML panes styled like the prerendered page, a guard that turns a failure into a readable line, and rows
of columns that wrap on a narrow screen."""
from __future__ import annotations

from typing import Callable

import panel as pn

from ...markup import escape


STYLE = ["style.css"]  # the page's stylesheet inside Panel's shadow roots (tables, readouts, figures)


def html_pane(text: str = "", **kw) -> pn.pane.HTML:
    """An HTML pane styled like the prerendered page."""
    return pn.pane.HTML(text, sizing_mode="stretch_width", stylesheets=[*STYLE, *kw.pop("stylesheets", [])], **kw)


def failure(err: Exception, what: str = "Could not compute this setting") -> str:
    """A reader-facing line for a failure: its type and message, escaped, never a traceback."""
    return (f'<p class="wt-bad" role="alert">{escape(what)}: {escape(type(err).__name__)}: '
            f"{escape(str(err))}</p>")


def guard(error: pn.pane.HTML, fn: Callable) -> Callable:
    """fn as a watcher that shows a failure as a readable line in `error` (cleared on success) instead of raising."""
    def run(*events):
        try:
            out = fn(*events)
            error.object = ""
            return out
        except Exception as err:  # a reader's setting broke the numerics: say so, keep the page working
            error.object = failure(err)
    return run


def wrap_row(*columns: pn.Column) -> pn.Row:
    """Columns side by side that wrap under each other where either would be under 460 px (a figure's least
    width to read, style.css's .wt-pair)."""
    for c in columns:
        c.param.update(sizing_mode="stretch_width", styles={"flex": "1 1 460px", "min-width": "0"})  # CSS, not min_width:
        # Bokeh sums children's min_width into the row's, which would stop it from ever wrapping
    return pn.Row(*columns, sizing_mode="stretch_width", styles={"flex-wrap": "wrap"})
