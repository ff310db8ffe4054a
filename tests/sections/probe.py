"""A test-only section, declared: its State (a number and a free text) and where its parts are. Only a test build
(build.py --with-test-sections probe, which names this module in $WT_TEST_SECTIONS) has it; tests/test_browser_probe.py
checks it goes through everything a page section does."""
from dataclasses import dataclass
from pathlib import Path

# from the modules that define them: $WT_TEST_SECTIONS has this module imported while weighttying.state is still
# building its registry, before the package itself holds these names
from weighttying.state.kinds import spec
from weighttying.state.sections import Section


@dataclass(frozen=True)
class Probe:
    n: float = spec(1.0, "A number the probe doubles.", 0.0, 10.0)
    words: str = spec("", "Any text: the probe counts its words (live only).", kind="text")


SECTION = Section("probe", Probe, "probe_view", None, str(Path(__file__).with_name("probe.html")))
