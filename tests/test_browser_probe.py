"""A section is one declaration: the test-only section `probe` (tests/sections/probe.py declares it and its State, a
number and a free text; probe_view.py is its view; probe.html its prose; this file its tests) goes through all a
page section does, in a test build (build.py --with-test-sections probe) that the real page never shows:

- it builds, prerenders and plays back: its number answers before Python, from its playback table;
- it goes live through the generic live section (it has no app module): the number and the free text answer live,
  and the free text never enters the URL;
- the page-wide checks (phone, axe, the reader's) run for it over the test build, where the registry holds the
  probe (a pytest of their modules with $WT_TEST_SECTIONS set): phone's and axe's are parametrized by section,
  the reader's look at the probe's box on its own (its SCOPES);
- a missing part (any of its three files) stops the build with a message naming the file.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from harness import BOOT_TIMEOUT_S, ROOT, SECTIONS_DIR, probe_env, serve, type_played
from robust import session
from test_browser_player import VALUES_JS, python_requests

pytestmark = pytest.mark.browser

PAGE_WIDE = ("tests/test_browser_phone.py", "tests/test_browser_a11y.py", "tests/test_browser_reader.py")


@pytest.fixture(scope="module")
def probe_dist() -> Path:
    """The test build: $WT_PROBE_DIST as is, else built here into dist-probe/."""
    if os.environ.get("WT_PROBE_DIST"):
        return Path(os.environ["WT_PROBE_DIST"]).resolve()
    out = ROOT / "dist-probe"
    proc = subprocess.run([sys.executable, "build.py", "--with-test-sections", "probe", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, f"the test build failed:\n{proc.stderr[-4000:]}"
    return out


@pytest.fixture(scope="module")
def probe_server(probe_dist, tmp_path_factory):
    with serve(probe_dist, log_dir=tmp_path_factory.mktemp("serve-probe")) as s:
        yield s


def config(dist: Path) -> dict:
    html = (dist / "index.html").read_text()
    return json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>', html, re.S)[1])


def test_only_the_test_build_has_the_probe(dist_dir, probe_dist):
    real, probe = config(dist_dir), config(probe_dist)
    assert "probe" not in real["state"]["sections"] and 'id="live-probe"' not in (dist_dir / "index.html").read_text()
    assert probe["state"]["sections"] == [*real["state"]["sections"], "probe"]
    assert probe["test_sections"] == "probe" and real["test_sections"] == ""
    page = (probe_dist / "index.html").read_text()
    # the live box is the build's, around the prerender, inside the prose's <section>
    assert re.search(r'<section id="probe".*<div id="live-probe" class="wt-live" data-section="probe">'
                     r'<div class="wt-prerender">.*data-testid="probe-double" data-value="2.0".*</section>', page, re.S)
    assert "playback/probe.json" in json.dumps(probe["playback"])


def test_the_probe_plays_back_then_goes_live(browser, probe_server):
    with session(browser) as s:
        page = s.page
        type_played(page, probe_server.url + "?live=click", "probe", "n", "3.5")
        assert page.evaluate(VALUES_JS, "probe")["probe-double"] == "7.0"  # from the table, synchronously
        assert "probe.n=3.5" in urlsplit(page.url).query
        assert page.locator("#live-probe .wt-player textarea").count() == 1
        assert "once Python has loaded" in page.locator("#live-probe .wt-needs-python").inner_text()
        assert python_requests(s.rec) == [], "Python was requested before the button"

        page.locator("#wt-go").click()
        page.wait_for_selector("html[data-wt-status=ready]", timeout=BOOT_TIMEOUT_S * 1000)
        page.wait_for_function("() => document.querySelector('#live-probe[data-live=true]')", timeout=120_000)
        # the live section took the played-back number over, then answers both controls
        page.wait_for_function(f"() => ({VALUES_JS})('probe')['probe-double'] === '7.0'", timeout=60_000)
        text = page.locator("#live-probe textarea").first
        text.fill("one two three four")
        text.press("Tab")  # a text area's value is committed when it loses focus
        page.wait_for_function(f"() => ({VALUES_JS})('probe')['probe-words'] === '4'", timeout=60_000)
        assert "words" not in urlsplit(page.url).query and "probe.n=3.5" in urlsplit(page.url).query
        assert not s.rec.page_errors, s.rec.page_errors


def test_the_page_wide_checks_pass_with_the_probe(probe_dist):
    """tests/test_browser_phone.py, _a11y.py and _reader.py over the test build, where the registry holds the probe:
    every check parametrized by section or scoped to it, for the probe alone (-k probe: the real sections' own runs
    are the suite's)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", *PAGE_WIDE, "-k", "probe", "-q", "-rA", "-p", "no:cacheprovider"],
                          cwd=ROOT, env=probe_env(probe_dist), capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-6000:]
    for module in ("phone", "a11y", "reader"):
        assert re.search(rf"PASSED tests/test_browser_{module}.py::\S+\[(\S+-)?probe\]", proc.stdout), proc.stdout[-3000:]


@pytest.mark.parametrize("gone", ["probe.py", "probe_view.py", "probe.html"])
def test_a_missing_part_fails_the_build_naming_it(tmp_path, gone):
    shutil.copytree(SECTIONS_DIR, tmp_path / "sections", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "sections" / gone).unlink()
    code = ("import sys, build; from tools.buildsteps import sections; "
            "sections.TEST_SECTIONS_DIR = build.Path(sys.argv[1]); "
            "sys.exit(build.main(['--with-test-sections', 'probe', '--out', sys.argv[2]]))")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "sections"), str(tmp_path / "out")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stderr.startswith("build.py: error: a declared section is incomplete") and gone in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()
