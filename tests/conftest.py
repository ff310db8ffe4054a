"""The fixtures over tests/harness.py: the built site (dist_dir), a server for it, headless Chromium, a
request recorder, and live_page(), the one factory of a module's shared booted page.

Environment:
  WT_DIST=DIR      use DIR as the built site and do not build (./dev test sets it after building)
  WT_CHROMIUM=BIN  the Chromium to drive (default /usr/bin/chromium)
  CI=true          a test that skips is reported as a failure (browser tests must run in CI)
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness import (CHROMIUM_ARGS, DEFAULT_CHROMIUM, ROOT, Recorder, chromium_path, dist_is_stale, new_context,
                     recorded, serve, wait_boot_end, wait_booted)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


# --------------------------------------------------------------------------------------------
# CI: no silent skips. A skipped test in CI is turned into a failure that says why it skipped.
# --------------------------------------------------------------------------------------------
def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives headless Chromium against the built dist/")
    config.addinivalue_line("markers", "node: runs weighttying under Pyodide in Node")
    config.addinivalue_line("markers", "allow_skip_in_ci: this test may skip even when CI=true")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and in_ci() and not hasattr(rep, "wasxfail") and not item.get_closest_marker("allow_skip_in_ci"):
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        rep.outcome = "failed"
        rep.longrepr = f"skipped under CI=true, which is not allowed: {reason}"




def run_build(timeout: float = 1200) -> None:
    """python build.py, failing the session with its output if it fails."""
    proc = subprocess.run(
        [sys.executable, "build.py"], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        pytest.fail(
            f"build.py failed (exit {proc.returncode})\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def dist_dir() -> Path:
    """The built site: $WT_DIST as is, else ROOT/dist, built once per session if missing or stale."""
    env = os.environ.get("WT_DIST")
    if env:
        dist = Path(env).resolve()
        if not (dist / "index.html").is_file():
            pytest.fail(f"WT_DIST={env} has no index.html", pytrace=False)
        return dist
    dist = ROOT / "dist"
    why = dist_is_stale(dist)
    if why:
        print(f"[conftest] building dist/: {why}", file=sys.stderr)
        run_build()
        why = dist_is_stale(dist)
        if why:
            pytest.fail(f"build.py succeeded but dist/ is still not usable: {why}", pytrace=False)
    return dist



@pytest.fixture(scope="session")
def server(dist_dir, tmp_path_factory):
    """dist/ served by its own serve.py on 127.0.0.1 (free port) for the whole session."""
    with serve(dist_dir, log_dir=tmp_path_factory.mktemp("serve")) as s:
        yield s



# Module scope, not session: while Playwright's sync API is running it leaves an asyncio loop
# running on the main thread, and asyncio.run() in later, unrelated test modules would fail.
@pytest.fixture(scope="module")
def playwright_instance():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:  # pragma: no cover - the venv has it
        pytest.fail(f"the playwright package is not installed: {e}", pytrace=False)
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_instance):
    """Headless Chromium from the machine (never a Playwright download)."""
    exe = chromium_path()
    if exe is None:
        msg = f"no Chromium at {os.environ.get('WT_CHROMIUM') or DEFAULT_CHROMIUM} (set WT_CHROMIUM)"
        if in_ci():
            pytest.fail(msg + ": browser tests must run in CI", pytrace=False)
        pytest.skip(msg)
    b = playwright_instance.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
    try:
        yield b
    finally:
        b.close()



@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def context(browser, recorder):
    """A fresh browser context (fresh profile, cold cache) per test, with the recorder attached."""
    ctx = new_context(browser, recorder)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context):
    return context.new_page()


@dataclass
class Live:
    """A booted page shared by a module's tests, with its recorder, the server, boot_info() once the boot
    ended, and what EARLY_JS returned before the boot (the page as a reader sees it before Python). Anything
    else is the page's: live.locator(...) is live.page.locator(...)."""
    page: object
    rec: Recorder
    server: object
    info: dict = field(default_factory=dict)
    early: object = None

    def __getattr__(self, name):
        return getattr(self.page, name)


def live_page(query: str = "", early_js: str | None = None, must_boot: bool = True):
    """A module-scoped fixture: one fresh context on SERVER/?QUERY, booted (must_boot=False: the boot may
    also end failed; the test reads live.info), shared by the tests of the module that assigns it."""
    @pytest.fixture(scope="module")
    def live(browser, server):
        rec = Recorder()
        ctx, page = recorded(browser, rec)
        try:
            page.goto(server.url + (f"?{query}" if query else ""), wait_until="domcontentloaded")
            early = page.evaluate(early_js) if early_js else None
            info = wait_booted(page) if must_boot else wait_boot_end(page)
            yield Live(page, rec, server, info, early)
        finally:
            ctx.close()
    return live
