"""The page's one compile of Python's runtime (site/runtime.js), in headless Chromium: a page off its playback grid
starts both kinds of worker, and each instantiates the module the page compiled, once, from the checked wasm; a
page whose own compile fails hands each worker null, and each compiles its own checked copy and goes live as before.
The classroom file: its first worker compiles its own, and the one after it takes that module. (That a modified or
missing wasm is still named is test_browser_robust_assets.py's and test_browser_classroom.py's; the stand-ins and the
modules the classroom file refuses: runtime.test.mjs.)
"""
from __future__ import annotations

import pytest

from harness import Recorder, new_context, until, wait_booted
from test_browser_classroom import FileRecorder, classroom  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser
OFF_GRID = "embed=sweep&sweep.sigma=0.0123"  # a numerics worker answers it, then the Panel worker takes over
RUNTIMES_JS = "() => self.__wtWorker && self.__wtWorker.runtime"
# The page's own compile refused, as a browser refuses it where the page's CSP has no 'wasm-unsafe-eval'
NO_COMPILE = "WebAssembly.compileStreaming = () => Promise.reject(new WebAssembly.CompileError('refused here'));"


def runtimes(browser, url: str, init: tuple[str, ...] = (), recorder: Recorder | None = None) -> list[str]:
    """Where each worker of the page at URL?OFF_GRID, once live and its numerics worker up, took its runtime module
    from, in the order they started (the numerics worker first)."""
    ctx = new_context(browser, recorder or Recorder(), init_js=init)
    try:
        page = ctx.new_page()
        page.goto(f"{url}?{OFF_GRID}", wait_until="domcontentloaded")
        wait_booted(page)
        assert until(lambda: page.evaluate("__wt.pool.boots.some((b) => b.ready)"), timeout_s=60), "no numerics worker"
        return [w.evaluate(RUNTIMES_JS) for w in page.workers]
    finally:
        ctx.close()


def test_every_worker_instantiates_the_pages_one_compile(browser, server):
    assert runtimes(browser, server.url) == ["page", "page"]


def test_a_page_whose_compile_fails_lets_each_worker_compile_its_own(browser, server):
    assert runtimes(browser, server.url, (NO_COMPILE,)) == ["own", "own"]


def test_in_the_classroom_file_the_second_worker_takes_the_module_the_first_compiled(browser, classroom):  # noqa: F811  (the fixture imported above)
    assert runtimes(browser, classroom.as_uri(), recorder=FileRecorder()) == ["own", "page"]
