"""The renderer's vocabulary (weighttying.render.vocabulary), what site/inert.js lets slot HTML from an untrusted
worker draw: nothing that loads or runs is ever in it, every name in it is one the real slots draw, and the build
carries it into the page config as it is."""
from __future__ import annotations

import dataclasses
import functools
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from weighttying import codelab, state
from weighttying.render import vocabulary
from weighttying.views import codelab as lab

# Elements that link, load, embed, style or run, and attributes that hold a URL or a handler: never allowed.
DANGEROUS_TAGS = ("a", "img", "use", "image", "foreignObject", "foreignobject", "style", "script", "iframe", "object",
                  "embed", "link", "meta", "base", "form", "math", "template", "animate", "set", "svg:a")
DANGEROUS_ATTRIBUTES = ("href", "src", "xlink:href", "srcset", "srcdoc", "action", "formaction", "id", "name", "is")


def config(dist: Path) -> dict:
    html = (dist / "index.html").read_text()
    return json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>', html, re.S)[1])


class Names(HTMLParser):
    """The element and attribute names a run of HTML uses (lower case, as html.parser gives them)."""

    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.classes: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes |= {name for name, _ in attrs}
        self.classes |= {c for name, value in attrs if name == "class" and value for c in value.split()}


def drawn(dist: Path) -> tuple[Names, int]:
    """The names every playback fragment in DIST uses, and the largest answer: a point's slots at their longest."""
    names, largest = Names(), 0
    for path in sorted((dist / "playback").glob("*.json")):
        table = json.loads(path.read_text())
        for fragment in table["fragments"]:
            names.feed(fragment)
        longest = [max(len(table["fragments"][i]) for i in at["index"]) for at in table["at"].values()]
        largest = max(largest, sum(longest))
    return names, largest


# The reader's code in each kind of outcome. RUNTIME's message is hostile text that the verdict must carry escaped;
# LATE fails on a later call than the checks make, in the race.
DEF = "def lesson_backward(params, cfg, inputs, cache, dlogits):\n"
SYNTAX = DEF + "    return {\n"
RUNTIME = DEF + "    raise ValueError('<img src=x onerror=\"window.__pwned = 1\">')\n"
LATE = "CALLS = [0]\n\n" + codelab.original_source().replace(
    DEF, DEF + "    CALLS[0] += 1\n    if CALLS[0] > 5:\n        raise RuntimeError('<script>window.__pwned = 1</script>')\n", 1)
STEPS = 40


@functools.lru_cache(maxsize=1)
def codelab_slots() -> dict[str, dict[str, str]]:
    """{outcome: the code lab's slots}, as a Run streams them (views.codelab.iter_part, merge)."""
    st = dataclasses.replace(state.State().codelab, bug=lab.YOURS, steps=STEPS)
    out = {"not run": lab.slots(dataclasses.replace(st, code=codelab.original_source()))}
    for name, code in [("correct", codelab.original_source()), ("wrong gradient", codelab.bug_source("buffered")),
                       ("syntax error", SYNTAX), ("runtime error", RUNTIME), ("race stopped", LATE)]:
        mine = dataclasses.replace(st, code=code)
        points = list(lab.iter_part(mine, {}))
        out[name] = lab.slots(mine, lab.merge(mine, [points]))
        if name == "correct":
            out["race in progress"] = lab.slots(mine, lab.merge(mine, [points[:-1]]))
    return out



def test_nothing_that_loads_or_runs_is_allowed():
    emitted = vocabulary.emitted()
    assert not set(DANGEROUS_TAGS) & ({t.lower() for t in emitted["tags"]} | set(emitted["tags"]))
    assert not set(DANGEROUS_ATTRIBUTES) & {a.lower() for a in emitted["attributes"]}
    assert not [a for a in emitted["attributes"] if a.lower().startswith("on")]
    # the names the page finds its own parts by (DOM clobbering, as id and name above)
    assert not {"data-slot", "data-section", "data-live", "data-frag", "data-key", "data-run-said"} & set(emitted["attributes"])
    assert not [s for s in emitted["styles"] if re.search(r"url|image|expression|@import|\\", s, re.I)]


def test_every_name_is_one_the_slots_draw(dist_dir):
    names, largest = drawn(dist_dir)
    for slots in codelab_slots().values():  # the reader's code's outcomes, which no playback holds (its errors)
        names.feed("".join(slots.values()))
    emitted = vocabulary.emitted()
    # gradcheck's badge, a link to its own section, is the real slots' one <a href>: a tainted worker never draws
    # it, and the browser test asserts inert refuses it
    assert set(emitted["tags"]) == names.tags - {"a"}
    exact = {a.lower() for a in emitted["attributes"]}
    assert exact == names.attributes - {"href"}
    assert largest < vocabulary.MAX_CHARS / 4, f"the largest answer, {largest} characters, nears MAX_CHARS"
    assert set(emitted["classes"]) == names.classes, "the classes are those the slots write"
    assert not [c for c in emitted["classes"] if not re.fullmatch(r"wt-[a-z0-9-]+", c)]


def test_the_page_config_carries_it(dist_dir):
    assert config(dist_dir)["vocabulary"] == vocabulary.emitted()
