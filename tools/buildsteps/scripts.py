"""The page's JS: site/ ES modules bundled into classic scripts by the pinned esbuild."""
from __future__ import annotations

from .base import ROOT, SITE, BuildError, run

ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"  # npm esbuild, pinned (with its platform binary) by package-lock
# The page's script: site/main.js and the ES modules it imports, as one classic script for <head> (bundle()).
PAGE_SCRIPT = "wt.js"


def bundle(entry: str, what: str, global_name: str = "") -> bytes:
    """site/ENTRY and the ES modules it imports as one classic script (esbuild, IIFE; GLOBAL_NAME: a global
    holding its exports), headed by a line naming its source."""
    if not ESBUILD.is_file():
        raise BuildError(f"{ESBUILD.relative_to(ROOT)} is missing: run npm ci (esbuild bundles the page's modules)")
    banner = f"// weighttying: {what}, site/{entry} and its imports bundled by build.py (esbuild); read the sources there."
    cmd = [str(ESBUILD), str(SITE / entry), "--bundle", "--format=iife", "--log-level=warning", f"--banner:js={banner}"]
    return run(cmd + ([f"--global-name={global_name}"] if global_name else []), f"bundling site/{entry} (esbuild)").stdout.encode()
