"""Whether a failed test run failed only because WebKitGTK's web process was killed by Mesa's software GL, and if so
which test files to run again (their WebKit tests), once: ./dev test's one rerun.

    python tests/gl_crash.py REPORT.xml SINCE_S    # prints the files and exits 0, or exits 1: no rerun

On this GPU-less box the web process's compositor thread sometimes segfaults inside swrast_dri.so (the kernel says so)
under load: a classroom-file visit of an engine module dies mid-test in about one run in eight of those modules, a
driver's bug, not the page's. WEBKIT_DISABLE_COMPOSITING_MODE=1 traded it for an abort in Skia's CPU path ("integer
is too large: 28" compiling a blur's shader; 1 of 4 runs), so WebKit keeps its compositor.

A rerun is allowed only when every failure of REPORT (pytest's JUnit XML) carries WebKitWebDriver's "WebProcess
CRASHED" (tests/engines.py adds the driver's log to a WebKit error) and the kernel's log holds such a segfault since
SINCE_S (seconds since boot, when the run began). Any other failure, or a crash the kernel does not pin on the GL
driver, is not rerun: the run stays red.
"""
from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

CRASHED = "WebProcess CRASHED"  # what WebKitGTK's driver logs, and tests/engines.py adds to a WebKit error
# a kernel log line: "[ 5107.371940] eadedCompositor[1014]: segfault at ... in swrast_dri.so[...]"
GL_SEGFAULT = re.compile(r"^\[\s*(\d+\.\d+)\] .*segfault at .* in swrast_dri\.so", re.M)


def failures(report_xml: str) -> list[tuple[str, str]]:
    """(test file, failure text) of every failed or erroring test case in a JUnit XML report."""
    out = []
    for case in ElementTree.fromstring(report_xml).iter("testcase"):
        for bad in [*case.findall("failure"), *case.findall("error")]:
            path = case.get("classname", "").replace(".", "/") + ".py"
            out.append((path, f"{bad.get('message', '')}\n{bad.text or ''}"))
    return out


def gl_segfaults_since(kernel_log: str, since_s: float) -> int:
    return sum(float(t) >= since_s for t in GL_SEGFAULT.findall(kernel_log))


def to_rerun(report_xml: str, kernel_log: str, since_s: float) -> list[str]:
    """The test files to run again, or [] when the run's failures are not all the GL driver's crash."""
    failed = failures(report_xml)
    if not failed or not all(CRASHED in text for _, text in failed) or not gl_segfaults_since(kernel_log, since_s):
        return []
    return sorted({path for path, _ in failed})


def main(argv: list[str]) -> int:
    report, since = argv
    with open(report, encoding="utf-8") as f:
        xml = f.read()
    kernel = subprocess.run(["dmesg"], capture_output=True, text=True, check=False).stdout  # "" where not allowed
    files = to_rerun(xml, kernel, float(since))
    print(" ".join(files))
    return 0 if files else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
