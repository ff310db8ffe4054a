"""A failed run of a bench is recorded, not raised: its record is {"failed": "Type: the first line of its error"},
its traceback goes to stderr, and the bench goes on with its other runs and writes its JSON (its top-level
"failed" names each one; the exit code is then 1). One WebDriver hiccup in WebKit's second run once lost
bench/engine_times.py's ten runs before it."""
from __future__ import annotations

import sys
import traceback


def one_line(e: BaseException) -> str:
    """'TypeName: the first non-blank line of its message' (a browser's error carries its whole log after it)."""
    text = str(e.code if isinstance(e, SystemExit) else e)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def record(e: BaseException, what: str) -> dict:
    """{"failed": one_line(e)}, WHAT and the traceback printed to stderr for the person running the bench."""
    traceback.print_exception(e, file=sys.stderr)
    print(f"[bench] {what} failed: {one_line(e)}", file=sys.stderr, flush=True)
    return {"failed": one_line(e)}


def tried(what: str, fn, *args, **kwargs) -> dict:
    """fn(*args, **kwargs), a run's record; record(error) when it raises, or stops with a message of its own
    (a SystemExit with a text, as step_levers.in_pyodide's)."""
    try:
        return fn(*args, **kwargs)
    except SystemExit as e:
        if not isinstance(e.code, str):
            raise
        return record(e, what)
    except Exception as e:  # any run's failure: the other runs are kept
        return record(e, what)


def failed(records: list[dict], what: str, key: str = "failed") -> list[str]:
    """'WHAT N: its one-line error' for each record of RECORDS failed under KEY (N counts from 1)."""
    return [f"{what} {i}: {r[key]}" for i, r in enumerate(records, 1) if key in r]


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b, or None when either was not measured (every run of it failed)."""
    return a / b if a is not None and b else None
