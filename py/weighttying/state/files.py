"""What a file box reads: a file's bytes as UTF-8 text within a limit (decoded), and what it says of one."""
from __future__ import annotations

from .url import fmt

# What a file box says of a file (decoded): the live lab's picker and, before Python, the playback's box (site/state.js
# fills these from rules()): {mb} the file's size in MB to a tenth, rounded down (from whole numbers, so both languages
# agree), {limit_mb} the limit, {at} the first byte that is not UTF-8, {chars} its characters.
FILE_SAYS = {"too_big": "The file is {mb} MB; the limit is {limit_mb} MB. Nothing was changed.",
             "not_text": "The file is not UTF-8 text (byte {at}); nothing was changed.",
             "read": "Read {name}: {chars} characters."}
MB = 1_000_000  # the bytes of the MB a file box names (rules() hands it to site/state.js)


def decoded(data: bytes | None, limit: int) -> tuple[str | None, str]:
    """(a file's text, or None; what is wrong with it): UTF-8 text of at most `limit` bytes (so as many characters)."""
    if not data:
        return None, ""
    if len(data) > limit:
        tenths = len(data) // (MB // 10)
        return None, FILE_SAYS["too_big"].format(mb=f"{tenths // 10}.{tenths % 10}", limit_mb=fmt(limit / MB))
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as err:
        return None, FILE_SAYS["not_text"].format(at=err.start)
