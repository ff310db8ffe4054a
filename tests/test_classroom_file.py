"""dist/weighttying.html as bytes (no browser): within 16 MB, its sha256 file right, read as windows-1252 with
pure-ASCII text around a payload the HTML parser cannot alter, every served file inside it under its own
sha256, and a CSP that lets exactly its inline scripts run. The browser side is test_browser_classroom.py."""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random
import re
import sys

import pytest

from harness import ROOT

sys.path.insert(0, str(ROOT))
from tools import single_file

MAX_BYTES = 16e6  # a USB stick's file, compressed: the classroom file's budget


@pytest.fixture(scope="module")
def built(dist_dir):
    data = (dist_dir / single_file.NAME).read_bytes()
    spans = single_file.spans(data)
    start, end = spans[0][0] - len(single_file.PAYLOAD_OPEN), spans[-1][1] + len(single_file.PAYLOAD_CLOSE)
    head = data[:start]
    config = json.loads(re.search(rb'<script id="wt-build" type="application/json">(.*?)</script>', head, re.S)[1])
    return {"data": data, "head": head, "tail": data[end:], "payload": single_file.payload_of(data),
            "config": config, "dist": dist_dir, "blocks": data[start:end], "spans": spans}


def test_encoding_round_trips_every_byte_and_leaves_nothing_the_parser_changes():
    rng = random.Random(12)
    data = bytes(range(256)) * 4 + bytes(rng.randrange(256) for _ in range(100_000)) + b"=<\r\x00=="
    enc = single_file.encode(data)
    assert single_file.decode(enc) == data
    assert not set(enc) & {0x00, 0x0D, 0x3C}, "NUL, CR or < left in the payload"
    assert len(enc) < len(data) * 1.02


def test_ascii_page_keeps_meaning_in_each_context():
    html = '<p title="σ">a·b</p><script>const s = "→";</script><style>p::after { content: "…"; }</style>'
    out = single_file.ascii_page(html)
    assert out.isascii()
    assert '<p title="&#963;">a&#183;b</p>' in out
    assert r'const s = "\u2192";' in out and r'content: "\2026 ";' in out


def test_payload_blocks_are_short_and_nothing_but_payload_between_them(built):
    """WebKit parses one long <script> text quadratically: every block stays under 64 K characters."""
    spans = built["spans"]
    assert len(spans) == -(-built["config"]["classroom"]["bytes"] // single_file.CHUNK), len(spans)
    assert max(b - a for a, b in spans) < 65_536
    between = [built["data"][b:a2] for (_, b), (a2, _) in zip(spans, spans[1:])]
    assert set(between) <= {single_file.PAYLOAD_CLOSE + single_file.PAYLOAD_OPEN}


def test_size_and_sha256_file(built, dist_dir):
    data = built["data"]
    assert len(data) <= MAX_BYTES, f"{len(data) / 1e6:.1f} MB"
    line = (dist_dir / f"{single_file.NAME}.sha256").read_text()
    assert line == f"{hashlib.sha256(data).hexdigest()}  {single_file.NAME}\n"


def test_page_is_ascii_read_as_windows_1252(built):
    head, tail = built["head"], built["tail"]
    assert head.isascii() and tail.isascii()
    assert b'<meta charset="windows-1252">' in head[:1024], "the charset must be declared in the first 1024 bytes"
    assert head.lower().startswith(b"<!doctype html>") and tail.rstrip().endswith(b"</html>")


def test_every_served_file_is_inside_under_its_own_sha256(built):
    members = {m["path"]: m for m in built["config"]["classroom"]["members"]}
    payload, dist = built["payload"], built["dist"]
    assert len(payload) == built["config"]["classroom"]["bytes"]
    served = {p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file()
              and not p.name.endswith((".gz", ".br")) and not p.name.startswith(single_file.NAME)}
    assert served - set(single_file.NOT_MEMBERS) == set(members) - {v for v in single_file.DECODER.values()}
    for path, m in members.items():
        packed = payload[m["offset"]:m["offset"] + m["length"]]
        if path in served:
            assert hashlib.sha256((dist / path).read_bytes()).hexdigest() == m["sha256"], path
        if m["codec"] == "gz":  # brotli is checked in the browser (test_browser_classroom)
            assert hashlib.sha256(gzip.decompress(packed)).hexdigest() == m["sha256"], path
        # the worker unpacks the runtime, the decoder and the build's results (it fetches them beside the runtime)
        worker = path.startswith(("pyodide/", "decoder/")) or path == built["config"]["results"]["file"]
        assert m["for"] == ("worker" if worker else "page"), path


def test_csp_lists_exactly_the_inline_scripts(built):
    head = built["head"].decode("ascii")
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', head)[1]
    listed = set(re.findall(r"'sha256-([^']+)'", csp))
    inline = re.findall(r"<script>(.*?)</script>", head, re.S)
    assert len(inline) == 2, "the guard and the page's script (wt.js) are inline"
    assert listed == {base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in inline}
    assert "connect-src blob: data:" in csp and "'self'" not in csp and "http" not in csp
