"""site/inert.js in Chromium, on a blank page of the served origin with no CSP (its check has to hold alone): every
slot the page's renderer draws passes unchanged (every playback fragment, and the code lab's slots for the reader's
code in each kind of outcome), and hostile HTML is refused with its reason, no request leaving the page and no
script running."""
from __future__ import annotations

import json
import subprocess

import pytest
from harness import ROOT, until
from test_vocabulary import codelab_slots, config


pytestmark = pytest.mark.browser

BLANK = "inert-blank.html"  # the blank page, answered by the test, never by the server
GLOBAL = "WtInert"

# In the page: each string through inert, inserted into the document and serialized, beside the page's own parse
# of it; a refusal gives its message.
CHECK = """([strings, vocabulary]) => strings.map((html) => {
  let nodes;
  try { nodes = WtInert.inert(html, vocabulary); } catch (e) { return {refused: e.message}; }
  const ours = document.body.appendChild(document.createElement("div")), page = document.createElement("div");
  ours.append(nodes);
  page.innerHTML = html;
  const same = ours.innerHTML === page.innerHTML;
  ours.remove();
  return {same};
})"""


@pytest.fixture(scope="module")
def bundle() -> str:
    """site/inert.js as a classic script defining window.WtInert, by the repo's esbuild."""
    proc = subprocess.run([str(ROOT / "node_modules/.bin/esbuild"), "site/inert.js", "--bundle", "--format=iife",
                           f"--global-name={GLOBAL}"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def blank(page, server, bundle):
    """A blank page of the server's origin (a relative src would be a request to it) with inert loaded."""
    page.route(server.url + BLANK, lambda route: route.fulfill(
        body="<!doctype html><html><head><title>inert</title></head><body></body></html>", content_type="text/html"))
    page.goto(server.url + BLANK)
    page.add_script_tag(content=bundle)
    return page


def checked(page, strings: list[str], vocabulary: dict) -> list[dict]:
    return page.evaluate(CHECK, [strings, vocabulary])


def test_every_playback_fragment_passes_unchanged(blank, dist_dir):
    vocabulary = config(dist_dir)["vocabulary"]
    tables = sorted((dist_dir / "playback").glob("*.json"))
    assert len(tables) >= 10
    for path in tables:
        fragments = json.loads(path.read_text())["fragments"]
        outcomes = checked(blank, fragments, vocabulary)
        for fragment, outcome in zip(fragments, outcomes):
            # gradcheck's badge links to its own section: an <a href> the tainted worker never draws, refused
            want = ({"refused": "it has an <a> element, which this page never draws"} if "<a " in fragment
                    else {"same": True})
            assert outcome == want, f"{path.name}: {fragment[:300]}"


def test_the_code_labs_slots_pass_unchanged(blank, dist_dir):
    vocabulary = config(dist_dir)["vocabulary"]
    outcomes = codelab_slots()
    # each case is the outcome it names (else this test checks less than it says)
    assert "codelab-not-run" in outcomes["not run"]["strip"]
    assert "wt-good" in outcomes["correct"]["verdict"] and "wt-bad" in outcomes["wrong gradient"]["verdict"]
    assert "Step " in outcomes["race in progress"]["race"] and "After 40 steps" in outcomes["correct"]["race"]
    assert "SyntaxError" in outcomes["syntax error"]["verdict"] and "&lt;img" in outcomes["runtime error"]["verdict"]
    assert "codelab-race-error" in outcomes["race stopped"]["race"]
    for name, slots in outcomes.items():
        results = checked(blank, list(slots.values()), vocabulary)
        assert results == [{"same": True}] * len(slots), name


# Hostile HTML, each with the message it is refused with; every payload would set window.__pwned or load a file.
EVIL = "https://evil.example"
RUN = "window.__pwned = 1"
IMAGE_SET = f"background-image: image-set('{EVIL}/i.png' 1x)"  # loads with no url(
HOSTILE = [
    (f'<img src=x onerror="{RUN}">', "it has an <img> element, which this page never draws"),
    ('<div class="wt-slot wt-toc">over the page</div>', 'it has class="wt-slot", a class this page never writes'),
    (f"<script>{RUN}</script>", "it has a <script> element, which this page never draws"),
    (f"<p>fine</p><svg><script>{RUN}</script></svg>", "it has a <script> element, which this page never draws"),
    (f'<a href="javascript:{RUN}">x</a>', "it has an <a> element, which this page never draws"),
    ('<iframe srcdoc="<script>parent.__pwned = 1</script>"></iframe>',
     "it has an <iframe> element, which this page never draws"),
    (f'<svg><use href="{EVIL}/u.svg#a"/></svg>', "it has a <use> element, which this page never draws"),
    (f'<svg><image href="{EVIL}/i.png"/></svg>', "it has an <image> element, which this page never draws"),
    (f'<svg><rect fill="url({EVIL}/f.svg#p)"/></svg>', "it has url( in fill"),
    (f'<svg><rect fill="U\\52 L({EVIL}/f.svg#p)"/></svg>', "it has url( in fill"),
    (f'<div style="background: url({EVIL}/b.png)">x</div>', "it has url( in style"),
    (f'<div style="{IMAGE_SET}">x</div>', f'it has style="{IMAGE_SET[:40]}…", a style this page never writes'),
    (f'<style>@import "{EVIL}/s.css";</style>', "it has a <style> element, which this page never draws"),
    ('<div class="wt-help" style="overflow-x: auto; @import">x</div>', "it has @import in style"),
    (f'<svg><foreignObject><img src=x onerror="{RUN}"></foreignObject></svg>',
     "it has a <foreignObject> element, which this page never draws"),
    (f'<p ONERROR="{RUN}">x</p>', "it has an onerror attribute"),
    (f'<svg><rect xlink:href="{EVIL}/x"/></svg>', "it has a xlink:href attribute"),
    (f'<math><mtext><table><mglyph><style><img src=x onerror="{RUN}">',
     "it has a <math> element, which this page never draws"),
    (f'<span data-value="java&#9;script:{RUN}">x</span>', "it has javascript: in data-value"),
    # the page finds its own parts by these: a slot's copy would take another slot's answer, or say a section is live
    ('<p>x</p><div data-slot="verdict">x</div>', "it has a data-slot attribute"),
    ('<div data-section="sweep"><div data-live="true">x</div></div>', "it has a data-section attribute"),
    ('<span aria-owns="wt-toc">x</span>', "it has an aria-owns attribute"),
    (f'<details ontoggle="{RUN}" open>x</details>', "it has an ontoggle attribute"),
    ('<p id="config" class="wt-help">x</p>', "it has an id attribute"),
    (f'<svg><animate attributeName="href" values="javascript:{RUN}"/></svg>',
     "it has an <animate> element, which this page never draws"),
    (f'<template><img src=x onerror="{RUN}"></template>', "it has a <template> element, which this page never draws"),
    (f'<noscript><p title="</noscript><img src=x onerror=\'{RUN}\'>"></noscript>',
     "it has a <noscript> element, which this page never draws"),
    ("<p>" + "x" * 3_100_000 + "</p>", "it is 3.1 MB, over this page's 2 MB for one answer"),
]


def test_hostile_html_is_refused_with_its_reason(blank, recorder, dist_dir):
    vocabulary = config(dist_dir)["vocabulary"]
    outcomes = checked(blank, [html for html, _ in HOSTILE], vocabulary)
    assert [o.get("refused") for o in outcomes] == [why for _, why in HOSTILE]
    def harmed() -> bool:  # what an accepted string would do: run, or load a file
        return blank.evaluate("window.__pwned") is not None or any(not u.endswith(BLANK) for u in recorder.urls())
    assert not until(harmed, timeout_s=0.5), "waited for half a second: it never comes"


def test_an_answer_that_is_not_html_text_or_a_page_without_vocabulary_is_refused(blank, dist_dir):
    vocabulary = config(dist_dir)["vocabulary"]
    said = blank.evaluate("""([vocabulary]) => [[null, vocabulary], [7, vocabulary], ["<p>x</p>", undefined]]
      .map(([html, v]) => { try { WtInert.inert(html, v); return "accepted"; } catch (e) { return e.message; } })""",
                          [vocabulary])
    assert said == ["it is null, not HTML text", "it is number, not HTML text",
                    "this page's build has no vocabulary to check it against"]


def test_a_handler_or_an_odd_name_is_refused_whatever_the_vocabulary_says(blank, dist_dir):
    """A vocabulary that let on* in (a bad build) still refuses it; a name is allowed only as it is listed."""
    vocabulary = config(dist_dir)["vocabulary"]
    lax = {**vocabulary, "attributes": [*vocabulary["attributes"], "onerror"]}
    outcomes = checked(blank, [f'<p onerror="{RUN}">x</p>', '<p data-a"b="1">x</p>'], lax)
    assert outcomes == [{"refused": "it has an onerror attribute"}, {"refused": 'it has a data-a"b attribute'}]


def test_the_harness_sees_what_inert_keeps_out(blank, recorder):
    """The checks above could fail: hostile strings inserted as they stand run a script and load files."""
    hostile = f'<img src=x onerror="{RUN}"><svg><image href="{EVIL}/i.png"/></svg>'
    blank.evaluate("(html) => { document.body.innerHTML = html; }", hostile)
    blank.wait_for_function("window.__pwned === 1")
    urls = [u for u in recorder.urls() if not u.endswith(BLANK)]
    assert any(u.endswith("/x") for u in urls) and any(u.startswith(EVIL) for u in urls), urls
