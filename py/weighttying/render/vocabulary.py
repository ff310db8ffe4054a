"""What the page's renderer draws, as data: the elements, attributes and style values of every section's slots.
site/inert.js refuses any slot HTML outside it, since HTML drawn by a worker that ran the reader's code is untrusted
(the config's "vocabulary"). Derived from the real output: tests/test_browser_inert.py passes every playback
fragment and the code lab's slots through it."""
from __future__ import annotations

# Element local names, HTML and SVG. Never a link, an embed, a stylesheet, a script or anything that loads or runs:
# tests/test_vocabulary.py keeps those out.
TAGS = (
    "b", "button", "caption", "code", "details", "div", "figcaption", "figure", "mark", "p", "pre", "span", "strong",
    "summary", "table", "tbody", "td", "th", "thead", "tr",
    "circle", "desc", "line", "path", "polyline", "rect", "svg", "text", "title",
)

# Exact attribute names as the DOM names them (the HTML parser writes SVG's viewBox in camel case). No id or name:
# an element with one would shadow the page's own globals and form fields (DOM clobbering), and no slot needs one.
# The same holds for data-* and aria-*: the page finds its own parts by data-slot, data-section, data-live and
# more (site/player.js, earlyrun.js, codelab.js), so a slot may carry only the ones slots write.
ATTRIBUTES = (
    "class", "role", "tabindex", "scope", "type", "style",
    "viewBox", "xmlns", "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "d", "points", "width", "height",
    "fill", "stroke", "stroke-width", "stroke-dasharray", "text-anchor", "dominant-baseline",
    "data-testid", "data-value", "data-label", "data-fig", "data-verdict", "data-source", "data-worst",
    "data-entries", "data-codelab-source", "data-line", "data-column", "data-editor",
    "aria-label", "aria-hidden", "aria-live",
)

# Every class the slots write. A class is how the page's stylesheets place and colour things (one of them pins a
# box over the page), so a worker's slot may use only these.
CLASSES = (
    "wt-agrees", "wt-at", "wt-axis", "wt-bad", "wt-band", "wt-chip", "wt-chip-word", "wt-claim", "wt-claim-item",
    "wt-code", "wt-code-box", "wt-code-changed", "wt-code-line", "wt-code-load", "wt-code-was", "wt-differs", "wt-fig",
    "wt-gc-badge", "wt-good", "wt-grid", "wt-head", "wt-help", "wt-key", "wt-na", "wt-none", "wt-not", "wt-over",
    "wt-readout", "wt-ref", "wt-rule", "wt-s0", "wt-s1", "wt-s2", "wt-s3", "wt-sample", "wt-sample-text", "wt-scroll",
    "wt-source", "wt-table", "wt-tick", "wt-verdict",
)

# The only style attribute values the slots write (views.kit.tables.scroll). A style is a whole CSS declaration
# list, where a list of denied words cannot keep up (image-set("x.png") loads without a url): exact values instead.
STYLES = ("overflow-x: auto",)

# One answer's slot text at most: the largest real answer (sweep's slots, ~0.3 MB) with room to grow, while a
# tainted worker's flood of text is refused before the page spends seconds parsing it.
MAX_CHARS = 2_000_000


def emitted() -> dict:
    """The page config's "vocabulary": {"tags", "attributes", "classes", "styles": lists, "max_chars": int}."""
    return {"tags": list(TAGS), "attributes": list(ATTRIBUTES), "classes": list(CLASSES), "styles": list(STYLES),
            "max_chars": MAX_CHARS}
