"""The engine matrix: Chromium, Firefox ESR and WebKitGTK (tests/engines.py), each on the served site and
on the classroom file opened from disk, each booted once and shared by the read-only checks:

  - readable at once (prose and prerendered figure before Python) and a playback slider answers before
    Python with CPython's numbers;
  - every section goes live, a live slider answers with CPython's value, an export downloads;
  - a Run on the pool of numerics workers gives CPython's numbers (the boot's query makes the tasks Run short);
  - a sample of hostile links reads safely (the boot's own query carries them): the notes are CPython's
    parser's, nothing is injected;
  - nothing is requested off the origin or the file (refused and recorded if tried, workers included);
  - a classroom file with one flipped byte names the damaged member and keeps the text.

One engine alone: `pytest tests/test_engines.py -k webkit` (or firefox, chromium).
"""
from __future__ import annotations

import shutil
from urllib.parse import quote, urlsplit

import pytest

import engines
from conftest import in_ci
from harness import BOOT_TIMEOUT_S, FOCUS_SLIDER_JS, MOVE_JS, slider_title, sweep_readout
from test_browser_classroom import flip_byte_of, manifest
from test_browser_player import SLOTS_JS, VALUES_JS, cpython_values, mismatches
from weighttying import state
from weighttying import sweep, tasks
import carried_numbers
from tools import single_file

pytestmark = pytest.mark.browser

REL_TOL = carried_numbers.REL  # a number the page carries (weighttying.precision) beside the exact one here
# Hostile values on keys the sweep does not read: each becomes a note, nothing else changes.
HOSTILE = [("theme", "<img src=x onerror=window.__wtPwned=1>"), ("savings.preset", '"><svg onload=window.__wtPwned=1>'),
           ("<script>window.__wtPwned=1</script>", "1"), ("paper.scale", "javascript:alert(1)")]
# A one-seed, 30-step tasks Run: short enough to press in every engine's shared boot.
RUN = {"seeds": 1, "steps": 30}
QUERY = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in HOSTILE) + "".join(
    f"&tasks.{k}={v}" for k, v in RUN.items())

EARLY_JS = """() => ({status: window.__wt && window.__wt.status,
  prose: (document.querySelector('#sweep p') || {}).textContent || '',
  figure: !!document.querySelector('#live-sweep .wt-prerender svg')})"""
BOOT_END_JS = "() => window.__wt && window.__wt.status !== 'booting' && {status: window.__wt.status, error: window.__wt.error}"
INJECTED_JS = """() => { const bad = [];
  (function walk(root) {
    for (const e of root.querySelectorAll('img[src="x"], svg[onload], iframe, object, embed')) bad.push(e.outerHTML.slice(0, 120));
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  })(document);
  return {bad, pwned: window.__wtPwned === 1}; }"""
RESOURCES_JS = "() => performance.getEntriesByType('resource').map((e) => e.name)"


def engine_or_skip(name: str):
    """engines.launched(NAME), or a skip saying what is missing (a failure under CI=true)."""
    why = engines.missing(name)
    if why:
        if in_ci():
            pytest.fail(f"{name}: {why}: the engine matrix must run in CI", pytrace=False)
        pytest.skip(why)
    return engines.launched(name)


def engine_fixture(names=engines.ENGINES):
    """A module-scoped fixture `engine`: each engine of NAMES launched once for the module's tests."""
    @pytest.fixture(scope="module", params=list(names))
    def engine(request):
        with engine_or_skip(request.param) as e:
            yield e
    return engine


engine = engine_fixture()


@pytest.fixture(scope="module")
def classroom(dist_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("usb-stick")
    shutil.copyfile(dist_dir / single_file.NAME, folder / single_file.NAME)
    return folder / single_file.NAME


def boot(engine, url):
    """Open URL, check what a reader has before Python (readable, a playback slider answers), wait for the
    boot's end: {page, early, played, end}."""
    page = engine.open(url)
    early = page.js(EARLY_JS)
    played = play_before_python(page)
    end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
    return {"page": page, "early": early, "played": played, "end": end, "url": url}


def play_before_python(page) -> dict:
    """Press ArrowRight on the sweep's playback slider while Python still boots: what changed, and whether
    the values shown are CPython's for the URL the player wrote."""
    page.wait("() => !!(window.__wt && window.__wt.player && window.__wt.player.tables.sweep)", timeout=60)
    before = page.js(SLOTS_JS, "sweep")
    status = page.js("() => window.__wt.status")
    page.js("() => document.querySelector('#live-sweep .wt-player input[type=range]').focus()")
    page.press("ArrowRight")
    after = page.js(SLOTS_JS, "sweep")
    query = page.js("() => location.search.slice(1)")
    return {"status": status, "changed": after != before, "query": query,
            "bad": mismatches(page.js(VALUES_JS, "sweep"), cpython_values("sweep", query))}


@pytest.fixture(scope="module", params=["served", "file"])
def booted(request, engine, server, classroom):
    """One boot per engine and place, shared by the read-only checks."""
    where = server.url if request.param == "served" else classroom.as_uri()
    b = boot(engine, f"{where}?{QUERY}")
    yield b
    b["page"].close()


def test_readable_and_playback_answers_before_python(booted):
    early, played = booted["early"], booted["played"]
    assert len(early["prose"]) > 100 and early["figure"], early
    assert played["status"] == "booting", f"Python was ready before the playback check: {played}"
    assert played["changed"], "the playback slider's press changed nothing"
    assert "sweep." in played["query"] and not played["bad"], played


def test_every_section_goes_live(booted):
    page = booted["page"]
    assert booted["end"]["status"] == "ready", booted["end"]
    sections = page.js("() => [...document.querySelectorAll('section.wt-section[id]')].map((s) => s.id)")
    live = page.js("() => [...document.querySelectorAll('[data-live=true]')].map((e) => e.id)")
    assert sections and sorted(live) == sorted(f"live-{s}" for s in sections), (sections, live)
    assert page.js("() => document.getElementById('wt-error').hidden"), page.js("() => window.__wt.error")


def test_hostile_links_read_safely(booted):
    page = booted["page"]
    # Each note is one CPython's parser gives for the link or for the query the playback press wrote from it
    # (which drops what it plays: the savings preset); the theme, which nothing plays, is always named.
    want = set(state.parse_query(booted["url"].split("?", 1)[1])[1]) | set(state.parse_query(booted["played"]["query"])[1])
    shown = page.js("() => [...document.querySelectorAll('#wt-notes-list li')].map((li) => li.textContent)")
    assert shown and set(shown) <= want, (shown, want)
    assert any(n.startswith("theme=") for n in shown), shown
    assert page.js(INJECTED_JS) == {"bad": [], "pwned": False}


def test_live_slider_equals_cpython(booted):
    page = booted["page"]
    assert booted["end"]["status"] == "ready", booted["end"]
    before = sweep_readout(page)
    assert page.js(FOCUS_SLIDER_JS, [slider_title("sweep.sigma"), "sweep"]) is None
    page.js(MOVE_JS, ["live-sweep", "sweep-readout"])
    page.press("ArrowRight")
    page.js("() => window.__wtMove")
    page.wait("(q) => window.__wt.query !== q && window.__wt.query", booted["played"]["query"], timeout=30)
    st = state.parse_query(page.js("() => window.__wt.query"))[0]
    want = sweep.init_scales(st.sweep.sigma, st.sweep.in_scale)
    got = sweep_readout(page)
    assert got["resid"] != before["resid"], (before, got)
    for k in ("resid", "logit"):
        assert abs(got[k] - float(want[k])) <= REL_TOL * abs(float(want[k])), (k, got[k], want[k])


# The element under #live-SID, through Panel's shadow roots, matching a selector and holding a text.
FIND_JS = """(sid, sel, text) => { const find = (root) => {
        for (const e of root.querySelectorAll(sel)) if (e.textContent.includes(text)) return e;
        for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { const f = find(e.shadowRoot); if (f) return f; }
        return null; }; return find(document.getElementById(`live-${sid}`)); }"""

# The header of the section's "Data and downloads" card (a Panel Card whose host carries .wt-data).
OPEN_JS = """() => { const find = (root) => {
        for (const e of root.querySelectorAll('.wt-data')) { const h = (e.shadowRoot || e).querySelector('.card-header'); if (h) return h; }
        for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { const f = find(e.shadowRoot); if (f) return f; }
        return null; }; return find(document.getElementById('live-sweep')); }"""


def test_an_export_downloads(booted):
    page = booted["page"]
    assert booted["end"]["status"] == "ready", booted["end"]
    # The downloads sit in the section's closed "Data and downloads" card: open it first, as a reader would.
    page.click(OPEN_JS)
    page.wait(f"() => !!({FIND_JS})('sweep', 'button', 'Download CSV')", timeout=30)
    name, data = page.download(FIND_JS, "sweep", "button", "Download CSV")
    first = data.decode().splitlines()[0]
    here = page.js("() => location.href.split('#')[0]")
    assert name.endswith(".csv") and first == f"# reproduce: {here}#sweep", (name, first)


def test_a_pooled_run_gives_cpythons_numbers(booted):
    page = booted["page"]
    assert booted["end"]["status"] == "ready", booted["end"]
    page.click(FIND_JS, "tasks", "button", "Run the seeds")
    page.wait(f"() => !!({FIND_JS})('tasks', '.wt-status', 'Done.')", timeout=120)
    assert page.js("() => __wt.pool.started") >= 1
    # one compile of the runtime per page (site/runtime.js): every worker was handed the page's over http; in the file,
    # every worker after the first (the Panel worker here) the module the first compiled
    given = page.js("() => [__wt.timings.runtime_given, ...__wt.pool.boots.filter((b) => b.ready).map((b) => b.runtime_given)]")
    served = booted["url"].startswith("http")
    assert len(given) >= 2 and [ms is not None for ms in given] == [served] + [True] * (len(given) - 1), given
    got = page.js(VALUES_JS, "tasks")
    for r in tasks.table(seeds=range(RUN["seeds"]), steps=RUN["steps"]):
        slug = r["task"].lower()
        assert abs(float(got[f"tasks-{slug}-tied"]) - r["tied"]) <= REL_TOL * max(1.0, abs(r["tied"])), slug


def test_nothing_leaves_the_origin_or_file(booted):
    page = booted["page"]
    assert page.refused() == [], page.refused()
    u = urlsplit(booted["url"])
    home = f"{u.scheme}://{u.netloc}/" if u.scheme != "file" else None
    off = [r for r in page.js(RESOURCES_JS) if not r.startswith(("blob:", "data:")) and not (home and r.startswith(home))]
    assert off == [], off
    assert page.js("() => window.__wt.cspViolations") == []


def test_a_tampered_classroom_file_names_the_damaged_member(engine, classroom, tmp_path):
    data = classroom.read_bytes()
    member = next(m for m in manifest(data) if m["path"].startswith("pyodide/numpy-"))
    damaged = tmp_path / single_file.NAME
    damaged.write_bytes(flip_byte_of(data, member))
    page = engine.open(damaged.as_uri())
    try:
        end = page.wait(BOOT_END_JS, timeout=BOOT_TIMEOUT_S * 2, every=0.25)
        assert end["status"] == "failed", end
        msg = page.js("() => document.getElementById('wt-error-msg').textContent")
        assert member["path"] in msg and "modified" in msg, msg
        assert page.js("() => !!document.querySelector('#live-sweep .wt-prerender svg')")
        assert page.refused() == [], page.refused()
    finally:
        page.close()
