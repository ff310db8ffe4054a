"""Bad URL state in the browser: 60 hand-picked cases, every one checked, in a few boots.

One boot per case is too slow on 2 cores, so cases are packed into as few batches as their keys allow
(no key twice in a batch, so each case's note is its own; three boots for 60 cases), and each batch is loaded by rewriting the address
(history.replaceState) and calling window.__wt.restart(): a new worker parses the new query.
For every batch, what the page shows must equal what CPython's parser says:
  - the notes list, as text, is exactly parse_query(query)'s notes (each case's note is in it);
  - the URL the page rewrites to is to_query(state): the values it used;
  - nothing was executed or rendered as markup: no dialog, no injected element anywhere (shadow
    roots included), no flag set by an injected handler;
  - the page works: status ready, no error box, no live section says it could not start or stopped
    with an error, and the sweep readout is CPython's for that state.
"""
from __future__ import annotations

from urllib.parse import quote

import pytest

from robust import booted, error_box, injected, live_sections, notes_shown, section_text, settle, wait_status
from harness import sweep_readout
from weighttying import state
from weighttying import sweep
from weighttying.views import savings as savings_view
from carried_numbers import near

pytestmark = pytest.mark.browser

XSS = [
    "<script>window.__wtPwned.push(1)</script>",
    "<img src=x onerror=window.__wtPwned.push(2)>",
    '"><svg onload=window.__wtPwned.push(3)>',
    "<iframe src=javascript:alert(4)></iframe>",
    "javascript:alert(5)",
    "<b data-wt-injected=1>bold</b>",
    "';alert(6);//",
    "{{7*7}}${alert(8)}",
    "<style>*{display:none}</style>",
    "\u202eevil\u0000nul",
]

# (key, raw value): each a case. Values are URL-encoded when the query is made.
CASES: list[tuple[str, str]] = [
    # non-numbers
    ("sweep.sigma", "abc"), ("sweep.in_scale", "1_0"), ("sweep.band", "0x10"), ("tasks.seeds", "2.5"),
    ("savings.V", "fifty"), ("tying.d", ""), ("paper.scale", "1,5"), ("pathdrop.k", "1e3"),
    # NaN / inf
    ("repeat.sigma", "nan"), ("repeat.lr", "inf"), ("pathdrop.lr", "-inf"), ("tasks.lr", "NaN"),
    ("sweep.sigma", "1e999"), ("sweep.in_scale", "-1e999"),
    # out of range (clamped) and negative sizes
    ("sweep.band", "5"), ("paper.steps", "999999"), ("tying.V", "-64"), ("tying.d", "-1"),
    ("savings.layers", "-3"), ("savings.context", "99999999999"), ("gradcheck.batch", "0"),
    ("gradcheck.res", "-0.5"), ("repeat.res", "2"), ("repeat.steps", "-600"), ("tasks.steps", "1"),
    ("paper.seed", "-1"), ("gradcheck.seed", "99999999999"), ("sweep.sigma", "1e-300"),
    # booleans and choices
    ("gradcheck.tied", "maybe"), ("pathdrop.input", "2"), ("repeat.tied", "TRUE!"), ("sweep.grid", "ultra"),
    ("savings.preset", "gpt5"), ("theme", "neon"), ("embed", "nosuchsection"),
    # unknown keys
    ("bogus", "1"), ("sweep.nope", "3"), ("SWEEP.SIGMA", "0.5"), ("__proto__", "x"), ("constructor", "y"),
    # 10 kB values
    ("sweep.in_scale", "9" * 10_000), ("tasks.lr", "1" * 10_240), ("hide", "prose," * 2_000),
    # markup and script in values and in keys
    *[(key, v) for key, v in zip(("embed", "theme", "sweep.grid", "savings.preset", "hide", "gradcheck.tied",
                                  "repeat.lr", "paper.steps", "pathdrop.output", "tying.V"), XSS)],
    ("<img src=x onerror=window.__wtPwned.push(9)>", "1"), ("<script>alert(10)</script>", "<b>x</b>"),
    ("hide", "sweep,<svg onload=window.__wtPwned.push(11)>"),
    # duplicated keys (each pair is one case: the same key twice)
    ("pathdrop.steps", "10"), ("pathdrop.steps", "abc"),
    ("paper.scale", "2"), ("paper.scale", "3"),
]


def batches(cases):
    """As few batches as the repeated keys allow: each case goes to the first batch that lacks its key,
    except the deliberate duplicate pairs (the last four cases), which go together."""
    units = [[c] for c in cases[:-4]] + [cases[-4:-2], cases[-2:]]
    out: list[list] = []
    for unit in units:
        key = unit[0][0]
        home = next((b for b in out if key not in {k for k, _ in b}), None)
        if home is None:
            out.append(home := [])
        home.extend(unit)
    return out


def used_values(page_state: state.State, live: list[str]) -> dict:
    """The values a page built from STATE writes back: the parser's, after the sections that reconcile
    linked controls on load have done so (savings: a preset and numbers that disagree make it 'custom')."""
    vals = state.values(page_state)
    if "savings" in live:
        sav = {f: vals[f"savings.{f}"] for f in ("preset", *savings_view.FIELDS)}
        vals.update({f"savings.{f}": v for f, v in savings_view.reconcile(sav).items()})
    return vals


def query_of(batch) -> str:
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in batch)


def test_case_count():
    assert len(CASES) >= 50, len(CASES)
    assert sum(len(b) for b in batches(CASES)) == len(CASES)


def test_bad_url_state_in_the_browser(browser, server):
    plan = batches(CASES)
    with booted(browser, server, settled=False) as s:
        page = s.page
        page.evaluate("() => { window.__wtNoReload = 1; }")
        checked = 0
        for i, batch in enumerate(plan):
            query = query_of(batch)
            want_state, want_notes = state.parse_query(query)
            page.evaluate("(q) => history.replaceState(null, '', '?' + q)", query)
            page.evaluate("() => { window.__wt.restart(); }")
            wait_status(page, "ready")
            settle(page, timeout_s=5, strict=False)  # notes and URL come with the boot; runs may stream on
            where = f"batch {i} ({query[:200]!r})"
            # Every rejected or clamped value is named, exactly as CPython's parser names it.
            shown = notes_shown(page)
            assert shown == want_notes, f"{where}: notes shown {shown} != parser's {want_notes}"
            for k, v in batch:
                _, note = state.parse_value(state.BY_KEY[k], v) if k in state.BY_KEY else (None, "unknown")
                if note:
                    assert any(k[:20] in n for n in shown), f"{where}: no note names {k!r}={v[:40]!r}: {shown}"
                checked += 1
            # The URL now says what the page used (a section may add what it derives, e.g. preset=custom).
            used, used_notes = state.parse_query(page.evaluate("() => location.search.slice(1)"))
            assert used_notes == [], where
            want = used_values(want_state, live_sections(page))
            for k in {k for k, _ in batch if k in state.BY_KEY}:
                assert state.values(used)[k] == want[k], f"{where}: {k} is {state.values(used)[k]!r} in the URL, not {want[k]!r}"
            # Nothing ran, nothing was rendered as markup.
            assert not s.dialogs, f"{where}: a dialog fired: {s.dialogs}"
            assert page.evaluate("() => window.__wtPwned") == [], f"{where}: injected code ran"
            assert injected(page) == [], f"{where}: injected elements: {injected(page)}"
            # The page works: no error, and the sweep shows CPython's numbers for the state used.
            assert page.evaluate("() => window.__wt.status") == "ready"
            assert not error_box(page)["shown"], f"{where}: {error_box(page)}"
            for sid in live_sections(page):
                text = section_text(page, sid)
                assert "could not start" not in text and "Traceback" not in text and "Stopped:" not in text, \
                    f"{where}: section {sid} says {text[:300]!r}"
            if page.evaluate("() => document.getElementById('live-sweep')?.dataset.live === 'true'"):
                got = sweep_readout(page)
                want = sweep.init_scales(want_state.sweep.sigma, want_state.sweep.in_scale)
                assert near(got["resid"], want["resid"]), (where, got)
        assert checked == len(CASES)
        assert page.evaluate("() => window.__wtNoReload") == 1
        assert not s.rec.page_errors, s.rec.page_errors
        assert not s.watch()["rejections"], s.watch()
        print(f"[url] {checked} hand-picked cases in {len(plan)} boots")
