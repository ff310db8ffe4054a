"""Shared section pieces: stamped links, exports that carry them, a runner that reports divergence."""
import asyncio
import csv
import io
import json

import numpy as np

from weighttying import state as S
from weighttying.app.store import Store
from weighttying.app.kit import Runner, export_buttons, page_url


def store(query=""):
    return Store(S.parse_query(query)[0], base_url="http://x/")


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
    spelled = lambda v: json.dumps(v) if isinstance(v, bool) else str(v)  # noqa: E731
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
