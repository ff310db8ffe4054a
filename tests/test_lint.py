"""The Python side's linter, in ./dev test beside eslint (tests/test_node.py): ruff, pinned in
requirements-dev.txt, with the rules of ruff.toml, over every Python file of the project."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness import ROOT

PATHS = ("py", "tests", "bench", "tools", "build.py", "docs")


def test_ruff_finds_nothing():
    ruff = Path(sys.executable).with_name("ruff")
    assert ruff.is_file(), f"{ruff} is missing: ./dev installs it from requirements-dev.txt"
    proc = subprocess.run([str(ruff), "check", "--no-cache", "--output-format", "concise", *PATHS],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_ruff_reads_the_projects_config():
    # a ruff.toml it did not read would lint with ruff's defaults and pass on what the project means to catch
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run([str(ruff), "check", "--show-settings", "build.py"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and str(ROOT / "ruff.toml") in proc.stdout, proc.stdout[:2000] + proc.stderr
