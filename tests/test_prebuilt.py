"""Results at once: the run results computed at build (weighttying.prebuilt, results.json) are what the
prerender draws and what the live sections show at start, nothing heavy starts by itself when they are
there, Run still recomputes live, and a missing or modified file is named and computed live instead."""
import asyncio
import dataclasses
import functools
import importlib
import re

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.events import DocumentReady
from panel.io.state import set_curdoc

from harness import until_async
from weighttying import prebuilt, prerender
from weighttying import state
from weighttying.app import jobs, main
from weighttying.app.store import Store
from weighttying.precision import carry
from weighttying.views import kit

RUN_SECTIONS = prebuilt.RUN_SECTIONS
HOOK = re.compile(r'data-testid="([^"]+)" data-value="([^"]*)"')
SOURCE = re.compile(r'<p class="wt-source" data-testid="[\w-]+" data-source="(\w+)">[^<]*</p>')


@functools.lru_cache(maxsize=None)
def shipped() -> bytes:
    """results.json's bytes as build.py writes them (each heavy run once per test process)."""
    return prebuilt.dumps(prebuilt.compute())


def built() -> dict:
    return prebuilt.loads(shipped().decode())


def view(sid):
    return prerender.view(sid)


def slot_panes(root) -> dict[str, str]:
    return {m.group(1): p.object for p in root.select(pn.pane.HTML)
            if (m := re.match(r'<div class="wt-slot" data-slot="([\w-]+)">', p.object or ""))}


def test_the_file_holds_every_run_section_and_reads_back_exactly():
    data = built()
    assert set(data) == set(RUN_SECTIONS) and all(r["origin"] == kit.BUILT for r in data.values())
    for sid in RUN_SECTIONS:  # the file is exactly what the prerender drew from
        assert data[sid] == kit.with_results(view(sid), getattr(state.State(), sid))
    assert len(shipped()) < 400_000, len(shipped())  # it travels with the live lab: keep it small


@pytest.mark.parametrize("sid", RUN_SECTIONS)
def test_shipped_results_show_the_same_numbers_as_the_run_and_say_where_they_come_from(sid):
    st = getattr(state.State(), sid)
    # a live run draws from its results carried as the build carries them (precision.carry), as app.kit.Slots does
    live, shipped_ = view(sid).slots(st, carry(view(sid).results(st))), view(sid).slots(st, built()[sid])
    assert HOOK.findall("".join(live.values())) == HOOK.findall("".join(shipped_.values()))
    assert SOURCE.findall("".join(live.values())) == ["live"]
    assert SOURCE.findall("".join(shipped_.values())) == ["build"]
    assert {k: SOURCE.sub("", v) for k, v in live.items()} == {k: SOURCE.sub("", v) for k, v in shipped_.items()}


def test_loads_names_the_file_when_it_is_not_results():
    for text, why in (("{not json", "is not valid JSON"), ("[1, 2]", "does not hold results"),
                      ('{"nosuch": {}}', "does not hold results")):
        with pytest.raises(ValueError, match=f"results.json {why}"):
            prebuilt.loads(text)
    results, notes = main.built_results(None, "results.json was modified: its sha256 is not the one this build recorded")
    assert results is None and "results.json was modified" in notes[0] and "live in your browser" in notes[0]
    results, notes = main.built_results("{oops")
    assert results is None and "results.json is not valid JSON" in notes[0]
    assert main.built_results(shipped().decode()) == (built(), [])


def boot(built_results, query=""):
    """Every live section built into one document as the worker does, then the page's document_ready;
    returns (roots by section, the iterators Jobs were started with)."""
    started = []
    start = jobs.Job.start

    def record(self, steps, *args, **kw):
        started.append(steps)
        return start(self, steps, *args, **kw)

    async def run():
        doc, store = Document(), Store(state.parse_query(query)[0], base_url="http://x/", prebuilt=built_results)
        jobs.Job.start = record
        try:
            with set_curdoc(doc):
                roots = {sid: importlib.import_module(f"weighttying.app.sections.{sid}").build(store)
                         for sid in state.SECTIONS}
                for root in roots.values():
                    root.server_doc(doc, location=False)
                doc.callbacks.trigger_event(DocumentReady())
                await asyncio.sleep(0.3)  # fixed: "starts nothing by itself" needs a time to have waited
                # stop what the fallback started before the loop closes: a click, which in the worker
                # arrives with the section's document as curdoc
                for root in roots.values():
                    for b in root.select(pn.widgets.Button):
                        if b.name == "Cancel" and not b.disabled:
                            b.clicks += 1
        finally:
            jobs.Job.start = start
        return roots, store, started
    return asyncio.run(run())


def test_at_start_the_live_sections_show_the_builds_results_and_start_nothing():
    roots, store, started = boot(built())
    assert started == []  # no check, race, study or seed run starts by itself
    for sid in RUN_SECTIONS:  # the same slot HTML as the prerender (and the played-back default)
        want = view(sid).slots(store.state_of(sid), kit.with_results(view(sid), store.state_of(sid)))
        assert slot_panes(roots[sid]) == {n: kit.slot(n, h) for n, h in want.items()}, sid
        assert 'data-source="build"' in "".join(slot_panes(roots[sid]).values()), sid
    assert 'data-source="build"' in prerender.section("tasks", state.Tasks())


def test_without_the_file_the_sections_compute_their_default_results_live():
    roots, store, started = boot(None)
    assert len(started) >= len(RUN_SECTIONS)  # each section's default run (pathdrop's central differences too)
    assert 'data-source="build"' not in "".join("".join(slot_panes(r).values()) for r in roots.values())


def test_settings_the_build_did_not_run_show_pending_not_the_builds_numbers():
    changed = {"tasks": "seeds=2", "repeat": "steps=100", "paper": "scale=4"}  # one run setting each
    roots, store, started = boot(built(), "&".join(f"{sid}.{kv}" for sid, kv in changed.items()))
    for sid in changed:
        assert 'data-source="build"' not in "".join(slot_panes(roots[sid]).values()), sid
    assert "Not run yet for these settings" in slot_panes(roots["tasks"])["status"]
    assert 'data-source="build"' in "".join(slot_panes(roots["pathdrop"]).values())


def test_run_recomputes_live_the_same_numbers_and_cancel_stops_it():
    async def run():
        store = Store(state.State(), base_url="http://x/", prebuilt=built())
        root = importlib.import_module("weighttying.app.sections.repeat").build(store)
        [train] = [b for b in root.select(pn.widgets.Button) if b.name.startswith("Train")]
        before = slot_panes(root)
        train.clicks += 1
        await asyncio.sleep(0)
        assert 'data-source="build"' not in "".join(slot_panes(root).values())  # the build's race is gone
        await until_async(lambda: not train.disabled)
        after = slot_panes(root)
        assert 'data-source="live"' in after["trained"]
        assert HOOK.findall("".join(after.values())) == HOOK.findall("".join(before.values()))

        tasks = importlib.import_module("weighttying.app.sections.tasks").build(store)
        [go] = [b for b in tasks.select(pn.widgets.Button) if b.name.startswith("Run")]
        [cancel] = [b for b in tasks.select(pn.widgets.Button) if b.name == "Cancel"]
        go.clicks += 1
        await until_async(lambda: not cancel.disabled)
        cancel.clicks += 1
        def shown():
            return "".join(p.object or "" for p in tasks.select(pn.pane.HTML))
        await until_async(lambda: "Cancelled." in shown())
        assert 'data-source="build"' not in shown()
    asyncio.run(run())


def changed(sid: str, st):
    """st with the section's first RUN_KEYS field moved off the default, within its bounds."""
    key = view(sid).RUN_KEYS[0]
    c, v = state.BY_KEY[f"{sid}.{key}"], getattr(st, key)
    new = (not v) if c.type is bool else c.type(v + 1) if c.type is int and v < c.hi else c.type(v / 2)
    return dataclasses.replace(st, **{key: new})


@pytest.mark.parametrize("sid", [sid for sid in RUN_SECTIONS if view(sid).RUN_KEYS])
def test_the_run_keys_policy_a_change_stops_the_run_and_waits_for_run(sid):
    """The one policy (app.kit.RunSection, docs/DESIGN.md): a RUN_KEYS change stops a run in flight and shows
    the pending state, starting nothing; back at the defaults the build's results show again."""
    async def run():
        store = Store(state.State(), base_url="http://x/", prebuilt=built())
        root = importlib.import_module(f"weighttying.app.sections.{sid}").build(store)
        go = [b for b in root.select(pn.widgets.Button) if b.name.startswith(("Train", "Run"))][-1]
        cancel = [b for b in root.select(pn.widgets.Button) if b.name == "Cancel"][-1]
        bar = [b for b in root.select(pn.indicators.Progress)][-1]
        assert not bar.visible and cancel.disabled  # progress shows only while something runs
        go.clicks += 1
        await until_async(lambda: not cancel.disabled)
        # the build's results go with the run's start, or (a section that holds them: the code lab) its first answer
        await until_async(lambda: 'data-source="build"' not in "".join(slot_panes(root).values()), 30, "the run's own")
        assert bar.visible and not cancel.disabled  # still going
        st = changed(sid, store.state_of(sid))
        store[sid].param.update(**vars(st))
        for _ in range(50):  # event-loop turns: a run started by the change would be going now
            await asyncio.sleep(0)
        assert cancel.disabled and not go.disabled and not bar.visible
        assert "Settings changed: the run was stopped" in "".join(p.object or "" for p in root.select(pn.pane.HTML))
        want = view(sid).slots(st, kit.with_results(view(sid), st))
        assert slot_panes(root) == {n: kit.slot(n, h) for n, h in want.items()}, sid  # pending, as played back
        store.reset(sid)
        default = state.State()
        want = view(sid).slots(getattr(default, sid), kit.with_results(view(sid), getattr(default, sid)))
        assert slot_panes(root) == {n: kit.slot(n, h) for n, h in want.items()}, sid  # the build's results again
        assert 'data-source="build"' in "".join(slot_panes(root).values()) and cancel.disabled
    asyncio.run(run())
