"""The JS side's own checks, in ./dev test: the unit tests under `node --test` (tests/node/*.test.mjs: the state
codec against tests/url_cases.json over the built page's rules, the player, the build scheduler, the classroom
unpacker) and the linter (npm eslint, pinned, eslint.config.mjs) over site/, tools/, bench/, tests/node/ and tests/*.mjs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

from harness import ROOT


def run(cmd: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


# Node tests that need cases CPython writes first: their own pytest module runs them.
DRIVEN = {"readout.test.mjs": "tests/test_readout_js.py"}


def test_the_node_tests_rules_are_the_ones_python_emits():
    # tests/node/rules.json stands in for a build's config in the node tests of the state codec and the address bar
    from weighttying import prerender
    fixture = ROOT / "tests" / "node" / "rules.json"
    assert json.loads(fixture.read_text()) == json.loads(json.dumps(prerender.rules())), (
        f"{fixture.relative_to(ROOT)} is not what weighttying.prerender.rules() emits: rewrite it with "
        "json.dumps(prerender.rules(), indent=1, sort_keys=True)")


def test_node_unit_tests_pass(dist_dir):
    node = shutil.which("node")
    assert node, "node is not on PATH (./dev installs nodejs as root)"
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "node").glob("*.test.mjs") if p.name not in DRIVEN)
    assert len(tests) >= 4, tests  # state codec, player, scheduler, unpacker
    proc = run([node, "--test", *tests], {"WT_DIST": str(dist_dir)})
    summary = "\n".join(line for line in proc.stdout.splitlines() if line.startswith(("# pass", "# fail", "not ok")))
    assert proc.returncode == 0, f"{summary}\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    print(summary)


def test_the_linter_passes():
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    assert eslint.is_file(), "npm ci installs eslint (package-lock pins it)"
    proc = run([str(eslint), "--max-warnings=0", "."])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
