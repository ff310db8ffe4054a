"""One small API over the three browser engines a class uses, so a cross-engine test is written once:

  chromium  Debian's Chromium through Playwright (executable_path: never a Playwright download)
  firefox   Debian's Firefox ESR through npm puppeteer-core over WebDriver BiDi (no geckodriver), driven by
            tests/engines_bridge.mjs, which answers one JSON line per command
  webkit    Debian's WebKitGTK (MiniBrowser) through /usr/bin/WebKitWebDriver (W3C WebDriver over HTTP,
            spoken here with urllib) on a private Xvfb display

An Engine is launched once (Engine.launch) and opens fresh pages (Engine.open: a new context, profile or
session each time; one page at a time: opening one closes the one before). A page answers js(FN, *args) (FN: a JS function expression, awaited), wait(FN),
press(key) on the focused element, click(FN) on the element FN returns (shadow roots included) and
download(FN) -> (file name, bytes), and refused(): the requests that tried to leave the page's origin or
file (each refused, so a leak fails the test instead of touching the net, workers' requests included):
Chromium's are seen by a context route (its own background traffic never reaches it); Firefox and WebKit
send everything but 127.0.0.1 to a proxy that records and refuses it (OffOrigin), Firefox with its
background services switched off. No pytest here: a failure is an exception.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from harness import CHROMIUM_ARGS, ROOT, chromium_path, free_port, new_context, stop_process

ENGINES = ("chromium", "firefox", "webkit")
FIREFOX = os.environ.get("WT_FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("WT_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
BRIDGE = ROOT / "tests" / "engines_bridge.mjs"
# W3C WebDriver key codes for the keys the tests press (the spec's table).
KEYS = {"ArrowRight": "\ue014", "ArrowLeft": "\ue012", "ArrowUp": "\ue013", "ArrowDown": "\ue015",
        "Enter": "\ue007", "Tab": "\ue004", "Home": "\ue011", "End": "\ue010"}


def missing(name: str) -> str | None:
    """Why engine NAME cannot run on this machine, or None."""
    if name == "chromium":
        return None if chromium_path() else "no Chromium (set WT_CHROMIUM or apt-get install chromium)"
    if name == "firefox":
        if not os.access(FIREFOX, os.X_OK):
            return f"no Firefox at {FIREFOX} (apt-get install firefox-esr)"
        if not (ROOT / "node_modules" / "puppeteer-core").is_dir():
            return "npm puppeteer-core is not installed (npm ci)"
        return None
    if name == "webkit":
        if not os.access(WEBKIT_DRIVER, os.X_OK):
            return f"no {WEBKIT_DRIVER} (apt-get install webkit2gtk-driver)"
        return None if shutil.which("Xvfb") else "no Xvfb (apt-get install xvfb)"
    return f"unknown engine {name!r}"


# --------------------------------------------------------------------------------------------
# The proxy every engine must use for anything but the page's own origin
# --------------------------------------------------------------------------------------------
class OffOrigin:
    """An HTTP proxy on 127.0.0.1 that records every request it is asked to make and refuses it (403)."""

    def __init__(self):
        self.seen: list[str] = []
        seen = self.seen

        class Refuse(socketserver.StreamRequestHandler):
            def handle(self):
                line = self.rfile.readline(65536).decode("latin-1").strip()
                if line:
                    seen.append(line.rsplit(" ", 1)[0])  # "GET http://host/path" or "CONNECT host:443"
                self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Refuse)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------
class Page:
    """What a test does with an open page, the same in every engine."""
    engine: str

    def js(self, fn: str, *args):
        """The value of the JS function expression FN called with ARGS in the page (a promise is awaited)."""
        raise NotImplementedError

    def evaluate(self, fn: str, *arg):
        """Playwright's page.evaluate(FN[, ARG]), so harness.py's page helpers drive every engine."""
        return self.js(fn, *arg)

    def wait(self, fn: str, *args, timeout: float = 60.0, every: float = 0.1):
        """Poll FN(*args) until it returns something truthy; return it. Times out with FN's last value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(fn, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.engine}: {fn[:160]} still {value!r} after {timeout:.0f} s")
            time.sleep(every)

    def press(self, key: str) -> None:
        raise NotImplementedError

    def click(self, fn: str, *args) -> None:
        """Click (a real pointer click) the element FN(*args) returns."""
        raise NotImplementedError

    def download(self, fn: str, *args, timeout: float = 60.0) -> tuple[str, bytes]:
        """Click the element FN(*args) returns and wait for the file it downloads: (name, bytes)."""
        raise NotImplementedError

    def refused(self) -> list[str]:
        """Requests this page (or its workers) made to anywhere but its origin or file, refused."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


def _wait_file(folder: Path, timeout: float, engine: str) -> tuple[str, bytes]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = [p for p in folder.iterdir() if not p.name.endswith((".part", ".download")) and p.stat().st_size]
        if done:
            time.sleep(0.2)  # the engine renames a finished download into place; let it close the file
            return done[0].name, done[0].read_bytes()
        time.sleep(0.1)
    raise TimeoutError(f"{engine}: no download arrived in {folder} within {timeout:.0f} s")


class PlaywrightPage(Page):
    engine = "chromium"

    def __init__(self, ctx, page, refused):
        self.ctx, self.page, self._refused = ctx, page, refused

    def refused(self):
        return list(self._refused)

    def js(self, fn, *args):
        return self.page.evaluate(f"(args) => ({fn})(...args)", list(args))

    def press(self, key):
        self.page.keyboard.press(key)

    def _element(self, fn, args):
        handle = self.page.evaluate_handle(f"(args) => ({fn})(...args)", list(args)).as_element()
        if handle is None:
            raise AssertionError(f"chromium: {fn[:120]} returned no element")
        return handle

    def click(self, fn, *args):
        self._element(fn, args).click()

    def download(self, fn, *args, timeout=60.0):
        with self.page.expect_download(timeout=timeout * 1000) as dl:
            self._element(fn, args).click()
        return dl.value.suggested_filename, Path(dl.value.path()).read_bytes()

    def close(self):
        with contextlib.suppress(Exception):  # closed already (the next open closes the one before)
            self.ctx.close()


class FolderPage(Page):
    """A page whose engine saves downloads into a folder of its own (Firefox, WebKit): self.downloads."""

    def download(self, fn, *args, timeout=60.0):
        for p in self.downloads.iterdir():
            p.unlink()
        self.click(fn, *args)
        return _wait_file(self.downloads, timeout, self.engine)


class BridgePage(FolderPage):
    """A Firefox page held by tests/engines_bridge.mjs."""
    engine = "firefox"

    def __init__(self, bridge, downloads: Path, proxy: OffOrigin):
        self.bridge, self.downloads, self.proxy = bridge, downloads, proxy

    def refused(self):
        return list(self.proxy.seen)

    def js(self, fn, *args):
        return self.bridge.call("js", fn=fn, args=list(args))

    def press(self, key):
        self.bridge.call("press", key=key)

    def click(self, fn, *args):
        self.bridge.call("click", fn=fn, args=list(args))

    def close(self):
        self.bridge.call("close")


class WebDriverPage(FolderPage):
    """A WebKitGTK page: one W3C WebDriver session of WebKitWebDriver's."""
    engine = "webkit"
    ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

    def __init__(self, driver, session: str, downloads: Path):
        self.driver, self.session, self.downloads = driver, session, downloads

    def refused(self):
        return list(self.driver.proxy.seen)

    def _call(self, method, path, body=None):
        return self.driver.call(method, f"/session/{self.session}{path}", body)

    def js(self, fn, *args):
        return self._call("POST", "/execute/sync", {"script": f"return ({fn}).apply(null, arguments)", "args": list(args)})

    def press(self, key):
        k = KEYS.get(key, key)
        self._call("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]}]})
        self._call("DELETE", "/actions")

    def click(self, fn, *args):
        el = self.js(fn, *args)
        if not isinstance(el, dict) or self.ELEMENT not in el:
            raise AssertionError(f"webkit: {fn[:120]} returned no element: {el!r}")
        self._call("POST", f"/element/{el[self.ELEMENT]}/click", {})

    def close(self):
        if self.session:
            with contextlib.suppress(Exception):
                self._call("DELETE", "")
        self.session = None


# --------------------------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------------------------
class Engine:
    """A launched engine: open(url) pages from it; quit() ends everything it started."""
    name: str
    version: str = ""
    can_init_script = True  # WebDriver classic has no way to run a script before the page's own

    def __init__(self, proxy: OffOrigin):
        self.proxy = proxy
        self.tmp = Path(tempfile.mkdtemp(prefix=f"wt-{self.name}-"))
        self.downloads = self.tmp / "downloads"
        self.downloads.mkdir()

    def open(self, url: str, init_js: str | None = None) -> Page:
        """A fresh page (fresh profile: cold cache, no storage) at URL, returned once its DOM is parsed.
        INIT_JS runs before any of the page's scripts (not in WebKit, see can_init_script)."""
        raise NotImplementedError

    def quit(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


class Chromium(Engine):
    name = "chromium"

    def __init__(self, proxy):
        super().__init__(proxy)
        from playwright.sync_api import sync_playwright
        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        self.version = f"Chromium {self.browser.version}"
        self.page = None

    def open(self, url, init_js=None):
        ctx = new_context(self.browser, init_js=(init_js,) if init_js else (), accept_downloads=True)
        ctx.set_default_timeout(60_000)
        refused = []

        def route(r):
            u = r.request.url
            if u.split(":", 1)[0] in ("file", "blob", "data") or urlsplit(u).hostname == "127.0.0.1":
                return r.continue_()
            refused.append(u)
            r.abort("blockedbyclient")
        ctx.route("**/*", route)
        if self.page:
            self.page.close()
        page = ctx.new_page()
        page.goto(url, wait_until="domcontentloaded")
        self.page = PlaywrightPage(ctx, page, refused)
        return self.page

    def quit(self):
        with contextlib.suppress(Exception):
            self.browser.close()
        self._pw.stop()
        super().quit()


class Bridge:
    """tests/engines_bridge.mjs as a subprocess: one JSON line per command, one per answer."""

    def __init__(self, config: dict):
        self.proc = subprocess.Popen(["node", str(BRIDGE), json.dumps(config)], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lock = threading.Lock()
        self.version = self.call("version")

    def call(self, op: str, **kw):
        with self.lock:
            self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox bridge exited ({self.proc.poll()}): {self.proc.stderr.read()[-3000:]}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"firefox {op}: {answer['error']}")
        return answer.get("value")

    def quit(self):
        with contextlib.suppress(Exception):
            self.call("quit")
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


class Firefox(Engine):
    name = "firefox"

    def __init__(self, proxy):
        super().__init__(proxy)
        self.bridge = Bridge({"executablePath": FIREFOX, "proxyPort": proxy.port, "downloads": str(self.downloads)})
        self.version = self.bridge.version

    def open(self, url, init_js=None):
        self.proxy.seen.clear()
        self.bridge.call("open", url=url, init=init_js)
        return BridgePage(self.bridge, self.downloads, self.proxy)

    def quit(self):
        self.bridge.quit()
        super().quit()


class WebKit(Engine):
    """MiniBrowser under WebKitWebDriver on its own Xvfb display; each open() is a new driver and session (a
    new browser process, ephemeral profile)."""
    name = "webkit"
    can_init_script = False
    # Debian's WebKitWebDriver, asked for a second session after deleting the first, now and then never
    # answers (the browser gone and the request open for the full timeout; WebKit has fixed bugs of a driver's
    # second session, e.g. bugs.webkit.org 282790). A driver per session never serves a second one, and a session
    # that does not come within SESSION_S gets a new driver, up to SESSIONS tries. Measured on this box
    # (2026-12-03, 25 opens with both cores busy, three runs): a session and its page came in 1.8-4.6 s (a first 8.7 s),
    # and up to 4 of 25 never did: a hang is not a slow start, so waiting 90 s for one (as before) only lost the time.
    SESSION_S = 20
    SESSIONS = 4

    def __init__(self, proxy):
        super().__init__(proxy)
        self.display = self._xvfb()
        # GLib's download folder (where MiniBrowser saves a download) comes from user-dirs.dirs.
        (self.tmp / "config").mkdir()
        (self.tmp / "config" / "user-dirs.dirs").write_text(f'XDG_DOWNLOAD_DIR="{self.downloads}"\n')
        self.env = {**os.environ, "DISPLAY": self.display, "HOME": str(self.tmp),
                    "XDG_CONFIG_HOME": str(self.tmp / "config"), "XDG_CACHE_HOME": str(self.tmp / "cache"),
                    "XDG_DATA_HOME": str(self.tmp / "data")}
        self.log = open(self.tmp / "driver.log", "wb")
        self.driver = None
        self.version = ""
        self.page = None

    def _start_driver(self) -> None:
        """A new WebKitWebDriver on a free port, answering /status."""
        self.port = free_port()
        self.driver = subprocess.Popen([WEBKIT_DRIVER, f"--port={self.port}"], env=self.env, stdout=self.log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.call("GET", "/status")
                return
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or self.driver.poll() is not None:
                    raise RuntimeError(f"WebKitWebDriver did not start: {self._driver_said(2000)}")
                time.sleep(0.1)

    def _driver_said(self, chars: int) -> str:
        """The last CHARS of WebKitWebDriver's log, where the browser and its web process write too."""
        return (self.tmp / "driver.log").read_text(errors="replace")[-chars:]

    def _stop_driver(self) -> None:
        if self.driver is not None:
            stop_process(self.driver, 10)
            self.driver = None

    def _xvfb(self) -> str:
        # -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
        r, w = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                     pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        return f":{number}"

    def call(self, method: str, path: str, body=None, timeout: float = 600):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as e:
            err = json.load(e)["value"]
            said = f"webkit {method} {path}: {err.get('error')}: {err.get('message')}"
            # The page may have crashed: what WebKit said (the crash seen here, and ./dev test's one rerun for it:
            # tests/gl_crash.py)
            if err.get("error") in ("unknown error", "invalid session id"):
                said += f"\n[WebKitWebDriver's log, its end]\n{self._driver_said(3000)}"
            raise RuntimeError(said) from None

    def open(self, url, init_js=None):
        if init_js:
            raise NotImplementedError("WebDriver classic runs no script before the page's own")
        if self.page:
            self.page.close()
        self.proxy.seen.clear()
        caps = {"browserName": "MiniBrowser", "pageLoadStrategy": "none", "acceptInsecureCerts": False,
                "proxy": {"proxyType": "manual", "httpProxy": f"127.0.0.1:{self.proxy.port}",
                          "sslProxy": f"127.0.0.1:{self.proxy.port}", "noProxy": ["127.0.0.1"]},
                "timeouts": {"script": 600_000, "pageLoad": 600_000},
                "webkitgtk:browserOptions": {"args": ["--automation"]}}
        s = self._session(caps)
        self.version = f"WebKitGTK {s['capabilities'].get('browserVersion', '')}"
        page = self.page = WebDriverPage(self, s["sessionId"], self.downloads)
        page._call("POST", "/window/rect", {"width": 1280, "height": 900})
        page._call("POST", "/url", {"url": url})
        page.wait("() => document.readyState !== 'loading' && location.href !== 'about:blank'", timeout=120)
        return page

    def _session(self, caps: dict) -> dict:
        """A new session on a new driver; another driver while one does not answer within SESSION_S."""
        for attempt in range(1, self.SESSIONS + 1):
            self._stop_driver()
            self._start_driver()
            try:
                return self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}}, timeout=self.SESSION_S)
            except TimeoutError:
                if attempt == self.SESSIONS:
                    raise RuntimeError(f"webkit: no session within {self.SESSION_S} s, {attempt} times: "
                                       f"{self._driver_said(2000)}") from None
                print(f"[engines] webkit: no session within {self.SESSION_S} s; a new driver", file=sys.stderr)

    def quit(self):
        if self.page:
            self.page.close()
        self._stop_driver()
        stop_process(self.xvfb, 10)
        self.log.close()
        super().quit()


def launch(name: str, proxy: OffOrigin) -> Engine:
    return {"chromium": Chromium, "firefox": Firefox, "webkit": WebKit}[name](proxy)


@contextlib.contextmanager
def launched(name: str):
    """Engine NAME with a proxy of its own, both ended on exit."""
    proxy = OffOrigin()
    try:
        e = launch(name, proxy)
        try:
            yield e
        finally:
            e.quit()
    finally:
        proxy.close()
