"""build.py: refuses tampered artifacts (naming them), rebuilds offline and deterministically, and
writes a dist/ whose lock, wheels, page and server fit together.

Tampering happens in a copy of build.py's cache (~/.cache/weighttying) made of hard links (fast, and the real
cache is never touched: a tampered file is a fresh file replacing its link).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from html import unescape
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def cache_copy(dist_dir, tmp_path) -> Path:
    """A hard-linked copy of build.py's warm cache (dist_dir guarantees a build has filled it)."""
    from tools.buildsteps.base import CACHE
    copy = tmp_path / "cache"
    shutil.copytree(CACHE, copy, copy_function=os.link, ignore=shutil.ignore_patterns("peer", "*.part"))
    return copy


@pytest.fixture
def warm_cache(dist_dir) -> Path:
    """build.py's own cache, for builds that tamper with nothing: what they derive (the brotli twins of a build
    without pycs take ~40 s) stays for the next run, as any build's does."""
    from tools.buildsteps.base import CACHE
    return CACHE


def tamper(path: Path) -> None:
    """Flip one byte of PATH in a new file, leaving whatever it was linked to intact."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.unlink()
    path.write_bytes(bytes(data))


def build(cache: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "build.py"), "--offline", "--cache", str(cache),
                           "--out", str(out), *extra], capture_output=True, text=True, timeout=300)


def cached(cache: Path, pattern: str) -> Path:
    [path] = cache.glob(pattern)
    return path


@pytest.mark.parametrize("pattern", ["pypi/param-*.whl", "pypi/pyyaml-*.tar.gz", "lock/numpy-*.whl"])
def test_build_refuses_a_tampered_cached_artifact_and_names_it(cache_copy, tmp_path, pattern):
    victim = cached(cache_copy, pattern)
    tamper(victim)
    proc = build(cache_copy, tmp_path / "dist")
    assert proc.returncode == 1, proc.stderr
    assert victim.name in proc.stderr and "sha256" in proc.stderr and "Refusing to build" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "dist").exists()


def test_wheels_from_is_checked_against_the_pyodide_lock(cache_copy, tmp_path):
    numpy = cached(cache_copy, "lock/numpy-*.whl")
    other = tmp_path / "release"
    other.mkdir()
    shutil.copyfile(numpy, other / numpy.name)
    tamper(other / numpy.name)
    numpy.unlink()  # so the build has to consider the other folder
    proc = build(cache_copy, tmp_path / "dist", "--wheels-from", str(other))
    assert proc.returncode == 1 and numpy.name in proc.stderr and "pyodide-lock.json" in proc.stderr


def test_warm_rebuild_is_offline_and_deterministic(warm_cache, tmp_path):
    a, b = build(warm_cache, tmp_path / "a"), build(warm_cache, tmp_path / "b")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert all(sha256(tmp_path / "a" / f) == sha256(tmp_path / "b" / f) for f in files)


@pytest.mark.parametrize("lever", ["br", "pyc"])
def test_a_build_without_a_lever_still_builds_without_it(warm_cache, tmp_path, lever):
    """bench/run.py --levers measures `build.py --without LEVER`: it builds, and what it leaves out is absent."""
    out = tmp_path / lever
    proc = build(warm_cache, out, "--without", lever)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "index.html").is_file()
    if lever == "br":
        assert not list(out.rglob("*.br"))
    else:
        assert not any(n.endswith(".pyc") for w in (out / "pyodide").glob("*.whl") for n in zipfile.ZipFile(w).namelist())


def test_dist_lock_lists_exactly_the_shipped_wheels(dist_dir):
    runtime = dist_dir / "pyodide"
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    entries = lock["packages"]
    assert lock["info"]["version"] == json.loads((ROOT / "pins" / "artifacts.json").read_text())["npm"]["version"]
    assert {e["file_name"] for e in entries.values()} == {p.name for p in runtime.glob("*.whl")}
    for name, e in entries.items():
        assert sha256(runtime / e["file_name"]) == e["sha256"], name
        assert set(e["depends"]) <= set(entries), f"{name} depends on something not shipped"
    assert {"numpy", "panel", "bokeh", "weighttying", "pyodide-http"} <= set(entries)
    assert not {"micropip", "pandas", "tornado"} & set(entries)
    # Browser assets are served as static files, not shipped to the worker a second time.
    # (Its members are stored uncompressed when build.py precompiles it; the wire size is the twin's.)
    panel = runtime / entries["panel"]["file_name"]
    wire = min(p.stat().st_size for p in (panel, panel.with_name(panel.name + ".br"), panel.with_name(panel.name + ".gz"))
               if p.is_file())
    assert wire < 3_000_000
    import zipfile
    with zipfile.ZipFile(panel) as z:
        assert not [n for n in z.namelist() if n.startswith("panel/dist/")]


def test_the_code_labs_downloads_name_the_wheel_the_build_ships(dist_dir):
    """The script and notebook tell the reader to pip install the wheel beside the served page: that glob, from the
    served folder, finds exactly the package's wheel."""
    from weighttying.views import codelab as codelab_view
    said = re.search(r"pip install (\S+\.whl)", codelab_view.ABOUT)
    assert said, codelab_view.ABOUT
    found = list(dist_dir.glob(said.group(1)))
    assert [p.name.split("-")[0] for p in found] == ["weighttying"], found


def test_dist_page_is_prerendered_and_self_contained(dist_dir):
    html = (dist_dir / "index.html").read_text()
    assert "<!--prerender:" not in html and "<!--build:" not in html
    assert 'http-equiv="Content-Security-Policy"' in html
    assert 'data-testid="sweep-resid"' in html and "<svg" in html  # readable before Python
    config = json.loads(re.search(r'<script id="wt-build" type="application/json">(.*?)</script>', html).group(1))
    for rel in [*config["scripts"], "wt.js", "worker.js", "style.css", "serve.py",
                config["runtime"] + "pyodide.js", config["runtime"] + "pyodide.asm.wasm"]:
        assert (dist_dir / rel).is_file(), rel
    assert (dist_dir / config["panel_cdn_root"]).is_dir()
    vendored = bundled_urls()
    for name in ("index.html", "wt.js", "worker.js", "style.css"):
        text = re.sub(r'xmlns(:\w+)?="[^"]*"', "", (dist_dir / name).read_text())  # namespaces are not fetched
        text = re.sub(r'<a href="https?://[^"]*"', "<a", text)  # a source's link is followed by a reader, not fetched
        ours = set(URL.findall(text)) - vendored
        assert not ours, f"{name} names another origin: {sorted(ours)[:5]}"


URL = re.compile(r"https?://[^\s\"'`)<>\\]*")


def bundled_urls() -> set[str]:
    """Every address written in the npm packages esbuild bundles into wt.js (the code lab's editor): their error
    messages point at their documentation, text a reader may read and nothing fetches (the browser tests record
    every request, and the page's CSP allows no other origin)."""
    from tools.buildsteps.notices import bundled
    found: set[str] = set()
    for package in bundled():
        for path in (ROOT / "node_modules" / package["package"]).rglob("*.js"):
            found |= set(URL.findall(path.read_text(errors="replace")))
    return found


def test_serve_sends_wasm_mime_gzip_and_csp(server):
    req = urllib.request.Request(server.url + "pyodide/pyodide.asm.wasm", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req) as r:
        assert r.headers["Content-Type"] == "application/wasm"
        assert r.headers["Content-Encoding"] == "gzip"
    with urllib.request.urlopen(server.url) as r:
        csp = r.headers["Content-Security-Policy"]
        # the page compiles WebAssembly (Python's runtime, for its workers: site/runtime.js), never evals script
        assert "default-src 'self'" in csp and "'unsafe-eval'" not in csp and "'wasm-unsafe-eval'" in csp
    with urllib.request.urlopen(server.url + "worker.js") as r:
        assert "'wasm-unsafe-eval'" in r.headers["Content-Security-Policy"]


# importlib.util.MAGIC_NUMBER of each CPython that a Pyodide we may use ships (Lib/importlib/_bootstrap_external.py)
MAGIC = {"3.12": "cb0d0d0a", "3.13": "f30d0d0a"}


def test_wheels_and_stdlib_carry_pycs_compiled_by_pyodides_python(dist_dir):
    """build.py's pyc lever: sourceless unchecked-hash .pyc (the magic of the Python that Pyodide's lock
    names) in the wheels and the stdlib zip; our own package keeps its source next to __pycache__."""
    import zipfile

    runtime = dist_dir / "pyodide"
    major, minor = json.loads((runtime / "pyodide-lock.json").read_text())["info"]["python"].split(".")[:2]
    magic = bytes.fromhex(MAGIC[f"{major}.{minor}"])
    for pattern in ("panel-*.whl", "bokeh-*.whl", "python_stdlib.zip"):
        [path] = runtime.glob(pattern)
        with zipfile.ZipFile(path) as z:
            pycs = [n for n in z.namelist() if n.endswith(".pyc")]
            assert len(pycs) > 50 and not [n for n in z.namelist() if n.endswith(".py")], path.name
            head = z.read(pycs[0])[:8]
            assert head[:4] == magic and int.from_bytes(head[4:8], "little") == 0b01, path.name  # unchecked hash
    [ours] = runtime.glob("weighttying-*.whl")
    with zipfile.ZipFile(ours) as z:
        assert "weighttying/model.py" in z.namelist()
        assert f"weighttying/__pycache__/model.cpython-{major}{minor}.pyc" in z.namelist()


def test_serve_prefers_brotli_then_gzip_then_plain(server, dist_dir):
    url = server.url + "pyodide/pyodide.asm.wasm"
    for accept, want in (("gzip, deflate, br", "br"), ("gzip", "gzip"), ("identity", None)):
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": accept})) as r:
            assert r.headers["Content-Encoding"] == want, accept
            assert r.headers["Content-Type"] == "application/wasm"
            assert r.headers["Vary"] == "Accept-Encoding"
            body = r.read()
    assert body == (dist_dir / "pyodide" / "pyodide.asm.wasm").read_bytes()


def test_serve_revalidates_with_etag_and_304(server):
    url = server.url + "pyodide/python_stdlib.zip"
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": "br"})) as r:
        etag = r.headers["ETag"]
        assert etag and r.read()
    req = urllib.request.Request(url, headers={"Accept-Encoding": "br", "If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req)
    assert e.value.code == 304


def test_serve_speaks_http11_so_browsers_use_its_etags(server):
    # Chromium ignores the ETag of an HTTP/1.0 response: every repeat visit was a full download.
    url = server.url + "style.css"
    with urllib.request.urlopen(url) as r:
        assert r.version == 11, f"serve.py answered HTTP/{r.version / 10:.1f}"
        last_modified = r.headers["Last-Modified"]
    req = urllib.request.Request(url, headers={"If-Modified-Since": last_modified})
    with pytest.raises(urllib.error.HTTPError) as e:  # no If-None-Match: the date alone decides
        urllib.request.urlopen(req)
    assert e.value.code == 304
    stale = urllib.request.Request(url, headers={"If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"})
    with urllib.request.urlopen(stale) as r:
        assert r.status == 200 and r.read()


def test_every_python_path_is_derived_from_the_lock_version():
    """Bumping Pyodide changes only pins: the paths and markers that name Python follow the lock's info.python."""
    sys.path.insert(0, str(ROOT))
    from tools.buildsteps.fetch import Python

    py = Python("3.13.2")
    assert (py.site_packages, py.stdlib_zip, py.cache_tag) == ("/lib/python3.13/site-packages/", "/lib/python313.zip/",
                                                               "cpython-313")
    assert py.markers()["python_version"] == "3.13" and py.markers()["python_full_version"] == "3.13.2"
    for path in [ROOT / "build.py", *sorted((ROOT / "tools" / "buildsteps").glob("*.py"))]:
        source = path.read_text().split('"""', 2)[2]  # past the module docstring
        assert not re.search(r"3\.1[0-9]|python31[0-9]|cpython-31", source), \
            f"{path.name} names a Python version; read it from the lock (tools/buildsteps/fetch.py's Python)"


def notice_entries(dist_dir: Path) -> dict[str, str]:
    """{artifact: its entry} of dist/THIRD-PARTY-NOTICES.txt."""
    text = (dist_dir / "THIRD-PARTY-NOTICES.txt").read_text()
    entries = re.split(r"^_{100}\nArtifact: ", text, flags=re.M)[1:]
    return {e.split("\n", 1)[0]: e for e in entries}


def test_every_pinned_artifact_has_its_notice_reachable_from_the_footer(dist_dir):
    pins = json.loads((ROOT / "pins" / "artifacts.json").read_text())
    entries = notice_entries(dist_dir)
    sources = {s.split(":", 1)[0] for s in pins["lock_wheels"]["sources"]}
    lock = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    shipped = [*(n for n in pins["pypi"] if n not in sources),
               *(lock["packages"][p]["file_name"] for p in pins["lock_wheels"]["packages"])]
    [pyodide] = [k for k in entries if k.startswith(f"Pyodide {pins['npm']['version']} (npm package {pins['npm']['package']}")]
    assert "Mozilla Public License Version 2.0" in entries[pyodide]
    decoder = pins["npm_decoder"]
    [brotli] = [k for k in entries if f"{decoder['version']} (npm package {decoder['package']}" in k]
    assert "MIT" in entries[brotli] and "Apache License" in entries[brotli] and len(entries[brotli]) > 2000
    for name in shipped:
        assert name in entries, f"{name} has no third-party notice"
        declared = re.search(r"^License: (.+)$", entries[name], re.M).group(1)
        texts = re.findall(r"^--- (.+)$", entries[name], re.M)
        assert declared and texts and len(entries[name]) > 500, f"{name}: no license text taken from the artifact"
    assert all(s in entries for s in sources)
    footer = re.search(r"<footer.*?</footer>", (dist_dir / "index.html").read_text(), re.S).group(0)
    assert 'href="THIRD-PARTY-NOTICES.txt"' in footer


def test_an_artifact_without_a_license_file_stops_the_build(tmp_path):
    sys.path.insert(0, str(ROOT))
    from tools.buildsteps.archives import write_wheel
    from tools.buildsteps.base import BuildError
    from tools.buildsteps.notices import artifact_license

    bare = write_wheel(tmp_path / "bare-1.0-py3-none-any.whl", "bare-1.0.dist-info",
                             {"bare/__init__.py": b"", "bare-1.0.dist-info/METADATA": b"Name: bare\nLicense: MIT\n"})
    with pytest.raises(BuildError, match="bare-1.0-py3-none-any.whl carries no license file"):
        artifact_license(bare)
    write_wheel(bare, "bare-1.0.dist-info", {"bare/__init__.py": b"", "bare-1.0.dist-info/licenses/LICENSE": b"MIT text",
                                                   "bare-1.0.dist-info/METADATA": b"Name: bare\nLicense: MIT\n"})
    assert artifact_license(bare) == ("MIT", {"bare-1.0.dist-info/licenses/LICENSE": "MIT text"})


def test_shipped_worker_runs_no_code_it_is_sent_and_a_bench_build_adds_the_hook(dist_dir, warm_cache, tmp_path):
    """bench/run.py's hook runs any Python a page posts to the worker: only `build.py --bench` has it."""
    hook = (ROOT / "bench" / "worker_hook.js").read_text()
    shipped = (dist_dir / "worker.js").read_text()
    assert "runPythonAsync" not in shipped and '"bench"' not in shipped and hook.strip() not in shipped
    assert not re.search(r"runPython\w*\(\s*(msg|event|data)", shipped), "the worker runs code from a message"
    proc = build(warm_cache, tmp_path / "bench", "--bench")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "bench" / "worker.js").read_text() == shipped + hook


def test_a_view_that_fails_to_load_stops_the_build_naming_it(monkeypatch):
    """The registry stage loads every view: one that raises on import stops the build with its section and reason."""
    from tools.buildsteps import sections
    from tools.buildsteps.base import BuildError
    from weighttying.views import contract

    def broken(sid):
        raise RuntimeError(f"{sid} view broken on purpose")

    monkeypatch.setattr(contract, "view", broken)
    with pytest.raises(BuildError, match=r"section 'tying': its view \(\S+\) fails to load: RuntimeError: tying view "
                                         r"broken on purpose"):
        sections.registry()


def test_a_failing_prerender_computation_stops_the_build_with_its_reason(cache_copy, tmp_path):
    """The prerender's child process (start_computing, tools/buildsteps/compute.py) raising: the build says so with
    the child's own last words, exits 1 and leaves no site behind."""
    repo = tmp_path / "repo"
    for name in ("py", "site", "tools", "pins", "bench"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "out"))
    for name in ("build.py", "package.json", "package-lock.json"):
        shutil.copy(ROOT / name, repo / name)
    (repo / "node_modules").symlink_to(ROOT / "node_modules")
    view = repo / "py" / "weighttying" / "views" / "sweep.py"
    # the view still loads and keeps the contract (the registry stage passes it); drawing it fails, in the child
    view.write_text(view.read_text() + "\n\ndef slots(st, results=None):\n"
                    "    raise RuntimeError('sweep view broken on purpose')\n")
    proc = subprocess.run([sys.executable, str(repo / "build.py"), "--offline", "--cache", str(cache_copy),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "computing the page in CPython (prerender, results, playback tables) failed" in proc.stderr
    assert "sweep view broken on purpose" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_build_writes_each_sections_live_box_and_refuses_prose_that_types_one(dist_dir, tmp_path, monkeypatch):
    """The live box (tools/buildsteps/sections.py's LIVE_BOX) comes from the registry, once per section, never from a
    section's prose."""
    from tools.buildsteps.base import BuildError
    from tools.buildsteps.sections import LIVE_BOX, prose
    from weighttying import state
    html = (dist_dir / "index.html").read_text()
    assert re.findall(r'<div id="live-([\w-]+)" class="wt-live" data-section="\1">', html) == list(state.SECTIONS)
    for sid in state.SECTIONS:
        assert "wt-live" not in (ROOT / state.SECTION[sid].html).read_text(), sid
    typed = tmp_path / "typed.html"
    typed.write_text('<section id="sweep">\n' + LIVE_BOX.format(sid="sweep") + "\n</section>\n")
    with pytest.raises(BuildError, match="types its own live box"):
        prose(state.Section("sweep", state.Sweep, "", None, str(typed)))
    with pytest.raises(BuildError, match=r'typed.html must be one <section id="tying"'):
        prose(state.Section("tying", state.Tying, "", None, str(typed)))


def test_the_build_writes_the_code_editors_first_frame_and_refuses_a_wrong_key(dist_dir, tmp_path):
    """<!--editor:KEY--> in a section's prose becomes code control KEY's editor host with its default as numbered lines
    (the still frame site/codelab.js mounts over, one source for the code); a key that is not the section's code
    control stops the build naming the file."""
    from tools.buildsteps.base import BuildError
    from tools.buildsteps.sections import prose
    from weighttying import state
    page = unescape(re.search(r'<pre class="wt-codelab-still".*?</pre>', (dist_dir / "index.html").read_text(),
                                          re.S).group(0))
    lines = state.BY_KEY["codelab.code"].default.split("\n")
    assert re.findall(r'data-line="(\d+)" style="--wt-indent: (\d+)">(.*?)</span>', page, re.S) == [
        (str(n), str(len(t) - len(t.lstrip(" "))), t) for n, t in enumerate(lines, 1)]  # the lesson indents with spaces
    assert "<!--editor:" not in (dist_dir / "index.html").read_text()
    for key, why in (("codelab.k", "is a whole control, not code"), ("sweep.code", "names no control of section"),
                     ("codelab.nothing", "names no control of section")):
        typed = tmp_path / "typed.html"
        typed.write_text(f'<section id="codelab">\n  <!--editor:{key}-->\n</section>\n')
        with pytest.raises(BuildError, match=f"typed.html.*{why}"):
            prose(state.Section("codelab", state.Codelab, "", None, str(typed)))


def test_the_cache_is_the_machines_and_prunes_what_no_build_used(tmp_path, monkeypatch):
    """build.py's cache is one per machine ($WT_CACHE, else $XDG_CACHE_HOME/weighttying), so a fresh clone builds
    from it; a built/ entry no build used for 14 days goes, one in use stays, and using one marks it used."""
    from tools.buildsteps import base
    monkeypatch.setenv("WT_CACHE", str(tmp_path / "wt"))
    assert base.user_cache() == tmp_path / "wt"
    monkeypatch.delenv("WT_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert base.user_cache() == tmp_path / "xdg" / "weighttying"
    monkeypatch.setattr(base, "CACHE", tmp_path / "cache")
    made = []
    old, fresh = (base.cached([k], "x.json", lambda p, k=k: (made.append(k), p.write_text(k))) for k in ("old", "new"))
    assert base.cached(["old"], "x.json", lambda p: made.append("again")) == old and made == ["old", "new"]
    month_ago = time.time() - 30 * 86400
    os.utime(old.parent, (month_ago, month_ago))
    base.prune_built()
    assert not old.parent.exists() and fresh.read_text() == "new"
    assert not list((tmp_path / "cache").rglob("*.part")), "a made entry left its part behind"
