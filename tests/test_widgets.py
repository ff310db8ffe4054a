"""Shared section pieces: stamped links, exports that carry them, a runner that reports divergence."""
import asyncio
import csv
import io
import json

from weighttying import state as S
from weighttying.app.store import Store
from weighttying.app.widgets import Runner, export_buttons, page_url, stamped_figure


def store(query=""):
    return Store(S.parse_query(query)[0], base_url="http://x/")


def test_page_url_follows_state_and_figure_stamp_updates():
    st = store("sweep.sigma=0.5")
    f = stamped_figure(st, "sweep")
    assert page_url(st, "sweep") == "http://x/?sweep.sigma=0.5#sweep" == f.below[-1].text
    st["sweep"].grid = "fine"
    assert f.below[-1].text == "http://x/?sweep.sigma=0.5&sweep.grid=fine#sweep"


def test_exports_are_stamped_and_parse_back():
    st = store("repeat.seed=7")
    row = export_buttons(st, "repeat", "ranks", lambda: (["model", "rank"], [["tied, res=1", 1.25], ["x", float("inf")]]))
    csv_text = row[0].callback().getvalue()
    assert csv_text.splitlines()[0] == "# reproduce: http://x/?repeat.seed=7#repeat"
    rows = list(csv.reader(io.StringIO("\n".join(csv_text.splitlines()[1:]))))
    assert rows == [["model", "rank"], ["tied, res=1", "1.25"], ["x", "inf"]]
    data = json.loads(row[1].callback().getvalue())
    assert data["url"].endswith("repeat.seed=7#repeat") and data["rows"] == [["tied, res=1", 1.25], ["x", "overflow (inf)"]]


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
