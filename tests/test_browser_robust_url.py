"""Bad URL state in the browser: 60 hand-picked cases, every one checked, in a few boots.

One boot per case is too slow on 2 cores, so cases are packed into batches whose keys do not collide
(so each case's note is its own), and each batch is loaded by rewriting the address
(history.replaceState) and calling window.__wt.restart(): a new worker parses the new query.
For every batch, what the page shows must equal what CPython's parser says:
  - the notes list, as text, is exactly parse_query(query)'s notes (each case's note is in it);
  - the URL the page rewrites to is to_query(state): the values it used;
  - nothing was executed or rendered as markup: no dialog, no injected element anywhere (shadow
    roots included), no flag set by an injected handler;
  - the page works: status ready, no error box, and the sweep readout is CPython's for that state.
"""
from __future__ import annotations

from urllib.parse import quote

import pytest

from robust import booted, error_box, injected, notes_shown, settle, wait_status
from conftest import sweep_readout
from weighttying import state as S
from weighttying import sweep

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


def batches(cases, size=16):
    """Consecutive cases packed so no key repeats inside a batch, except deliberate duplicate pairs."""
    out, cur, keys = [], [], set()
    dup_pairs = {k for k, _ in cases[-4:]}
    for k, v in cases:
        if (k in keys and k not in dup_pairs) or len(cur) >= size:
            out.append(cur)
            cur, keys = [], set()
        cur.append((k, v))
        keys.add(k)
    return out + [cur]


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
            want_state, want_notes = S.parse_query(query)
            page.evaluate("(q) => history.replaceState(null, '', '?' + q)", query)
            page.evaluate("() => { window.__wt.restart(); }")
            wait_status(page, "ready")
            settle(page, timeout_s=10, strict=False)  # notes and URL come with the boot; runs may stream on
            where = f"batch {i} ({query[:200]!r})"
            # Every rejected or clamped value is named, exactly as CPython's parser names it.
            shown = notes_shown(page)
            assert shown == want_notes, f"{where}: notes shown {shown} != parser's {want_notes}"
            for k, v in batch:
                _, note = S.parse_value(S.BY_KEY[k], v) if k in S.BY_KEY else (None, "unknown")
                if note:
                    assert any(k[:20] in n for n in shown), f"{where}: no note names {k!r}={v[:40]!r}: {shown}"
                checked += 1
            # The URL now says what the page used (a section may add what it derives, e.g. preset=custom).
            used, used_notes = S.parse_query(page.evaluate("() => location.search.slice(1)"))
            assert used_notes == [], where
            for k in {k for k, _ in batch if k in S.BY_KEY}:
                assert S.values(used)[k] == S.values(want_state)[k], f"{where}: {k} is {S.values(used)[k]!r} in the URL"
            # Nothing ran, nothing was rendered as markup.
            assert not s.dialogs, f"{where}: a dialog fired: {s.dialogs}"
            assert page.evaluate("() => window.__wtPwned") == [], f"{where}: injected code ran"
            assert injected(page) == [], f"{where}: injected elements: {injected(page)}"
            # The page works: no error, and the sweep shows CPython's numbers for the state used.
            assert page.evaluate("() => window.__wt.status") == "ready"
            assert not error_box(page)["shown"], f"{where}: {error_box(page)}"
            if page.evaluate("() => document.getElementById('live-sweep')?.dataset.live === 'true'"):
                got = sweep_readout(page)
                want = sweep.init_scales(want_state.sweep.sigma, want_state.sweep.in_scale)
                assert abs(got["resid"] - float(want["resid"])) <= 1e-9 * abs(float(want["resid"])), (where, got)
        assert checked == len(CASES)
        assert page.evaluate("() => window.__wtNoReload") == 1
        assert not s.rec.page_errors, s.rec.page_errors
        assert not s.watch()["rejections"], s.watch()
        print(f"[url] {checked} hand-picked cases in {len(plan)} boots")
