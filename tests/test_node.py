"""The JS side's own checks, in ./dev test: the unit tests under `node --test` (tests/node/*.test.mjs: the state
codec against tests/url_cases.json, the player, the build scheduler, the classroom unpacker, ..., over fixtures
the build's functions make, tests/node_fixtures.py, checked here to be current: no build) and the linter (npm eslint, pinned, eslint.config.mjs) over site/, tools/, bench/, tests/node/ and tests/*.mjs."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import node_fixtures
from harness import ROOT


def run(cmd: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("name", sorted(node_fixtures.FIXTURES))
def test_the_node_tests_fixtures_are_what_the_build_would_make_now(name):
    # the node tests read these instead of a build (tests/node/fixtures.mjs): a stale one would test the past
    fixture = node_fixtures.NODE / name
    assert fixture.read_bytes() == node_fixtures.FIXTURES[name](), (
        f"{fixture.relative_to(ROOT)} is not what the build's functions make now: rewrite it with "
        "`.venv/bin/python tests/node_fixtures.py`")


def test_node_unit_tests_pass():
    # from the fixtures alone (tests/node/fixtures.mjs): no build
    node = shutil.which("node")
    assert node, "node is not on PATH (./dev installs nodejs as root)"
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "node").glob("*.test.mjs"))
    assert len(tests) >= 4, tests  # state codec, player, scheduler, unpacker
    proc = run([node, "--test", *tests], {"WT_DIST": "/nonexistent", "WT_READOUT_CASES": ""})
    summary = "\n".join(line for line in proc.stdout.splitlines() if line.startswith(("# pass", "# fail", "not ok")))
    assert proc.returncode == 0, f"{summary}\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    print(summary)


def test_the_linter_passes():
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    assert eslint.is_file(), "npm ci installs eslint (package-lock pins it)"
    proc = run([str(eslint), "--max-warnings=0", "."])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
