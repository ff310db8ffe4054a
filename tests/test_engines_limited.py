"""Old or limited engines: a browser lacking what the live lab needs is told which feature is missing, Python
is not started, and the rest keeps working. Each feature is removed in turn by a script run before the
page's own (Chromium and Firefox; WebDriver classic, WebKit's, cannot run one):

  served site        WebAssembly, BigInt64Array, Worker: the note names it; a playback slider still answers
  classroom file     the same, with playback too; DecompressionStream, crypto.subtle, URL.createObjectURL
                     (what unpacking the file's own parts needs): the note names it, the text and the
                     prerendered figures read

One engine alone: `pytest tests/test_engines_limited.py -k firefox`.
"""
from __future__ import annotations

import pytest

import engines
from test_engines import BOOT_END_JS, classroom, engine_fixture, play_before_python  # noqa: F401 (classroom: a fixture)

pytestmark = pytest.mark.browser

# feature as the note names it -> the script that removes it
LIVE_NEEDS = {
    "WebAssembly": "delete globalThis.WebAssembly;",
    "BigInt64Array (WebAssembly's 64-bit integers)": "delete globalThis.BigInt64Array;",
    "Web Workers": "delete globalThis.Worker;",
}
FILE_NEEDS = {
    "DecompressionStream": "delete globalThis.DecompressionStream;",
    "Web Crypto (crypto.subtle)": "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});",
    "blob: URLs": "delete URL.createObjectURL;",
}
CASES = [(f, "served") for f in LIVE_NEEDS] + [(f, "file") for f in (*LIVE_NEEDS, *FILE_NEEDS)]


engine = engine_fixture([e for e in engines.ENGINES if e != "webkit"])


# Playwright's own page.evaluate uses BigInt64Array: in Chromium that removal is left to Firefox's run.
DRIVER_NEEDS = {"chromium": {"BigInt64Array (WebAssembly's 64-bit integers)"}}


@pytest.mark.allow_skip_in_ci  # only the DRIVER_NEEDS pairs skip; a missing engine fails in CI (engine_or_skip)
@pytest.mark.parametrize("feature,where", CASES, ids=[f"{w}-{f.split()[0]}" for f, w in CASES])
def test_a_missing_feature_is_named_and_the_page_keeps_working(engine, server, classroom, feature, where):  # noqa: F811  (the fixture imported above)
    if feature in DRIVER_NEEDS.get(engine.name, ()):
        pytest.skip(f"{engine.name}'s driver needs {feature} itself")
    url = server.url if where == "served" else classroom.as_uri()
    page = engine.open(url, init_js=(LIVE_NEEDS | FILE_NEEDS)[feature])
    try:
        if feature in LIVE_NEEDS:  # playback needs none of the live lab's features
            played = play_before_python(page)
            assert played["changed"] and not played["bad"], played
        end = page.wait(BOOT_END_JS, timeout=60)
        assert end["status"] == "failed", end
        box = page.js("""() => ({shown: !document.getElementById('wt-error').hidden,
            kind: document.getElementById('wt-error').dataset.kind, msg: document.getElementById('wt-error-msg').textContent})""")
        assert box["shown"] and box["kind"] == "unsupported", box
        assert f"lacks {feature}" in box["msg"], box
        assert page.js("() => window.__wt.missing") == feature
        assert not page.js("() => window.__wt.worker"), "a worker was started"
        assert page.js("() => !!document.querySelector('#live-sweep .wt-prerender svg')"), "the figure is gone"
        assert page.refused() == [], page.refused()
    finally:
        page.close()
