"""Stage assemble: dist/'s files (runtime, trimmed lock, wheels, BokehJS and Panel's static files, site/'s files,
results and playback tables) and the page's build config filled into index.html."""
from __future__ import annotations

import importlib.util
import json
import os
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .archives import wheel_metadata
from .base import ROOT, SITE, BuildError, log, sha256, split_filename, sri
from .compress import brotlied, gzipped
from .fetch import Inputs
from .notices import NOTICES, notices
from .scripts import PAGE_SCRIPT, bundle

# dist/ layout. The runtime, the trimmed lock and every wheel share one folder because Pyodide
# resolves a lock entry's file_name against indexURL.
RUNTIME = "pyodide"
STATIC = "static"
# Relative, so the page works from any path on any host; Panel appends "<version>/dist/".
PANEL_CDN_ROOT = f"{STATIC}/panel/"
BOKEH_JS = ("bokeh.min.js", "bokeh-widgets.min.js", "bokeh-tables.min.js")
# What of Panel's dist/ the page fetches: its JS bundle, the stylesheets its models link, theme CSS, icons.
PANEL_STATIC = ("panel.min.js", "css/", "bundled/theme/", "images/")
SITE_FILES = ("embed.js", "style.css", "live.css", "serve.py")
# The stylesheets (page; Panel's shadow roots) that end with site/shared.css, the rules the two DOMs share.
SHARING_CSS = ("style.css", "live.css")
BENCH_HOOK = ROOT / "bench" / "worker_hook.js"  # appended to worker.js by --bench only: it runs any code sent


def assemble(inputs: Inputs, shipped: dict[str, Path], stdlib: Path, html: str, page_data: dict,
             bench: bool) -> tuple[dict[str, bytes], dict]:
    """({dist-relative path: content}, the page's build config): the runtime, the trimmed lock and the
    wheels under pyodide/, BokehJS and Panel's static files, site/'s files, the run results and playback
    tables of PAGE_DATA (computed()), and the finished page.
    BENCH: worker.js with bench/run.py's hook, for a site that is measured, never shipped."""
    files = {f"{RUNTIME}/{name}": (stdlib if name == "python_stdlib.zip" else path).read_bytes()
             for name, path in inputs.runtime.items() if name != "pyodide-lock.json"}
    files |= {f"{RUNTIME}/{path.name}": path.read_bytes() for path in shipped.values()}
    lock = trimmed_lock(inputs, shipped)
    files[f"{RUNTIME}/pyodide-lock.json"] = (json.dumps(lock, indent=1, sort_keys=True) + "\n").encode()
    static, scripts = static_files(inputs.pypi)
    files |= static
    files |= {name: (SITE / name).read_bytes() for name in SITE_FILES}
    for sheet in SHARING_CSS:  # the page's and the live sections' rules in common, written once
        files[sheet] += b"\n" + (SITE / "shared.css").read_bytes()
    files["style.css"] = coloured(files["style.css"], page_data["colours"])
    files[PAGE_SCRIPT] = bundle("main.js", "the page's script")
    # The worker: site/worker.js and its imports (the payload unpacker, the checked fetch it shares with the
    # page's player) as one ES module with no import or export left, so the served page starts it as a module
    # worker and the classroom file's bootstrap runs the same bytes as a script (site/classroom.js).
    files["worker.js"] = bundle("worker.js", "the Python worker", module=True)
    if bench:
        files["worker.js"] += BENCH_HOOK.read_bytes()
    files[NOTICES] = notices(inputs)
    config = {
        "pyodide": inputs.pins["npm"]["version"],
        "runtime": f"{RUNTIME}/",
        "packages": sorted(lock["packages"]),
        "package_bytes": sum(len(files[f"{RUNTIME}/{p.name}"]) for p in shipped.values()),
        "panel_cdn_root": PANEL_CDN_ROOT,
        "scripts": scripts,
        # Subresource Integrity of what runs before any lock check: the runtime and the lock (worker.js
        # verifies them before loading) and the page's scripts (boot.js sets <script integrity>).
        "integrity": {rel: sri(files[rel]) for rel in sorted(files)
                      if rel.startswith(f"{RUNTIME}/") and not rel.endswith(".whl") or rel in scripts},
        "id": sha256("".join(f"{k}:{sha256(v)}\n" for k, v in sorted(files.items())).encode())[:16],
        # The page's state rules as data (weighttying.state.rules): site/state.js reads the URL by them.
        "state": page_data["rules"],
        # The words of the player's status lines (weighttying.controls.SAYS), which site/player.js fills in.
        "says": page_data["says"],
        # What site/readout.js reads a figure's data by (weighttying.render.readout_rules).
        "readout": page_data["readout"],
        # The sections whose Run runs before Panel on a numerics worker, and its quiet limit (weighttying.early).
        "early_runs": page_data["early_runs"],
        # What site/inert.js lets slot HTML from an untrusted worker draw (weighttying.render.vocabulary).
        "vocabulary": page_data["vocabulary"],
        # The modules declaring a test build's sections, which the worker names to weighttying.state as this
        # build did ($WT_TEST_SECTIONS); "" on the real page.
        "test_sections": os.environ.get("WT_TEST_SECTIONS", ""),
    }
    playback(files, config, page_data["tables"])
    built_results(files, config, page_data["results"])
    files["index.html"] = page(html, config, serve_module().CSP).encode()
    return files, config


def built_results(files: dict[str, bytes], config: dict, results: str) -> None:
    """results.json, the run results the page shows before any Run (weighttying.prebuilt: the same
    results the prerender drew), with its SRI in config["results"] for worker.js, which hands them to
    the live sections."""
    from weighttying import prebuilt

    files[prebuilt.FILE] = results.encode()
    config["results"] = {"file": prebuilt.FILE, "integrity": sri(files[prebuilt.FILE])}
    log(f"{prebuilt.FILE}: {len(files[prebuilt.FILE]) / 1e3:.0f} kB for {', '.join(json.loads(results))}")


def playback(files: dict[str, bytes], config: dict, tables: dict[str, str]) -> None:
    """The playback TABLES (weighttying.playback) as playback/<id>.json with their SRI, grid and early flag in
    config["playback"]; config["live_bytes"] is what the live lab downloads, compressed as served, for the data
    saver's button."""
    config["playback"] = {}
    for sid, table in tables.items():
        rel = f"playback/{sid}.json"
        files[rel] = table.encode()
        # its grid and whether a numerics worker answers off it, so the page knows at once whether the link it was
        # opened with is off a grid (site/early.js's offGrid: the boot order), before any table is fetched
        grid = {k: v for k, v in json.loads(table).items() if k in ("keys", "values", "early")}
        config["playback"][sid] = {"file": rel, "integrity": sri(files[rel]), **grid}
    live = [rel for rel in files if rel.startswith(f"{RUNTIME}/") or rel in config["scripts"] or rel == "worker.js"]
    br = brotlied([files[rel] for rel in live if len(files[rel]) >= 4096])
    config["live_bytes"] = sum(min(len(files[rel]), len(gzipped(files[rel])), len(br.get(sha256(files[rel]), files[rel])))
                               for rel in live)
    log(f"playback tables: {sum(len(files[t['file']]) for t in config['playback'].values()) / 1e6:.2f} MB for "
        f"{len(config['playback'])} sections; the live lab downloads {config['live_bytes'] / 1e6:.1f} MB")


def static_files(pypi: dict[str, Path]) -> tuple[dict[str, bytes], list[str]]:
    """BokehJS and what the page fetches of Panel's dist/, from their wheels; and the page's scripts in order."""
    files = {}
    wheel = {canonicalize_name(split_filename(f)[0]): p for f, p in pypi.items()}
    with zipfile.ZipFile(wheel["bokeh"]) as z:
        for js in BOKEH_JS:
            files[f"{STATIC}/bokeh/{js}"] = z.read(f"bokeh/server/static/js/{js}")
    with zipfile.ZipFile(wheel["panel"]) as z:
        panel_dist = f"{PANEL_CDN_ROOT}{json.loads(z.read('panel/package.json'))['version'].split('+')[0]}/dist/"
        for n in z.namelist():
            rel = n[len("panel/dist/"):]
            if n.startswith("panel/dist/") and not n.endswith("/") and rel.startswith(PANEL_STATIC):
                files[panel_dist + rel] = z.read(n)
    return files, [f"{STATIC}/bokeh/{js}" for js in BOKEH_JS] + [panel_dist + "panel.min.js"]


def trimmed_lock(inputs: Inputs, shipped: dict[str, Path]) -> dict:
    """pyodide-lock.json listing exactly the wheels we ship, with their sha256 and resolved depends,
    so pyodide.loadPackage installs them (integrity-checked) without micropip."""
    packages, markers = {}, inputs.python.markers()
    for name, path in shipped.items():
        if name in inputs.lock_wheels:  # Pyodide's own entry; file and sha256 are ours when we compiled it
            packages[name] = {**inputs.lock["packages"][name], "file_name": path.name, "sha256": sha256(path)}
            continue
        meta, tops = wheel_metadata(path)
        depends = set()
        for line in meta.get_all("Requires-Dist") or []:
            req = Requirement(line)
            dep = canonicalize_name(req.name)
            if dep in shipped and (req.marker is None or req.marker.evaluate(markers)):
                depends.add(dep)
        packages[name] = {"name": name, "version": meta["Version"], "file_name": path.name,
                          "install_dir": "site", "sha256": sha256(path), "package_type": "package",
                          "imports": tops, "depends": sorted(depends), "unvendored_tests": False}
    return {"info": inputs.lock["info"], "packages": dict(sorted(packages.items()))}


def page(html: str, config: dict, csp: str) -> str:
    """The prerendered page with its Content-Security-Policy and boot configuration filled in."""
    config_json = json.dumps(config, sort_keys=True).replace("<", "\\u003c")
    for slot, value in (("csp", f'<meta http-equiv="Content-Security-Policy" content="{csp}">'),
                        ("config", f'<script id="wt-build" type="application/json">{config_json}</script>')):
        if f"<!--build:{slot}-->" not in html:
            raise BuildError(f"site/index.html lacks the <!--build:{slot}--> slot")
        html = html.replace(f"<!--build:{slot}-->", value)
    return html


def coloured(sheet: bytes, css: str) -> bytes:
    """site/style.css with CSS (weighttying.colours.page_css: the light :root, the figure rules) in its
    /*build:colours*/ slot."""
    if sheet.count(b"/*build:colours*/") != 1:
        raise BuildError("site/style.css needs one /*build:colours*/ slot, where the light colours go")
    return sheet.replace(b"/*build:colours*/", css.encode())


def serve_module():
    """site/serve.py as a module: the one place that defines the Content-Security-Policy."""
    spec = importlib.util.spec_from_file_location("wt_serve", SITE / "serve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
