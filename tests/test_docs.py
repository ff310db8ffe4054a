"""The docs say what is: every file docs/DESIGN.md names exists, and the facts a test can check hold. No build,
no browser."""
from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "DESIGN.md"

# Not in the repository: folders of downloads, environments and what the build writes.
UNTRACKED = {".git", ".venv", ".cache", "node_modules", "dist", "__pycache__", "out"}
# Files the build writes into dist/ (named in the map, so not in the repository): each must be named by the build.
BUILT = ("results.json", "wt.js", "weighttying.html", "THIRD-PARTY-NOTICES.txt", "pyodide-lock.json",
         "playback/<id>.json")
BUILD_SOURCES = (ROOT / "build.py", *sorted((ROOT / "tools" / "buildsteps").glob("*.py")), ROOT / "tools" / "single_file.py",
                 ROOT / "py" / "weighttying" / "prebuilt.py")

# A file's name as prose or code names it: path segments (placeholders <id> and globs * allowed), an extension.
PATH = re.compile(r"(?<![\w./<>*-])((?:[\w.<>*-]+/)*[\w<>*-][\w.<>*-]*\.(?:py|js|mjs|html|css|json|md|txt|toml|ini))"
                  r"(?![\w/])")


def repository_files() -> list[str]:
    """Every file under the repository, as a posix path from its root, without UNTRACKED folders."""
    out = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in UNTRACKED]
        rel = Path(top).relative_to(ROOT)
        out += [(rel / f).as_posix() for f in files]
    return out


def exists(name: str, files: list[str]) -> bool:
    """Whether NAME (a path from any folder, or a bare file name; <placeholder> and * match anything) is a file."""
    pattern = re.sub(r"<[^>]*>", "*", name)
    if "/" not in pattern:
        return any(fnmatch.fnmatchcase(f.rsplit("/", 1)[-1], pattern) for f in files)
    return any(fnmatch.fnmatchcase(f, pattern) or fnmatch.fnmatchcase(f, "*/" + pattern) for f in files)


def missing_names(text: str, files: list[str]) -> list[str]:
    """The file names TEXT mentions that are neither in FILES nor written by the build."""
    return sorted({n for n in PATH.findall(text) if n.removeprefix("dist/") not in BUILT and not exists(n, files)})


def test_design_states_the_precision_the_package_carries():
    from weighttying import precision
    assert f"DIGITS = {precision.DIGITS}" in DESIGN.read_text(encoding="utf-8")


def test_every_file_design_names_exists():
    files = repository_files()
    missing = missing_names(DESIGN.read_text(encoding="utf-8"), files)
    assert not missing, f"docs/DESIGN.md names files the repository does not have: {missing}"


def test_the_built_files_it_names_are_the_builds():
    sources = "".join(p.read_text(encoding="utf-8") for p in BUILD_SOURCES)
    assert all(n.split("<")[0] in sources for n in BUILT), [n for n in BUILT if n.split("<")[0] not in sources]


def test_the_check_finds_a_stale_name():
    files = repository_files()
    text = ("The map names `py/weighttying/views/kit/slots.py`, `views/<id>.py`, tests/node/*.test.mjs and site/boot.js, "
            "and stale ones: `app/widgets.py`, site/startup.js, `views/<id>.css`.")
    assert missing_names(text, files) == ["app/widgets.py", "site/startup.js", "views/<id>.css"]
