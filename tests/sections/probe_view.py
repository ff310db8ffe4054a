"""The probe section's output (tests/sections/probe.py): twice its number, and how many words its text has."""
from weighttying.views.kit import grid, hook, lin

SLOTS = ("double", "words")
PLAYBACK = {"n": grid("probe", "n", lin(0.0, 10.0, 0.5))}
DEPENDS = {"double": ("n",), "words": ("words",)}


def slots(st, results=None) -> dict[str, str]:
    """{double: 2n, words: the text's word count}, each a test hook."""
    return {"double": f"<p>Twice n is {hook('probe-double', 2 * st.n)}.</p>",
            "words": f"<p>The text has {hook('probe-words', len(st.words.split()))} words.</p>"}
