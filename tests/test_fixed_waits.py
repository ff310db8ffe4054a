"""Tests wait on events, not on time: a fixed wait of 0.1 s or more outside a polling loop is a guess
at how long something takes on this box, slow under load and blind to a change that comes later. At most
MAX_FIXED of them remain in tests/, each saying on its line why it must be a time (a reader's pace, a frame
to be observed, "nothing starts by itself"). Waits in a `while` loop are polls: they end on what they wait for.
"""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
MAX_FIXED = 3
SLEEPS = {"sleep": 1.0, "wait_for_timeout": 0.001}  # seconds per unit of the argument: time/asyncio.sleep, Playwright


def fixed_waits(source: str) -> list[tuple[int, str, bool]]:
    """(line, call, commented) of each wait of 0.1 s or more (or of a length not known here) outside a while loop."""
    tree, lines, out = ast.parse(source), source.splitlines(), []

    def visit(node: ast.AST, in_while: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr in SLEEPS \
                    and child.args and not in_while:
                try:
                    seconds = ast.literal_eval(child.args[0]) * SLEEPS[child.func.attr]
                except (ValueError, TypeError, SyntaxError):
                    seconds = float("inf")  # a length computed at run time: counted
                if seconds >= 0.1:
                    out.append((child.lineno, ast.unparse(child), "#" in lines[child.lineno - 1]))
            visit(child, in_while or isinstance(child, ast.While))

    visit(tree, False)
    return out


def test_the_counter_finds_fixed_waits_and_leaves_polls():
    source = ("import time\ntime.sleep(0.5)  # why\npage.wait_for_timeout(100)\nasyncio.sleep(0.05)\n"
              "time.sleep(every)\nwhile not done():\n    time.sleep(1.0)\n")
    assert fixed_waits(source) == [(2, "time.sleep(0.5)", True), (3, "page.wait_for_timeout(100)", False),
                                   (5, "time.sleep(every)", False)]


def test_at_most_three_fixed_waits_each_commented():
    found = [(f"{path.name}:{line}", call, commented) for path in sorted(TESTS.rglob("*.py"))
             for line, call, commented in fixed_waits(path.read_text())]
    assert all(commented for _, _, commented in found), [f for f in found if not f[2]]
    assert len(found) <= MAX_FIXED, f"{len(found)} fixed waits (at most {MAX_FIXED}): wait on an event instead " \
                                    f"(harness.until, harness.run_over, robust.settle):\n{found}"
