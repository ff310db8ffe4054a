"""weighttying.markup.escape: the standard library's html.escape, without importing its entity table."""
import html

import pytest

from weighttying.markup import escape

TEXTS = ["", "plain", "a < b && c > d", "\"quoted\" and 'quoted'", "&amp; already", "<script>alert('x')</script>",
         "σ ≤ 0.0001 · E[t]", "\u201cthe page\u201d & <code>dE += x</code>"]


@pytest.mark.parametrize("quote", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_escape_is_html_escape(text, quote):
    assert escape(text, quote=quote) == html.escape(text, quote=quote)


def test_quote_is_the_default_as_in_html_escape():
    assert escape("\"'") == "&quot;&#x27;"
