"""Failed assets and tampered files.

Blocked in turn (Playwright routing aborts one URL): every file a clean boot asked for (found by
recording that boot, so new files are covered without editing this list): the page's stylesheet
and scripts, worker.js, the runtime (pyodide.js / .asm.js / .asm.wasm / python_stdlib.zip), the lock,
every wheel, BokehJS and Panel's JS and CSS. One page walks the whole chain: with file N blocked the
boot fails (or, for a stylesheet, the page says it is missing), the message names file N, the
prerendered page stays readable; then file N is let through, file N+1 blocked and Retry clicked: the
retry gets past N (it now fails on N+1), so Retry works once the file is back. The chain ends with
nothing blocked: Retry boots the lab. Wheels go WHEEL_BATCH at a time (Pyodide tries every package and
the message must name each one that failed), and the chain runs on ?embed=<a section whose views ask
for every stylesheet the full page asked for>, which boots in half the time (a stylesheet is only
asked for when the views render, so each stylesheet step is a boot).

Tampered: a copy of dist/ with one byte changed in two wheels, in each runtime file and in the lock;
the boot refuses it and names the file (Pyodide checks wheels against the lock's sha256; worker.js
checks the runtime files and the lock against the sha256 build.py wrote into the page).
"""
from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from harness import BOOT_TIMEOUT_S, serve, until
from robust import error_box, session, wait_boot_over, wait_status

pytestmark = pytest.mark.browser

NOT_ASSETS = ("/", "/index.html", "/favicon.ico")


def names(file: str, message: str) -> bool:
    """MESSAGE names FILE: its name, or for a wheel its project (as Pyodide spells it, - or _)."""
    def norm(t):
        return t.lower().replace("_", "-")

    return norm(file) in norm(message) or (file.endswith(".whl") and norm(file.split("-")[0]) in norm(message))


def page_level(path: str) -> bool:
    """A file the document itself loads (not the boot): a stylesheet, or a script of the page's own."""
    return path.endswith(".css") or (path.endswith(".js") and path.count("/") == 1 and path != "/worker.js")


def page_script(path: str) -> bool:
    """A script boot.js adds to the page (BokehJS, Panel): once it ran, a retry does not ask for it again."""
    return path.startswith("/static/") and path.endswith(".js")


def readable(page, live_ok: bool = False) -> None:
    """The prerendered page is there and visible: every section's heading and its static content (under
    ?embed=ID, that section's)."""
    sids = page.evaluate("() => [...document.querySelectorAll('main section[id]')].map((e) => e.id)")
    assert sids, "no sections on the page"
    embed = page.evaluate("() => window.__wt?.page?.embed")  # no __wt at all when the page script did not load
    if embed:
        sids = [embed]
    for sid in sids:
        assert page.locator(f"#{sid} h2").first.is_visible(), f"section {sid} heading not visible"
        live = page.locator(f"#live-{sid}")
        if live.count() and not live_ok:
            assert live.get_attribute("data-live") != "true"
            assert page.locator(f"#live-{sid} .wt-prerender").count() == 1, f"#live-{sid} lost its prerendered content"


# Every live section's stylesheets, as the <link>s its views put in their shadow roots.
SECTION_CSS_JS = """() => { const out = {};
  for (const live of document.querySelectorAll('[id^="live-"][data-live="true"]')) {
    const hrefs = new Set(__wtTest.all(live, 'link[rel=stylesheet]').map((l) => new URL(l.href).pathname));
    out[live.id.slice(5)] = [...hrefs];
  } return out; }"""
WHEEL_BATCH = 6  # wheels blocked together: Pyodide reports every package that failed, and each must be named


def chain_query(page, assets: list[str]) -> str:
    """A lighter page that still asks for every asset: ?embed=ONE section whose views load every stylesheet
    the full page loaded (they only load when the views render, so each stylesheet step is a boot), else
    the full page."""
    css = {a for a in assets if a.endswith(".css") and a.startswith("/static/")}
    for sid, hrefs in sorted(page.evaluate(SECTION_CSS_JS).items(), key=lambda kv: -len(kv[1])):
        if css <= set(hrefs):
            return f"?embed={sid}"
    return ""


def steps_of(assets: list[str]) -> list[list[str]]:
    """One file per step, except the stylesheets, all blocked at once (each must be named), and the wheels,
    blocked WHEEL_BATCH at a time."""
    wheels = [a for a in assets if a.endswith(".whl")]
    css = [a for a in assets if a.endswith(".css")]
    steps = [css] + [[a] for a in assets if not a.endswith((".whl", ".css"))]
    at = next((i for i, st in enumerate(steps) if not page_level(st[0]) and not page_script(st[0])), len(steps))
    return steps[:at] + [wheels[i:i + WHEEL_BATCH] for i in range(0, len(wheels), WHEEL_BATCH)] + steps[at:]


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
        assets.remove("/wt.js")  # without the page's script nothing can speak: tested below
        assets.remove("/results.json")  # a failed results file is named and computed live: test_browser_results.py
        # A playback table that fails is named in its section and the page goes on live: test_browser_player.py
        assets = [a for a in assets if not a.startswith("/playback/")]
        kinds = {"runtime": [a for a in assets if re.search(r"/pyodide(\.asm)?\.(js|wasm)$|python_stdlib", a)],
                 "lock": [a for a in assets if a.endswith("pyodide-lock.json")],
                 "wheels": [a for a in assets if a.endswith(".whl")],
                 "css": [a for a in assets if a.endswith(".css")],
                 "js": [a for a in assets if a.startswith("/static/") and a.endswith(".js")]}
        assert len(kinds["runtime"]) == 4 and kinds["lock"] and len(kinds["wheels"]) >= 10 and kinds["css"] \
            and len(kinds["js"]) >= 4 and "/worker.js" in assets, kinds
        query = chain_query(page, assets)
        steps = steps_of(assets)
        results, t_chain = [], time.monotonic()
        for i, files in enumerate(steps):
            t_step = time.monotonic()
            blocked.clear()
            blocked.update(files)
            first = files[0]
            if i == 0 or (page_script(first) and page_script(steps[i - 1][0])):
                # A fresh document: stylesheets are fetched, not reused, and scripts that already ran are not
                # asked for again (the step after the last one shows that Retry fetches a failed script).
                page.goto(server.url + query)
            elif error_box(page)["kind"] == "asset":
                with page.expect_navigation():
                    page.locator("#wt-retry").click()  # after a file of the page failed, Retry reloads
            else:
                page.locator("#wt-retry").click()
            page.wait_for_selector("html[data-wt-status=failed], #wt-error[data-kind=asset]:not([hidden])",
                                   state="attached", timeout=BOOT_TIMEOUT_S * 1000)
            box = error_box(page)
            if len(files) > 1 and box["kind"] == "asset":  # they fail one by one: wait for the message to name all
                until(lambda: all(names(f.rsplit("/", 1)[1], error_box(page)["message"]) for f in files), 60, 0.1)
                box = error_box(page)
            if not page_level(first):
                assert page.evaluate("() => window.__wt.status") == "failed", f"{files} blocked: {box}"
            readable(page, live_ok=page_level(first))
            assert box["shown"] and box["retry"], f"{files}: {box}"
            for f in files:
                assert names(f.rsplit("/", 1)[1], box["message"]), \
                    f"{f} blocked: the message does not name it: {box['message']!r}"
            assert "Traceback" not in box["message"] and len(box["message"]) < 600 * len(files), box["message"]
            assert page.locator("#wt-error").get_attribute("role") == "alert"
            results.append((files, box["message"]))
            print(f"[assets] blocked {', '.join(files)} ({time.monotonic() - t_step:.1f} s)", flush=True)
        blocked.clear()
        page.locator("#wt-retry").click()
        wait_status(page, "ready")
        assert not error_box(page)["shown"], error_box(page)
        # With BokehJS blocked, the scripts that extend it run without it and throw; nothing else may.
        unexpected = [e for e in s.rec.page_errors if not re.search(r"Cannot find (Bokeh|module '@bokehjs)", e)]
        assert not unexpected, unexpected
        assert not s.watch()["rejections"], s.watch()
        assert sorted(f for files, _ in results for f in files) == sorted(assets)
        print(f"[assets] {len(assets)} files blocked in {len(results)} steps on {server.url + query} "
              f"({time.monotonic() - t_chain:.0f} s); each named, each retried")
        for files, msg in results:
            print(f"[assets]   {', '.join(files)}: {msg}")


def test_without_the_page_script_the_page_still_reads(browser, server):
    with session(browser) as s:
        s.ctx.unroute("**/*")
        s.ctx.route("**/wt.js", lambda r: r.abort("failed"))
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
    # The page script first: it is tried on a fresh load (a retry keeps scripts that already ran). Two
    # wheels at once: Pyodide reports every package that failed its sha256, and both must be named.
    targets = [*config["scripts"][:1], f"{runtime}pyodide.asm.wasm", f"{runtime}pyodide.asm.js", f"{runtime}python_stdlib.zip",
               f"{runtime}pyodide.js", f"{runtime}pyodide-lock.json",
               (next(f"{runtime}{p.name}" for p in (dist_dir / runtime).glob("weighttying-*.whl")),
                next(f"{runtime}{p.name}" for p in (dist_dir / runtime).glob("numpy-*.whl")))]
    targets = [t if isinstance(t, tuple) else (t,) for t in targets]
    copy = tmp_path / "dist"
    shutil.copytree(dist_dir, copy)
    originals = {t: (copy / t).read_bytes() for group in targets for t in group}
    with serve(copy, log_dir=tmp_path) as srv, session(browser) as s:
        page = s.page
        for i, group in enumerate(targets):
            for t, data in originals.items():  # only GROUP is modified this round
                (copy / t).write_bytes(data)
            for target in group:
                tamper(copy / target)
            if i == 0:
                page.goto(srv.url + "?embed=sweep")
            else:
                page.locator("#wt-retry").click()
            status = wait_boot_over(page)
            box = error_box(page)
            assert status == "failed", f"tampered {group} was not refused: {status} {box}"
            for target in group:
                assert names(target.rsplit("/", 1)[1], box["message"]), \
                    f"tampered {target}: the message does not name it: {box['message']!r}"
            readable(page)
            print(f"[tamper] {', '.join(group)}: {box['message']}")
        for t, data in originals.items():
            (copy / t).write_bytes(data)
        page.locator("#wt-retry").click()
        wait_status(page, "ready")
        print(f"[tamper] {len(originals)} tampered files refused and named, in {len(targets)} boots")
