"""The third-party notices of everything dist/ redistributes, each license read from its artifact."""
from __future__ import annotations

import json
import re
import tarfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from .archives import dist_info_of
from .base import ROOT, BuildError
from .fetch import Inputs

NOTICES = "THIRD-PARTY-NOTICES.txt"
# License files an artifact carries: PEP 639's dist-info/licenses/, the older dist-info/LICENSE*, or an sdist's top level.
LICENSE_FILE = re.compile(r"^[^/]+(\.dist-info/licenses/.+|\.dist-info/(LICEN[CS]E|COPYING|NOTICE|AUTHORS)[^/]*|/(LICEN[CS]E|COPYING|NOTICE)[^/]*)$", re.I)


def notices(inputs: Inputs) -> bytes:
    """The third-party notices of everything dist/ redistributes, each license taken from its artifact: a
    wheel's dist-info license files and METADATA, an sdist's license file and PKG-INFO, an npm package's
    license files and package.json."""
    parts = ["Third-party software in this site, with the license each one carries.\n",
             npm_notice(inputs.pins["npm"], "Pyodide"),
             notice(f"CPython {inputs.python.version}, inside Pyodide (pyodide.asm.wasm, python_stdlib.zip)", "PSF-2.0",
                    {"CPython's LICENSE": license_text("PSF-2.0")}),
             npm_notice(inputs.pins["npm_decoder"], "the brotli decoder of the classroom file"),
             *(npm_notice(spec, spec["package"]) for spec in bundled())]
    sources = {s.split(":", 1)[0] for s in inputs.pins["lock_wheels"]["sources"]}
    for name, path in sorted({**inputs.pypi, **{p.name: p for p in inputs.lock_wheels.values()}}.items()):
        if name in sources:
            parts.append(notice(name, "not redistributed", {}, f"only the wheels {', '.join(inputs.lock_wheels)} "
                                "are taken from it (their notices are listed under their own names)"))
        else:
            parts.append(notice(name, *artifact_license(path)))
    return "\n".join(parts).encode()


def npm_notice(spec: dict, what: str) -> str:
    """The notice of a pinned npm package: its package.json's license and the license files it ships, or the
    text of the license it names (pins/licenses/) when it ships none."""
    root = ROOT / "node_modules" / spec["package"]
    declared = json.loads((root / "package.json").read_text())["license"]
    texts = {p.name: p.read_text() for p in sorted(root.iterdir()) if re.match(r"(LICEN[CS]E|COPYING)", p.name, re.I)}
    title = f"{what} {spec['version']} (npm package {spec['package']}: {', '.join(spec['files'])})"
    return notice(title, declared, texts or {f"{declared} (named in its package.json; the package ships no license "
                                             f"file)": license_text(declared)})


BUNDLED = "@codemirror/"  # the page's own npm dependencies that esbuild bundles into wt.js: these and what they need


def bundled() -> list[dict]:
    """npm_notice's spec of every package esbuild bundles into wt.js: package.json's BUNDLED dependencies and,
    through package-lock.json, everything they depend on."""
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    todo = [n for n in json.loads((ROOT / "package.json").read_text())["dependencies"] if n.startswith(BUNDLED)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += lock[f"node_modules/{name}"].get("dependencies", {})
    return [{"package": n, "version": lock[f"node_modules/{n}"]["version"], "files": ["wt.js, the code lab's editor"]}
            for n in sorted(seen)]


def notice(what: str, declared: str, texts: dict[str, str], note: str = "") -> str:
    """One artifact's entry: "Artifact:" and "License:" lines, a note, then each license text under "--- <file>"."""
    body = "".join(f"\n--- {where}\n\n{text.strip()}\n" for where, text in texts.items())
    return f"{'_' * 100}\nArtifact: {what}\nLicense: {declared}\n{note + chr(10) if note else ''}{body}"


def license_text(spdx: str) -> str:
    path = ROOT / "pins" / "licenses" / f"{spdx}.txt"
    if not path.is_file():
        raise BuildError(f"no license text for {spdx}: add it as {path.relative_to(ROOT)} (pins/licenses/README.md)")
    return path.read_text()


def artifact_license(path: Path) -> tuple[str, dict[str, str]]:
    """(declared license, {member: license text}) of a wheel or an sdist, from the artifact itself."""
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as t:
            names = [m.name for m in t.getmembers() if m.isfile()]

            def read(n: str) -> bytes:
                return t.extractfile(n).read()
            meta = next(n for n in names if n.count("/") == 1 and n.endswith("/PKG-INFO"))
            texts = {n: read(n).decode(errors="replace") for n in names if LICENSE_FILE.match(n)}
            headers = HeaderParser().parsestr(read(meta).decode(errors="replace"))
    else:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            texts = {n: z.read(n).decode(errors="replace") for n in names if LICENSE_FILE.match(n)}
            headers = HeaderParser().parsestr(z.read(f"{dist_info_of(names)}/METADATA").decode(errors="replace"))
    classifiers = [c.split(" :: ")[-1] for c in headers.get_all("Classifier") or [] if c.startswith("License ::")]
    field = (headers.get("License") or "").strip()  # some projects put the whole text here: then the classifiers say it
    declared = headers.get("License-Expression") or (field if "\n" not in field else "") or "; ".join(classifiers)
    if not texts:
        raise BuildError(f"{path.name} carries no license file (dist-info/licenses/, LICENSE*, COPYING*): "
                         f"its notice cannot be written")
    return declared.strip() or "see the text below", dict(sorted(texts.items()))
