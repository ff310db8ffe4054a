"""CSV, JSON and SVG downloads, each stamped with the link that reproduces what it holds."""
from __future__ import annotations

import io
import json
import math
from typing import Callable, Sequence

import panel as pn

from ... import render, state
from ...precision import carried
from ...views import kit as views_kit
from ..store import Store



def page_url(store: Store, section: str) -> str:
    """The link that reproduces what a section shows now: page address, query, section anchor."""
    query = state.to_query(store.page)
    return f"{store.base_url}{'?' + query if query else ''}#{section}"


def export_cell(v: object) -> object:
    """A cell as both exports hold it: numbers plain (hooked cells too) and carried (precision.carried), non-finite
    floats as the text "inf", "-inf" or "nan" (JSON has no such numbers; CSV readers parse these spellings back)."""
    v = carried(views_kit.plain_number(views_kit.plain(v)))
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def _csv_cell(v: object) -> str:
    """A CSV field: numbers as repr (of the carried number), booleans as JSON spells them, text quoted when it
    holds a comma, quote or newline."""
    text = json.dumps(v) if isinstance(v, bool) else repr(v) if isinstance(v, float) else str(v)
    return '"' + text.replace('"', '""') + '"' if any(ch in text for ch in ',"\n') else text


def export_buttons(store: Store, section: str, name: str,
                   table: Callable[[], tuple[Sequence[str], Sequence[Sequence[object]]]]) -> pn.Row:
    """CSV and JSON downloads of table() = (columns, rows), each stamped with its reproducing link."""

    def payload(kind: str) -> io.StringIO:
        columns, rows = table()
        url, cells = page_url(store, section), [[export_cell(v) for v in r] for r in rows]
        if kind == "json":
            return io.StringIO(json.dumps({"url": url, "columns": list(columns), "rows": cells}, indent=1))
        lines = [f"# reproduce: {url}", ",".join(_csv_cell(c) for c in columns)]
        lines += [",".join(_csv_cell(v) for v in r) for r in cells]
        return io.StringIO("\n".join(lines) + "\n")

    return pn.Row(*(pn.widgets.FileDownload(callback=lambda k=kind: payload(k), filename=f"{name}.{kind}",
                                            label=f"Download {kind.upper()}", button_type="light",
                                            width=150) for kind in ("csv", "json")),
                  css_classes=["wt-exports"])


def figure_download(store: Store, section: str, name: str, fragments: Callable[[], list[str]]) -> pn.widgets.FileDownload:
    """"Download figure (SVG)": the figure in fragments() (a slot's HTML, then its overlay's) as an .svg
    file with the reproducing link stamped under the plot."""
    return pn.widgets.FileDownload(
        callback=lambda: io.StringIO(render.standalone(fragments(), page_url(store, section))), filename=f"{name}.svg",
        label="Download figure (SVG)", button_type="light", width=200, css_classes=["wt-exports"])
