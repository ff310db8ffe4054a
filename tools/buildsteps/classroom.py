"""Stage classroom: weighttying.html, the whole site in one file that runs from disk (tools/single_file.py)."""
from __future__ import annotations

import sys

from . import base
from .assemble import page
from .base import ROOT, BuildError, log, sha256
from .compress import brotlied
from .fetch import Inputs
from .scripts import PAGE_SCRIPT, bundle


def classroom(inputs: Inputs, files: dict[str, bytes], config: dict, html: str) -> dict[str, bytes]:
    """weighttying.html, the whole site in one file that runs opened from disk (tools/single_file.py), and
    weighttying.html.sha256 (`sha256sum -c` format) for checking a copy; the build log prints the sha256 too."""
    sys.path.insert(0, str(ROOT))
    from tools import single_file

    sources = {"style.css": files["style.css"].decode(), PAGE_SCRIPT: files[PAGE_SCRIPT].decode(),
               single_file.GUARD: bundle(single_file.GUARD, "the classroom file's guard").decode()}
    decoder = {name: path.read_bytes() for name, path in inputs.decoder.items()}
    try:
        out = single_file.single_file(lambda info, csp: page(html, info, csp), config, files, sources, decoder, brotlied)
    except ValueError as e:
        raise BuildError(f"{single_file.NAME}: {e}") from e
    digest = sha256(out)
    log(f"{base.DIST / single_file.NAME}: {len(out) / 1e6:.1f} MB, sha256 {digest}")
    return {single_file.NAME: out, f"{single_file.NAME}.sha256": f"{digest}  {single_file.NAME}\n".encode()}
