#!/usr/bin/env python3
"""Regenerate docs/screenshot.png (the README's picture) and docs/screenshot-phone.png from the real build.

    .venv/bin/python build.py && .venv/bin/python docs/screenshot.py [--dist dist] [--query ...] [--phone]

Serves DIST with its own serve.py, opens it in headless Chromium ($WT_CHROMIUM or /usr/bin/chromium),
waits until the live lab is ready, scrolls to a section's heading (--section, default the sweep:
prose, live widgets and plots in one view; --section "" for the top of the page), and saves a
1000 px wide PNG, palette-reduced with Pillow to stay well under 200 kB. --phone shoots the same on a
360 px touch screen (Chromium's mobile emulation, 2 device pixels per CSS px): the live section
stacked in one column, the help behind its "?", from its heading down two screens.
"""
from __future__ import annotations

import argparse
import io
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDTH, HEIGHT = 1000, 1180
# A phone: its screen in CSS px, as Chromium's mobile emulation takes it, and how much of the page to keep.
PHONE = {"viewport": {"width": 360, "height": 760}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
PHONE_HEIGHT = 1500
MAX_BYTES = 200_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shoot(url: str, query: str, section: str, phone: bool = False) -> bytes:
    """PNG bytes of the live page at URL?QUERY, from SECTION's top (or the page's), on a desktop or a phone."""
    from playwright.sync_api import sync_playwright

    screen = PHONE if phone else {"viewport": {"width": WIDTH, "height": HEIGHT}}
    width, height = screen["viewport"]["width"], PHONE_HEIGHT if phone else HEIGHT
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("WT_CHROMIUM", "/usr/bin/chromium"),
                                    args=["--no-sandbox", "--disable-gpu"], headless=True)
        page = browser.new_context(**screen, color_scheme="light").new_page()
        page.goto(url + (f"?{query}" if query else ""))
        page.wait_for_selector("html[data-wt-status=ready]", state="attached", timeout=180_000)
        page.wait_for_timeout(1000)  # the live panes settle a frame or two after the embed
        y = page.evaluate("(id) => { const el = id && document.getElementById(id);"
                          " return el ? el.getBoundingClientRect().top + scrollY - 8 : 0; }", section)
        page.set_viewport_size({"width": width, "height": int(y) + height})
        page.wait_for_timeout(500)
        png = page.screenshot(clip={"x": 0, "y": y, "width": width, "height": height})
        browser.close()
    return png


def shrink(png: bytes) -> bytes:
    """The same picture with a 128-colour palette (text and flat plots survive it unchanged to the eye)."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(128, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", type=Path, default=ROOT / "dist", help="the built site (default dist/)")
    ap.add_argument("--query", default="sweep.sigma=0.227&sweep.in_scale=4.5&sweep.grid=fine",
                    help="URL query of the state to show (default: the sweep's 'both near 1' preset)")
    ap.add_argument("--section", default="sweep", help="id of the section to show at the top ('' = page top)")
    ap.add_argument("--phone", action="store_true", help="a 360 px touch screen (default --out docs/screenshot-phone.png)")
    ap.add_argument("--out", type=Path, help="where to write (default docs/screenshot.png)")
    args = ap.parse_args()
    args.out = args.out or ROOT / "docs" / ("screenshot-phone.png" if args.phone else "screenshot.png")
    if not (args.dist / "index.html").is_file():
        sys.exit(f"{args.dist} has no index.html: run build.py first")
    port = free_port()
    server = subprocess.Popen([sys.executable, "serve.py", "--bind", "127.0.0.1", "--port", str(port)],
                              cwd=args.dist, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/"
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        png = shrink(shoot(url, args.query, args.section, args.phone))
    finally:
        server.terminate()
        server.wait(5)
    if len(png) > MAX_BYTES:
        sys.exit(f"the screenshot is {len(png)} bytes, over {MAX_BYTES}: not written")
    args.out.write_bytes(png)
    print(f"wrote {args.out} ({len(png) // 1000} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
