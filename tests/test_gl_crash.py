"""./dev test's one rerun (tests/gl_crash.py): only a run whose every failure is WebKit's web process killed by Mesa's
software GL, with the kernel's word for it, is run again, and only its files."""
from __future__ import annotations

from gl_crash import to_rerun

CRASH = ("RuntimeError: webkit POST /session/x/execute/sync: invalid session id\n[WebKitWebDriver's log, its end]\n"
         "** (MiniBrowser:965): WARNING **: 12:29:54.525: WebProcess CRASHED")
KERNEL = ("[ 5084.885694] MiniBrowser[735]: segfault at 2f ip 00007faa87985ad8 in libc.so.6[167ad8,7faa87844000+156000]\n"
          "[ 5107.371940] eadedCompositor[1014]: segfault at 561027f5faa0 ip 00007f1b8aae01fc sp 00007f1b9d5fdec8 "
          "error 4 in swrast_dri.so[6e01fc,7f1b8a490000+104a000] likely on CPU 0\n")


def report(*cases: tuple[str, str, str]) -> str:
    """A JUnit XML report of CASES: (module, test, failure text or "" for a pass)."""
    body = "".join(f'<testcase classname="tests.{module}" name="{name}">'
                   + (f'<failure message="failed">{text}</failure>' if text else "") + "</testcase>"
                   for module, name, text in cases)
    return f'<testsuites><testsuite name="pytest">{body}</testsuite></testsuites>'


def test_the_gl_drivers_crash_alone_reruns_the_files_it_failed():
    xml = report(("test_engines_codelab", "test_a[webkit-file]", CRASH), ("test_engines_codelab", "test_b[webkit-file]", CRASH),
                 ("test_engines", "test_c[file-webkit]", CRASH), ("test_docs", "test_d", ""))
    assert to_rerun(xml, KERNEL, since_s=5000.0) == ["tests/test_engines.py", "tests/test_engines_codelab.py"]


def test_any_other_failure_keeps_the_run_red():
    xml = report(("test_engines_codelab", "test_a[webkit-file]", CRASH), ("test_docs", "test_d", "AssertionError: 1 == 2"))
    assert to_rerun(xml, KERNEL, since_s=5000.0) == []


def test_a_crash_the_kernel_does_not_pin_on_the_gl_driver_is_not_rerun():
    xml = report(("test_engines_codelab", "test_a[webkit-file]", CRASH))
    assert to_rerun(xml, KERNEL, since_s=5200.0) == [], "its GL segfault came before this run began"
    assert to_rerun(xml, KERNEL.splitlines()[0], since_s=5000.0) == [], "a segfault elsewhere (libc at exit)"
    assert to_rerun(xml, "", since_s=0.0) == [], "no kernel log (dmesg not allowed): no rerun"


def test_a_passing_run_has_nothing_to_rerun():
    assert to_rerun(report(("test_docs", "test_d", "")), KERNEL, since_s=0.0) == []
