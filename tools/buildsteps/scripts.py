"""The page's JS: site/ ES modules bundled by the pinned esbuild."""
from __future__ import annotations

from .base import ROOT, SITE, BuildError, run

ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"  # npm esbuild, pinned (with its platform binary) by package-lock
# The page's script: site/main.js and the ES modules it imports, as one classic script for <head> (bundle()).
PAGE_SCRIPT = "wt.js"


def bundle(entry: str, what: str, module: bool = False) -> bytes:
    """site/ENTRY and the ES modules it imports as one script, headed by a line naming its source: a classic
    one (esbuild, IIFE), or with MODULE an ES module that exports nothing (strict either way, so it runs alike
    as a module and as a script)."""
    if not ESBUILD.is_file():
        raise BuildError(f"{ESBUILD.relative_to(ROOT)} is missing: run npm ci (esbuild bundles the page's modules)")
    banner = f"// weighttying: {what}, site/{entry} and its imports bundled by build.py (esbuild); read the sources there."
    strict = '"use strict"; ' if module else ""  # a module is strict; the same bytes run as a script must be too
    cmd = [str(ESBUILD), str(SITE / entry), "--bundle", f"--format={'esm' if module else 'iife'}", "--log-level=warning",
           f"--banner:js={strict}{banner}"]
    return run(cmd, f"bundling site/{entry} (esbuild)").stdout.encode()
