"""Text made safe inside HTML: `escape`, what every view and figure writes a reader's or the page's words through.

Not the standard library's `html.escape`, though it does the same replacements: importing `html` loads
`html.entities`, a table of 2,231 names the package never reads, and in Pyodide that import is ~33 ms of a numerics
worker's boot, which is on the path to a code lab's first verdict (bench/README.md, codelab.py).
"""


def escape(text: str, quote: bool = True) -> str:
    """text with & < > (and, with quote, " and ') replaced by their character references, as html.escape does."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;").replace("'", "&#x27;") if quote else text
