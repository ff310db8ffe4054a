"""What the code cites travels with it: no comment, docstring or doc points at "issue N" of a tracker this repository
does not carry; it says the reason itself. An upstream project's numbered thread (pyodide#5195, a WebKit bug) is
a public source and stays."""
from __future__ import annotations

import re
import subprocess

from harness import ROOT

TRACKER = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
SELF = "tests/test_citations.py"
TEXT = (".py", ".js", ".mjs", ".css", ".html", ".md", ".sh", ".toml", ".json")


def tracked_text_files() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # this file's examples are the forms it looks for
    return [p for p in out.splitlines() if (p.endswith(TEXT) or p in ("dev", ".ci/run")) and p != SELF]


def citations(text: str) -> list[str]:
    """Each line of TEXT that points at a numbered issue of no named project."""
    return [line.strip() for line in text.splitlines() if TRACKER.search(line)]


def test_the_pattern_finds_the_forms_that_were_written():
    said = ["controls (issue 18). */", "<= 2 s (issue 41's); the JSON", "# issue 12: \"compressed\"",
            "the lines issues 27 and 28 measure", "(issue #7)"]
    assert all(citations(line) for line in said)
    assert not citations("Pyodide 0.27 cannot snapshot (pyodide#5195); bugs.webkit.org 282790; an issue of speed")


def test_no_file_cites_an_issue_number():
    found = {}
    for path in tracked_text_files():
        hits = citations((ROOT / path).read_text(errors="replace"))
        if hits:
            found[path] = hits[:3]
    assert not found, f"say the reason instead of the issue's number: {found}"
