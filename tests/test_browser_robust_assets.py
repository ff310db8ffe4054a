"""Failed assets and tampered files.

Blocked in turn (Playwright routing aborts one URL): every file a clean boot asked for (found by
recording that boot, so new files are covered without editing this list): the page's stylesheet
and scripts, worker.js, the runtime (pyodide.js / .asm.js / .asm.wasm / python_stdlib.zip), the lock,
every wheel, BokehJS and Panel's JS and CSS. One page walks the whole chain: with file N blocked the
boot fails (or, for a stylesheet, the page says it is missing), the message names file N, the
prerendered page stays readable; then file N is let through, file N+1 blocked and Retry clicked: the
retry gets past N (it now fails on N+1), so Retry works once the file is back. The chain ends with
nothing blocked: Retry boots the lab.

Tampered: a copy of dist/ with one byte changed in a wheel, in each runtime file and in the lock;
the boot refuses it and names the file (Pyodide checks wheels against the lock's sha256; worker.js
checks the runtime files and the lock against the sha256 build.py wrote into the page).
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import BOOT_TIMEOUT_S, serve
from robust import error_box, session, wait_boot_over, wait_status

pytestmark = pytest.mark.browser

NOT_ASSETS = ("/", "/index.html", "/favicon.ico")


def names(file: str, message: str) -> bool:
    """MESSAGE names FILE: its name, or for a wheel its project (as Pyodide spells it, - or _)."""
    norm = lambda t: t.lower().replace("_", "-")
    return norm(file) in norm(message) or (file.endswith(".whl") and norm(file.split("-")[0]) in norm(message))


def page_level(path: str) -> bool:
    """A file the document itself loads (not the boot): a stylesheet, or a script of the page's own."""
    return path.endswith(".css") or (path.endswith(".js") and path.count("/") == 1 and path != "/worker.js")


def page_script(path: str) -> bool:
    """A script boot.js adds to the page (BokehJS, Panel): once it ran, a retry does not ask for it again."""
    return path.startswith("/static/") and path.endswith(".js")


def readable(page, live_ok: bool = False) -> None:
    """The prerendered page is there and visible: every section's heading and its static content."""
    sids = page.evaluate("() => [...document.querySelectorAll('main section[id]')].map((e) => e.id)")
    assert sids, "no sections on the page"
    for sid in sids:
        assert page.locator(f"#{sid} h2").first.is_visible(), f"section {sid} heading not visible"
        live = page.locator(f"#live-{sid}")
        if live.count() and not live_ok:
            assert live.get_attribute("data-live") != "true"
            assert page.locator(f"#live-{sid} .wt-prerender").count() == 1, f"#live-{sid} lost its prerendered content"


def test_each_asset_blocked_in_turn(browser, server):
    blocked: set[str] = set()
    with session(browser) as s:
        def route(r):
            path = urlsplit(r.request.url).path
            if path in blocked:
                r.abort("failed")
            else:
                r.continue_()
        s.ctx.unroute("**/*")
        s.ctx.route("**/*", route)
        page = s.page
        page.goto(server.url)
        wait_status(page, "ready")
        assets = sorted({urlsplit(u).path for _, u, _ in s.rec.requests if urlsplit(u).path not in NOT_ASSETS},
                        key=lambda p: (not page_level(p), not page_script(p), p))  # files of the document first
        assets.remove("/boot.js")  # without boot.js nothing can speak: tested below
        kinds = {"runtime": [a for a in assets if re.search(r"/pyodide(\.asm)?\.(js|wasm)$|python_stdlib", a)],
                 "lock": [a for a in assets if a.endswith("pyodide-lock.json")],
                 "wheels": [a for a in assets if a.endswith(".whl")],
                 "css": [a for a in assets if a.endswith(".css")],
                 "js": [a for a in assets if a.startswith("/static/") and a.endswith(".js")]}
        assert len(kinds["runtime"]) == 4 and kinds["lock"] and len(kinds["wheels"]) >= 10 and kinds["css"] \
            and len(kinds["js"]) >= 4 and "/worker.js" in assets, kinds
        results = []
        for i, asset in enumerate(assets):
            blocked.clear()
            blocked.add(asset)
            if i == 0 or (page_script(asset) and page_script(assets[i - 1])):
                # A fresh document: stylesheets are fetched, not reused, and scripts that already ran are not
                # asked for again (the step after the last one shows that Retry fetches a failed script).
                page.goto(server.url)
            elif error_box(page)["kind"] == "asset":
                with page.expect_navigation():
                    page.locator("#wt-retry").click()  # after a file of the page failed, Retry reloads
            else:
                page.locator("#wt-retry").click()
            name = asset.rsplit("/", 1)[1]
            print(f"[assets] blocking {asset}", flush=True)
            page.wait_for_selector("html[data-wt-status=failed], #wt-error[data-kind=asset]:not([hidden])",
                                   state="attached", timeout=BOOT_TIMEOUT_S * 1000)
            box = error_box(page)
            if not page_level(asset):
                assert page.evaluate("() => window.__wt.status") == "failed", f"{asset} blocked: {box}"
            readable(page, live_ok=page_level(asset))
            assert box["shown"] and box["retry"], f"{asset}: {box}"
            assert names(name, box["message"]), f"{asset} blocked: the message does not name it: {box['message']!r}"
            assert "Traceback" not in box["message"] and len(box["message"]) < 600, box["message"]
            assert page.locator("#wt-error").get_attribute("role") == "alert"
            results.append((asset, box["message"]))
        blocked.clear()
        page.locator("#wt-retry").click()
        wait_status(page, "ready")
        assert not error_box(page)["shown"], error_box(page)
        # With BokehJS blocked, the scripts that extend it run without it and throw; nothing else may.
        unexpected = [e for e in s.rec.page_errors if not re.search(r"Cannot find (Bokeh|module '@bokehjs)", e)]
        assert not unexpected, unexpected
        assert not s.watch()["rejections"], s.watch()
        print(f"[assets] {len(results)} files blocked in turn; each named, each retried")
        for asset, msg in results:
            print(f"[assets]   {asset}: {msg}")


def test_without_boot_js_the_page_still_reads(browser, server):
    with session(browser) as s:
        s.ctx.unroute("**/*")
        s.ctx.route("**/boot.js", lambda r: r.abort("failed"))
        s.page.goto(server.url)
        s.page.wait_for_load_state("load")
        readable(s.page)
        assert s.page.locator("main").inner_text().count(" ") > 200  # the prose is all there


def tamper(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    gz = path.with_name(path.name + ".gz")
    if gz.exists():  # serve.py prefers the gzip twin: drop it so the tampered file is what is sent
        gz.unlink()
    for twin in path.parent.glob(path.name + ".*"):
        if twin.suffix in (".br", ".gz"):
            twin.unlink()


def test_tampered_files_are_refused(browser, dist_dir, tmp_path):
    config = json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>',
                                  (dist_dir / "index.html").read_text(), re.S).group(1))
    runtime = config["runtime"]
    # The page script first: it is tried on a fresh load (a retry keeps scripts that already ran).
    targets = [*config["scripts"][:1], f"{runtime}pyodide.asm.wasm", f"{runtime}pyodide.asm.js", f"{runtime}python_stdlib.zip",
               f"{runtime}pyodide.js", f"{runtime}pyodide-lock.json",
               next(f"{runtime}{p.name}" for p in (dist_dir / runtime).glob("weighttying-*.whl")),
               next(f"{runtime}{p.name}" for p in (dist_dir / runtime).glob("numpy-*.whl"))]
    copy = tmp_path / "dist"
    shutil.copytree(dist_dir, copy)
    originals = {t: (copy / t).read_bytes() for t in targets}
    with serve(copy, log_dir=tmp_path) as srv, session(browser) as s:
        page = s.page
        for i, target in enumerate(targets):
            for t, data in originals.items():  # only TARGET is modified this round
                (copy / t).write_bytes(data)
            tamper(copy / target)
            if i == 0:
                page.goto(srv.url)
            else:
                page.locator("#wt-retry").click()
            status = wait_boot_over(page)
            box = error_box(page)
            name = target.rsplit("/", 1)[1]
            assert status == "failed", f"tampered {target} was not refused: {status} {box}"
            assert names(name, box["message"]), f"tampered {target}: the message does not name it: {box['message']!r}"
            readable(page)
            print(f"[tamper] {target}: {box['message']}")
        for t, data in originals.items():
            (copy / t).write_bytes(data)
        page.locator("#wt-retry").click()
        wait_status(page, "ready")
