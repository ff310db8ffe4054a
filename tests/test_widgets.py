"""Shared section pieces: stamped links, exports that carry them, a runner that reports divergence."""
import asyncio
import csv
import io
import json
import re

import numpy as np

from weighttying import state
from weighttying.app.store import Store
from weighttying.app.kit import Runner, export_buttons, page_url


def store(query=""):
    return Store(state.parse_query(query)[0], base_url="http://x/")


def test_page_url_follows_state():
    st = store("sweep.sigma=0.5")
    assert page_url(st, "sweep") == "http://x/?sweep.sigma=0.5#sweep"
    st["sweep"].grid = "fine"
    assert page_url(st, "sweep") == "http://x/?sweep.sigma=0.5&sweep.grid=fine#sweep"


def test_exports_are_stamped_and_parse_back():
    st = store("repeat.seed=7")
    table = [["tied, res=1", 1.25, True], ["x", float("inf"), False], ["y", float("-inf"), np.bool_(True)],
             ["z", float("nan"), np.int64(3)]]
    row = export_buttons(st, "repeat", "ranks", lambda: (["model", "rank", "flag"], table))
    csv_text = row[0].callback().getvalue()
    assert csv_text.splitlines()[0] == "# reproduce: http://x/?repeat.seed=7#repeat"
    rows = list(csv.reader(io.StringIO("\n".join(csv_text.splitlines()[1:]))))
    assert rows == [["model", "rank", "flag"], ["tied, res=1", "1.25", "true"], ["x", "inf", "false"],
                    ["y", "-inf", "true"], ["z", "nan", "3"]]
    data = json.loads(row[1].callback().getvalue())
    assert data["url"].endswith("repeat.seed=7#repeat")
    assert data["rows"] == [["tied, res=1", 1.25, True], ["x", "inf", False], ["y", "-inf", True], ["z", "nan", 3]]
    # both exports spell every cell the same way (CSV has no types: JSON's spelling of each value)
    def spelled(v):
        return json.dumps(v) if isinstance(v, bool) else str(v)
    assert [[spelled(v) for v in r] for r in data["rows"]] == rows[1:]


def test_runner_reports_divergence_and_stops():
    seen = []

    def steps():
        for i, loss in enumerate([2.0, 1.5, float("inf"), 1.0]):
            yield {"step": i + 1, "loss": loss}

    async def main():
        r = Runner("Train", steps, lambda: 4, seen.append)
        r.start()
        await asyncio.sleep(0.05)
        return r
    r = asyncio.run(main())
    assert [p["step"] for p in seen] == [1, 2]
    assert "Diverged at step 3" in r.status.object and not r.run.disabled and r.cancel.disabled


def test_done_is_said_only_once_the_last_results_are_drawn():
    """The page shows patches in the order the worker sends them: a "Done." said before the run's last draw would
    stand beside numbers that are not yet the final ones (a browser test read the table there, without its rows)."""
    said_at_done = []

    def steps():
        yield {"step": 1}

    async def main():
        r = Runner("Train", steps, lambda: 1, lambda p: None, on_done=lambda last: said_at_done.append(r.status.object))
        r.start()
        await r.job.task
        return r
    r = asyncio.run(main())
    assert len(said_at_done) == 1 and "Done." not in said_at_done[0]
    assert "Done." in r.status.object


def run_state(r: Runner) -> tuple[str, int]:
    """(data-run, data-step) of a Runner's status line: what a browser test waits on after Cancel."""
    run, step = re.search(r'data-run="(\w+)" data-step="(\d+)"', r.status.object).groups()
    return run, int(step)


def test_the_status_line_says_when_a_cancelled_run_is_over_and_its_last_step():
    """Cancel asks the run's task to stop; the status line says "over" only once the task has ended (no step can
    follow), with the last step applied. A run replaced by a newer one never marks the newer one over."""
    pulled = []

    def steps():
        for i in range(1, 10_000):
            pulled.append(i)
            yield {"step": i}

    async def main():
        r = Runner("Train", steps, lambda: 10_000, lambda p: None)
        r.start()
        while len(pulled) < 3:
            await asyncio.sleep(0)
        going = run_state(r)
        r.start()  # a newer run: the first one's end must not mark it over
        first_pulled = len(pulled)
        while r.job.task.done() or run_state(r)[1] < 2:
            await asyncio.sleep(0)
        assert run_state(r)[0] == "going"
        r.stop("Cancelled.")
        at_cancel = run_state(r)
        await r.job.task
        await asyncio.sleep(0)  # the task's done callback runs on the next turn of the loop
        return going, first_pulled, at_cancel, run_state(r), len(pulled)
    going, first_pulled, at_cancel, over, n = asyncio.run(main())
    assert going[0] == "going" and going[1] >= 2
    assert at_cancel[0] == "going"  # asked to stop, not yet confirmed
    assert over[0] == "over" and over[1] == n - first_pulled  # the second run's last step: nothing pulled after it
