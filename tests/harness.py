"""The harness shared by the tests (through conftest.py's fixtures) and the benchmarks (bench/run.py):
the built site and its staleness, a server for it, Chromium, a request recorder, and page helpers that
drive the site through its contract (docs/DESIGN.md, "Page and worker"). No pytest here: a failure is an
exception with a message.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
SECTIONS_DIR = ROOT / "tests" / "sections"  # test-only sections (tests/test_browser_probe.py)
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Chromium loads its omnibox popup's WebUI in a renderer of its own for every new window, and a new context is a
    # new window: on 2 cores that took a core for ~1.2 s of a cold page's first two seconds (0.25 s of the code lab's
    # first result), a cost of opening a window that a reader opening a link in a running browser does not pay.
    # tests/test_browser_quiet.py fails if a Chromium release adds another such page.
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup",
]
# What a change to should rebuild dist/. Compared by mtime against dist/index.html.
BUILD_INPUTS = ["build.py", "tools", "site", "py/weighttying", "py/pyproject.toml", "pins", "package-lock.json"]


# --------------------------------------------------------------------------------------------
# dist/
# --------------------------------------------------------------------------------------------
def _newest_mtime(paths) -> float:
    newest = 0.0
    for rel in paths:
        p = ROOT / rel
        if p.is_file():
            newest = max(newest, p.stat().st_mtime)
        elif p.is_dir():
            for f in p.rglob("*"):
                if f.is_file() and "__pycache__" not in f.parts and not f.name.endswith(".pyc"):
                    newest = max(newest, f.stat().st_mtime)
    return newest


def dist_is_stale(dist: Path) -> str | None:
    """Why dist/ needs a build, or None when it is newer than everything it is built from."""
    index = dist / "index.html"
    if not index.is_file():
        return f"{index} is missing"
    if not (dist / "serve.py").is_file():
        return f"{dist / 'serve.py'} is missing"
    if _newest_mtime(BUILD_INPUTS) > index.stat().st_mtime:
        return "sources are newer than dist/index.html"
    return None



# --------------------------------------------------------------------------------------------
# Serving
# --------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    root: Path
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return self.origin + "/"

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


@contextlib.contextmanager
def serve(root: Path, log_dir: Path | None = None, timeout: float = 30.0):
    """Serve ROOT with ROOT/serve.py on 127.0.0.1 at a free port; always stops it on exit."""
    root = Path(root)
    script = root / "serve.py"
    if not script.is_file():
        raise RuntimeError(f"{script} is missing: the built site must carry its own serve command")
    port = free_port()
    log_dir = Path(log_dir) if log_dir else root.parent
    log = log_dir / f"serve-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "serve.py", "--bind", "127.0.0.1", "--port", str(port)],
            cwd=root, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    server = Server(root, port, proc, log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"serve.py exited with {proc.returncode} before serving:\n{server.output()}")
            try:
                with urllib.request.urlopen(server.url, timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"serve.py did not answer on {server.url} within {timeout}s:\n{server.output()}")
            time.sleep(0.1)
        yield server
    finally:
        stop_process(proc, 5)
        with contextlib.suppress(OSError):
            log.unlink()


def probe_env(dist: Path | None = None) -> dict:
    """The environment in which weighttying (and, over the test build DIST, the page-wide tests) see the probe."""
    path = os.pathsep.join(filter(None, [str(SECTIONS_DIR), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "WT_TEST_SECTIONS": "probe", "PYTHONPATH": path, **({"WT_DIST": str(dist)} if dist else {})}


def stop_process(proc: subprocess.Popen, grace_s: float) -> None:
    """Terminate PROC; kill it if it has not ended within GRACE_S."""
    proc.terminate()
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)



# --------------------------------------------------------------------------------------------
# Chromium
# --------------------------------------------------------------------------------------------
def chromium_path() -> str | None:
    p = os.environ.get("WT_CHROMIUM") or DEFAULT_CHROMIUM
    if os.path.isfile(p) and os.access(p, os.X_OK):
        return p
    return shutil.which(p)




def is_local_scheme(url: str) -> bool:
    """data:, blob: and about: URLs never touch the network."""
    return url.split(":", 1)[0].lower() in ("data", "blob", "about")


def origin_of(url: str) -> str:
    u = urlsplit(url)
    if u.scheme == "blob":  # blob:http://host:port/uuid carries its creator's origin
        return origin_of(url[len("blob:"):])
    return f"{u.scheme}://{u.netloc}".lower()


@dataclass
class Recorder:
    """Everything a page and its workers asked for and complained about.

    Requests are recorded twice, independently: from context.on("request") (events) and from a
    context-level route (routing). In Chromium both see dedicated-worker requests (verified with a
    page whose worker fetches and importScripts). Requests to any host other than 127.0.0.1 /
    localhost are recorded and then aborted, so a leak fails the test instead of touching the net.
    """

    requests: list = field(default_factory=list)  # (method, url, resource_type) from events
    routed: list = field(default_factory=list)  # urls seen by the route handler
    aborted: list = field(default_factory=list)  # off-host urls the route refused
    failed: list = field(default_factory=list)  # (url, failure text)
    console_errors: list = field(default_factory=list)
    page_errors: list = field(default_factory=list)
    workers: list = field(default_factory=list)

    def attach(self, context) -> None:
        context.on("request", lambda r: self.requests.append((r.method, r.url, r.resource_type)))
        context.on("requestfailed", lambda r: self.failed.append((r.url, r.failure)))
        context.route("**/*", self._route)

    def attach_page(self, page) -> None:
        # Worker console messages and uncaught worker errors arrive here too (verified in Chromium).
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("worker", lambda w: self.workers.append(w.url))

    def _route(self, route) -> None:
        url = route.request.url
        self.routed.append(url)
        host = urlsplit(url).hostname
        if is_local_scheme(url) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.aborted.append(url)
            route.abort("blockedbyclient")

    def urls(self) -> list[str]:
        return [u for _, u, _ in self.requests] + self.routed


# The tests' helpers over the page's DOM with shadow roots pierced (Panel renders each widget in its own),
# installed in every page and frame of a test context (new_context) before the page's scripts, so each
# test's JS says what it looks for instead of copying a walker. Idempotent: harness helpers that bench/ also
# drives on its own contexts prepend it. DevTools injects it, so the page's CSP does not govern it.
HELPERS_JS = """
window.__wtTest = window.__wtTest || (() => {
  const parentOf = (el) => el.parentElement || (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);
  // fn(el) for every element under root, each shadow root right after its host.
  function walk(root, fn) { for (const el of root.querySelectorAll('*')) { fn(el); if (el.shadowRoot) walk(el.shadowRoot, fn); } }
  // The first match of sel: root's own first, then each shadow root's in document order.
  function deep(root, sel) {
    const el = root.querySelector(sel); if (el) return el;
    for (const h of root.querySelectorAll('*')) if (h.shadowRoot) { const f = deep(h.shadowRoot, sel); if (f) return f; }
    return null;
  }
  // Every match of sel, in deep()'s order.
  function all(root, sel, out = []) {
    out.push(...root.querySelectorAll(sel));
    for (const h of root.querySelectorAll('*')) if (h.shadowRoot) all(h.shadowRoot, sel, out);
    return out;
  }
  // The text a reader sees under root (styles and scripts left out), whitespace collapsed.
  function text(root) {
    const parts = [];
    (function visit(n) {
      if (n.nodeType === 3) { parts.push(n.textContent); return; }
      if (n.nodeType !== 1 && n.nodeType !== 11) return;
      if (n.nodeType === 1 && ['STYLE', 'SCRIPT'].includes(n.tagName)) return;
      if (n.shadowRoot) visit(n.shadowRoot);
      for (const c of n.childNodes) visit(c);
    })(root);
    return parts.join(' ').replace(/\\s+/g, ' ').trim();
  }
  return { parentOf, walk, deep, all, text };
})();
"""
# Over HELPERS_JS, for a test's own JS: shown(el), and label(el) naming an element and its section.
WALK_JS = """
const { parentOf, walk } = __wtTest;
const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.checkVisibility({visibilityProperty: true}); };
const where = (el) => { for (let a = el; a; a = parentOf(a)) if (a.classList && a.classList.contains('wt-section')) return a.id; return 'page'; };
const label = (el) => `${where(el)}: <${el.tagName.toLowerCase()} class="${String(el.getAttribute('class') || '').slice(0, 50)}">`
  + ` "${(el.textContent || '').trim().slice(0, 40)}"`;
"""

# Where a check looks: the whole page (scope null), or one section's box (a test build's section).
SCOPE_JS = "const root = scope ? document.getElementById(scope) : document;"

# Figures are inline SVG scaled to their box: each visible <text>'s size on screen in CSS px, whether it
# is drawn inside its figure (an SVG clips what lies outside it), and the text of its figure it overlaps.
FIGURE_TEXT_JS = "(scope) => {" + WALK_JS + SCOPE_JS + """
  const out = [];
  walk(root, (el) => {
    if (el.tagName !== 'text' || !shown(el)) return;
    const m = el.getScreenCTM(), r = el.getBoundingClientRect(), f = el.ownerSVGElement.getBoundingClientRect();
    const inside = r.left >= f.left - 1 && r.right <= f.right + 1 && r.top >= f.top - 1 && r.bottom <= f.bottom + 1;
    const over = [...el.ownerSVGElement.querySelectorAll('text')].filter((t) => t !== el && shown(t)).find((t) => {
      const q = t.getBoundingClientRect();
      return Math.min(r.right, q.right) - Math.max(r.left, q.left) > 1 && Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 1; });
    out.push([label(el), parseFloat(getComputedStyle(el).fontSize) * Math.hypot(m.a, m.b), inside,
              over ? over.textContent.slice(0, 40) : null]);
  });
  return out;
}"""



# Whether a player's status line (its element) is drawn above the player's controls: a line saying what is shown
# is not the exact answer comes first (site/style.css), the others after the controls.
STATUS_FIRST_JS = ("(el) => el.getBoundingClientRect().top"
                   " < el.closest('.wt-player').querySelector('.wt-pctls').getBoundingClientRect().top")


def figure_text_problems(page, min_px: float, scope: str | None = None) -> list[str]:
    """Each figure text on PAGE (or in its element of id SCOPE) drawn under MIN_PX, past its figure's edge, or over
    another of its texts."""
    out = []
    for what, px, inside, over in page.evaluate(FIGURE_TEXT_JS, scope):
        if px < min_px - 0.05:
            out.append(f"{what} is {px:.1f} px")
        if not inside:
            out.append(f"{what} is cut off by its figure's edge")
        if over:
            out.append(f"{what} overlaps {over!r}")
    return out


VIEWPORT = {"width": 1280, "height": 900}


def new_context(browser, rec: "Recorder | None" = None, init_js: tuple[str, ...] = (), **options):
    """The one factory of the tests' browser contexts: a fresh profile (cold cache), the 30 s default timeout,
    HELPERS_JS then INIT_JS in every page, and REC (if any) recording every request and every page's errors.
    OPTIONS go to browser.new_context (viewport 1280x900 unless given)."""
    ctx = browser.new_context(**{"viewport": VIEWPORT, **options})
    ctx.set_default_timeout(30_000)
    for js in (HELPERS_JS, *init_js):
        ctx.add_init_script(js)
    if rec is not None:
        rec.attach(ctx)
        ctx.on("page", rec.attach_page)
    return ctx


def recorded(browser, rec: Recorder, **options):
    """(context, page): a fresh new_context with REC attached, and its first page."""
    ctx = new_context(browser, rec, **options)
    return ctx, ctx.new_page()


def assert_same_origin(requests, origin: str) -> None:
    """Every URL in REQUESTS (urls, (.., url, ..) tuples or a Recorder) is on ORIGIN (or data:/blob:)."""
    if isinstance(requests, Recorder):
        requests = requests.urls()
    urls = [r if isinstance(r, str) else r[1] for r in requests]
    assert urls, "no requests were recorded at all: the recorder is not attached"
    origin = origin_of(origin)
    off = sorted({u for u in urls if not (is_local_scheme(u) and not u.startswith("blob:")) and origin_of(u) != origin})
    assert not off, f"{len(off)} request(s) left {origin}:\n" + "\n".join(off[:50])


# Site hooks: the contract with site/index.html, site/boot.js and weighttying.prerender, in one
# place for the browser tests and bench/run.py.
#   window.__wt.status        "booting" | "ready" | "failed"; .progress 0..1; .error (one line)
#   #wt-progress              <progress max=100>, 100 when ready
#   #wt-error / #wt-error-msg the readable boot failure (role=alert); hidden otherwise
#   #live-SECTION             prerendered content in .wt-prerender, replaced in place (data-live)
#   [data-testid=sweep-resid|sweep-logit][data-value]   the readout (repr of the float)
#   sliders: the Bokeh slider titled "<label> (log scale)" inside #live-sweep (noUiSlider handle)
# --------------------------------------------------------------------------------------------
BOOT_TIMEOUT_S = float(os.environ.get("WT_BOOT_TIMEOUT", "180"))  # 2 shared cores: boot is ~10-15 s


def boot_info(page) -> dict:
    return page.evaluate(
        """() => ({status: window.__wt && window.__wt.status, error: window.__wt && window.__wt.error,
                   progress: window.__wt && window.__wt.progress, timings: window.__wt && window.__wt.timings,
                   bar: Number(document.getElementById('wt-progress').value),
                   barMax: Number(document.getElementById('wt-progress').max),
                   label: document.getElementById('wt-status').textContent,
                   errorShown: !document.getElementById('wt-error').hidden,
                   errorText: document.getElementById('wt-error-msg').textContent})""")


def wait_boot_end(page, timeout_s: float = BOOT_TIMEOUT_S) -> dict:
    """Wait until the boot is over (ready or failed) and return boot_info."""
    page.wait_for_function("() => window.__wt && window.__wt.status !== 'booting'", timeout=timeout_s * 1000,
                           polling=50)
    return boot_info(page)


def wait_booted(page, timeout_s: float = BOOT_TIMEOUT_S) -> dict:
    """Wait for a successful boot; a failed one raises with the page's own error message."""
    info = wait_boot_end(page, timeout_s)
    if info["status"] != "ready":
        raise AssertionError(f"the page did not boot: status {info['status']!r}, error {info['error']!r}")
    return info


def until(check, timeout_s: float = 20.0, every_s: float = 0.05):
    """Poll check() until it returns something truthy, at most timeout_s; its last value (falsy on a timeout),
    for the caller's assert to say what it saw."""
    deadline = time.monotonic() + timeout_s
    while not (got := check()) and time.monotonic() < deadline:
        time.sleep(every_s)
    return got


def run_over(page, scope: str, said: str = "Cancelled.", timeout_s: float = 60) -> int:
    """The last step of the run in SCOPE (a section's selector) whose status line says SAID, once the worker confirms
    that run is over: app/kit/runner.py marks its status line data-run="over" only after the run's task has ended,
    so no step can follow, and the page has every patch the worker sent before it. What a test of Cancel waits on
    instead of sleeping through the time a run that kept going would take to show it."""
    over = page.locator(f"{scope} [data-testid=run-status][data-run=over]").filter(has_text=said).first
    over.wait_for(state="attached", timeout=timeout_s * 1000)
    return int(over.get_attribute("data-step"))


async def until_async(check, timeout_s: float = 60.0, what: str = ""):
    """until() for a test that runs the sections' jobs on its own event loop (CPython, no browser): check()'s first
    truthy value, polled while the loop runs the jobs; an AssertionError naming WHAT after timeout_s."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while not (got := check()):
        assert loop.time() < end, f"still false after {timeout_s} s: {what or check.__doc__ or check}"
        await asyncio.sleep(0.01)
    return got


def run_is_over(root, said: str = "") -> bool:
    """Whether a section's Runner (under the Panel ROOT) has confirmed its run over (app/kit/runner.py's
    data-run="over": the run's task has ended, no step can follow), with SAID on its status line."""
    import panel as pn  # only the CPython tests of the live sections ask this; the browser tests never load Panel

    return any('data-run="over"' in (p.object or "") and said in p.object for p in root.select(pn.pane.HTML))


STABLE_LAYOUT_JS = """async (width) => {
  // True once the viewport is WIDTH px and the page's layout (its size and every live section's box) is
  // the same over two looks 50 ms and two frames apart; false after ~10 s.
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const look = () => [innerWidth, document.documentElement.scrollWidth, document.documentElement.scrollHeight,
    ...[...document.querySelectorAll('[id^="live-"]')].map((e) => { const r = e.getBoundingClientRect(); return `${r.width}x${r.height}`; })].join();
  let last = null;
  for (let i = 0; i < 100; i++) {
    await frame();
    const now = look();
    if (innerWidth === width && now === last) return true;
    last = now;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}"""


def resize(page, width: int, height: int) -> None:
    """Set the viewport and wait until the page's layout has followed (media queries, Panel's own sizing)."""
    page.set_viewport_size({"width": width, "height": height})
    assert page.evaluate(STABLE_LAYOUT_JS, width), f"the layout did not settle at {width} px"


def prerendered_present(page) -> bool:
    """The sweep section's readable default content is in the DOM (prerendered or already live)."""
    return page.evaluate(
        """() => { const el = document.getElementById('live-sweep');
                   return !!el && (el.dataset.live === 'true' || !!el.querySelector('.wt-prerender svg')); }""")


FOCUS_SLIDER_JS = """
([title, section]) => {""" + HELPERS_JS + """
  // The noUiSlider handle sharing a (shadow) root with the Bokeh slider title TITLE in #live-SECTION; focus it.
  const found = __wtTest.all(document.getElementById(`live-${section}`), '.bk-slider-title')
    .filter((t) => t.textContent.trim().startsWith(title))
    .map((t) => t.getRootNode().querySelector('.noUi-handle')).filter((h) => h);
  if (found.length !== 1) return `expected one slider titled ${title}, found ${found.length}`;
  found[0].focus();
  return (found[0].getRootNode().activeElement === found[0]) ? null : 'the slider handle did not take focus';
}
"""


def slider_title(key: str) -> str:
    """The live title of log-scale control KEY's slider, as both layers draw it (controls.title)."""
    from weighttying import controls, state

    return controls.title(state.BY_KEY[key])


def focus_slider(page, key: str) -> None:
    """Focus the keyboard-operable handle of a log-scale control, e.g. key 'sweep.sigma'."""
    err = page.evaluate(FOCUS_SLIDER_JS, [slider_title(key), key.split(".", 1)[0]])
    assert err is None, f"slider {key}: {err}"


def type_played(page, url: str, sid: str, key: str, value: str) -> None:
    """Open url, and once section sid's playback table is in, type value into its number box `key` and commit it."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(f"() => !!window.__wt.player.tables.{sid}", timeout=30_000, polling=50)
    box = page.locator(f"#wt-p-{sid}-{key}-box")
    box.fill(value)
    box.press("Enter")


def sweep_readout(page) -> dict:
    """The live readout: {"resid": float, "logit": float, "text": str} (values are data-value, full precision)."""
    return page.evaluate("() => {" + HELPERS_JS + """
        const live = document.getElementById('live-sweep'), deep = (sel) => __wtTest.deep(live, sel);
        const r = deep('[data-testid="sweep-resid"]'), l = deep('[data-testid="sweep-logit"]');
        const t = deep('[data-testid="sweep-readout"]');
        return {resid: r && Number(r.dataset.value), logit: l && Number(l.dataset.value), text: t && t.textContent}; }""")


MOVE_JS = """
([root, readout]) => {""" + HELPERS_JS + """ window.__wtMove = new Promise((resolve, reject) => {
  // Resolve at the first animation frame after the readout's text changed; stamp the keydown.
  // root: the element id holding the readout (or '' for the whole body); readout: its data-testid.
  const deep = (root) => __wtTest.deep(root, `[data-testid="${readout}"]`);
  const scope = () => (root ? document.getElementById(root) : document.body);
  const el = deep(scope());
  if (!el) return reject(new Error(`no ${readout} in #${root || 'body'}`));
  const host = el.getRootNode() instanceof ShadowRoot ? el.getRootNode() : el.parentNode;
  const before = el.textContent;
  let t0 = null;
  const onKey = () => { if (t0 === null) t0 = performance.now(); };
  document.addEventListener('keydown', onKey, true);
  const done = () => {
    const cur = deep(scope());
    if (!cur || cur.textContent === before) return false;
    mo.disconnect(); clearTimeout(timer); clearInterval(poll); document.removeEventListener('keydown', onKey, true);
    requestAnimationFrame(() => { const t1 = performance.now(); resolve({keydown: t0, repainted: t1, latency: t1 - t0}); });
    return true;
  };
  const mo = new MutationObserver(done);
  mo.observe(host, {subtree: true, childList: true, characterData: true, attributes: true});
  const poll = setInterval(done, 100);  // in case the pane re-renders into a new shadow root
  const timer = setTimeout(() => { mo.disconnect(); clearInterval(poll); reject(new Error('the readout did not change within 20 s')); }, 20000);
}); window.__wtMove.catch(() => {}); }
"""


def move_and_wait_repaint(page, key: str, press: str = "ArrowRight") -> dict:
    """Press a key on a slider handle of key's section; wait for its <section>-readout to change and repaint.

    Returns {"keydown", "repainted", "latency"} in ms of the page clock (0 = navigation start).
    """
    focus_slider(page, key)
    section = key.split(".", 1)[0]
    page.evaluate(MOVE_JS, [f"live-{section}", f"{section}-readout"])  # armed before the key press
    page.keyboard.press(press)
    return page.evaluate("() => window.__wtMove")
