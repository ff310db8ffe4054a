"""bench/bootorder.py's set-up at its smallest size (as tests/test_bench_entry.py does for the other entry points):
two builds, two orders, an engine that cannot launch, one page failing and one off-grid page failing; its JSON must be written, each failure named
with its error's first line, the other pages kept and summarised, the exit code 1. Nothing is launched or measured."""
from test_bench_entry import ERROR, PRELUDE, child

BOOTORDER = r'''
import bootorder
bootorder.engines.missing = lambda name: None

cannot_launch = flaky({}, fails=(1,))  # Firefox's launch raises as WebDriver once did
bootorder.engines.launch = lambda name, proxy: cannot_launch() if name == "firefox" else stand_in(
    version=name, quit=lambda: None, can_init_script=name != "webkit")
bootorder.engines.OffOrigin = lambda: stand_in(close=lambda: None)
bootorder.page = flaky({"first_live_ms": 10.0, "all_live_ms": 20.0, "order_seen": "together"}, fails=(2,))
bootorder.off_grid = flaky({"early_live_ms": 4.0, "early_panel_live_ms": 8.0, "early_over_panel": 0.5}, fails=(5,))
out = TMP / "bootorder.json"
finish(bootorder.main(["--dist", str(DIST), "--variant", f"b={DIST}", "--runs", "2", "--engines", "chromium,firefox,webkit",
                       "--orders", "together,numerics-first", "--out", str(out)]), out)
'''


def test_bootorder_keeps_the_pages_after_a_failed_one(tmp_path):
    assert PRELUDE  # the stand-ins bench/bootorder.py runs under
    got = child(BOOTORDER, tmp_path)
    report = got["json"]
    assert got["exit"] == 1
    chromium = report["chromium"]["summary"]
    assert list(chromium) == ["main:together", "main:numerics-first", "b:together", "b:numerics-first"]
    assert list(report["webkit"]["summary"]) == ["main:natural", "b:natural"], "WebKit takes no script before the page's"
    assert report["chromium"]["runs"]["main:numerics-first"][0] == {"failed": ERROR, "early_live_ms": 4.0,
                                                                    "early_panel_live_ms": 8.0, "early_over_panel": 0.5}
    assert chromium["main:numerics-first"]["first_live_ms"] == 10.0 and chromium["main:numerics-first"]["failed"] == 1
    assert chromium["main:together"]["over_first"]["early_live_ms"] == 1.0
    # per run: chromium's four pages, then WebKit's two: the 2nd page and the 5th off-grid page fail
    assert report["firefox"] == {"failed": ERROR}, "an engine that cannot launch is named; the others are measured"
    assert report["failed"] == [f"launching firefox: {ERROR}", f"chromium main:numerics-first run 1: {ERROR}",
                                f"webkit main:natural run 1: {ERROR}"]
    assert report["webkit"]["runs"]["main:natural"][0]["off_grid_failed"] == ERROR
