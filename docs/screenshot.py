#!/usr/bin/env python3
"""Screenshots of the real build: any section at 1280 or 360 px, in projector mode, or printed.

    .venv/bin/python build.py && .venv/bin/python docs/screenshot.py [--dist dist] [--query ...] [--section ID]
        [--phone | --projector | --print [--pdf-page N]] [--out FILE]

Serves DIST with its own serve.py, opens it in headless Chromium ($WT_CHROMIUM or /usr/bin/chromium),
waits until the live lab is ready, scrolls to a section's heading (--section, default the sweep; "" for the
top of the page) and saves a PNG, palette-reduced with Pillow to stay under 200 kB:
- default: 1280 px wide, the README's picture (docs/screenshot.png);
- --phone: a 360 px touch screen (Chromium's mobile emulation, 2 device pixels per CSS px), the section
  stacked in one column, from its heading down two screens (docs/screenshot-phone.png);
- --projector: the same page with ?projector=1 at 1280 px (docs/screenshot-projector.png);
- --print: the page printed to PDF (A4, as a reader's "Save as PDF"), page N (default: the one where the
  section starts) rendered to PNG by pdftoppm (poppler-utils) (docs/screenshot-print.png).
Regenerate the four whenever the look changes; docs/ keeps them.
"""
from __future__ import annotations

import argparse
import io
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDTH, HEIGHT = 1280, 1100
# A phone: its screen in CSS px, as Chromium's mobile emulation takes it, and how much of the page to keep.
PHONE = {"viewport": {"width": 360, "height": 760}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
PHONE_HEIGHT = 1500
MAX_BYTES = 200_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def booted(p, url: str, screen: dict):
    """(browser, page) of the live page at url, ready and settled."""
    browser = p.chromium.launch(executable_path=os.environ.get("WT_CHROMIUM", "/usr/bin/chromium"),
                                args=["--no-sandbox", "--disable-gpu"], headless=True)
    page = browser.new_context(**screen, color_scheme="light").new_page()
    page.goto(url)
    page.wait_for_selector("html[data-wt-status=ready]", state="attached", timeout=180_000)
    page.wait_for_timeout(1500)  # the live panes settle a frame or two after the embed
    return browser, page


def top_of(page, section: str) -> float:
    """The document y of a section's top (0 for the page's)."""
    return page.evaluate("(id) => { const el = id && document.getElementById(id);"
                         " return el ? el.getBoundingClientRect().top + scrollY - 8 : 0; }", section)


def shoot(url: str, query: str, section: str, phone: bool = False) -> bytes:
    """PNG bytes of the live page at URL?QUERY, from SECTION's top (or the page's), on a desktop or a phone."""
    from playwright.sync_api import sync_playwright

    screen = PHONE if phone else {"viewport": {"width": WIDTH, "height": HEIGHT}}
    width, height = screen["viewport"]["width"], PHONE_HEIGHT if phone else HEIGHT
    with sync_playwright() as p:
        browser, page = booted(p, url + (f"?{query}" if query else ""), screen)
        y = top_of(page, section)
        page.set_viewport_size({"width": width, "height": int(y) + height})
        page.wait_for_timeout(500)
        png = page.screenshot(clip={"x": 0, "y": y, "width": width, "height": height})
        browser.close()
    return png


def printed(url: str, query: str, section: str, pdf_page: int | None) -> bytes:
    """PNG bytes of one A4 page of the live page printed to PDF: pdf_page, or the one SECTION starts on."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser, page = booted(p, url + (f"?{query}" if query else ""), {"viewport": {"width": WIDTH, "height": HEIGHT}})
        page.emulate_media(media="print")
        heading = page.evaluate("(id) => { const h = id && document.querySelector(`#${id} h2`)?.cloneNode(true);"
                                " h?.querySelector('.wt-anchor')?.remove(); return h ? h.textContent : ''; }", section)
        pdf = page.pdf(format="A4", margin={"top": "1cm", "bottom": "1cm", "left": "1cm", "right": "1cm"})
        browser.close()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "page.pdf").write_bytes(pdf)
        n = pdf_page or starts_on(tmp, heading)
        subprocess.run(["pdftoppm", "-png", "-r", "110", "-f", str(n), "-l", str(n), "-singlefile",
                        "page.pdf", "out"], cwd=tmp, check=True)
        return (Path(tmp) / "out.png").read_bytes()


def starts_on(folder: str, heading: str) -> int:
    """The printed page (1-based) whose text first holds HEADING (pdftotext, poppler-utils); 1 without one."""
    text = subprocess.run(["pdftotext", "page.pdf", "-"], cwd=folder, check=True, capture_output=True, text=True).stdout
    words = " ".join(heading.split())
    pages = [" ".join(p.split()) for p in text.split("\f")]
    return next((i + 1 for i, p in enumerate(pages) if words and words in p), 1)


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
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--phone", action="store_true", help="a 360 px touch screen (default --out docs/screenshot-phone.png)")
    kind.add_argument("--projector", action="store_true", help="?projector=1 at 1280 px (docs/screenshot-projector.png)")
    kind.add_argument("--print", action="store_true", help="a printed A4 page (docs/screenshot-print.png; needs pdftoppm)")
    ap.add_argument("--pdf-page", type=int, help="with --print: this page of the PDF (default: where the section starts)")
    ap.add_argument("--out", type=Path, help="where to write (default docs/screenshot.png)")
    args = ap.parse_args()
    name = "phone" if args.phone else "projector" if args.projector else "print" if args.print else ""
    args.out = args.out or ROOT / "docs" / (f"screenshot-{name}.png" if name else "screenshot.png")
    if args.projector:
        args.query = "&".join(q for q in (args.query, "projector=1") if q)
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
        png = shrink(printed(url, args.query, args.section, args.pdf_page) if args.print
                     else shoot(url, args.query, args.section, args.phone))
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
