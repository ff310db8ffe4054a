"""The files the node unit tests read instead of a build (tests/node/): what the build would emit for them, made
here by the build's own functions over small inputs. tests/test_node.py fails when one is stale;
`.venv/bin/python tests/node_fixtures.py` rewrites them all.

- rules.json: the page's state rules (prerender.rules(), the page config's "state").
- playback.json: every section's playback grid (keys, values), and the whole tables of FULL, whose fragments are
  their sha256 (16 hex digits), with the fragment of each slot the prerender shows (prerendered).
- files.json: what state.decoded makes of small files (FILES): their characters, or why it refuses them.
- readout.json: the numbers and figures CPython draws, which readout.js reads back (tests/test_readout_js.py).
- says.json: the status lines' words (controls.SAYS, the page config's "says") and each line as Python fills it in.
- classroom.html: a classroom file's config and payload (tools/single_file.py) over two small page files, in
  blocks of CHUNK bytes, as the browser reads it (windows-1252).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "tests" / "node"
# The sections whose whole tables are fixtures, and why (both cheap: 4 s together); not every section's, on purpose.
FULL = {"tying": "2 grid keys, and a slot on none of them", "paper": "4 grid keys, a log one among them"}
CHUNK = 512


def digest(html: str) -> str:
    return hashlib.sha256(html.encode()).hexdigest()[:16]


def rules() -> str:
    from weighttying import prerender
    return json.dumps(prerender.rules(), indent=1, sort_keys=True) + "\n"


def playback() -> str:
    from weighttying import playback as playback_tables
    from weighttying import state
    from weighttying.prerender import view
    from weighttying.views import kit
    grids = {sid: {"keys": list(view(sid).PLAYBACK), "values": [list(g) for g in view(sid).PLAYBACK.values()]}
             for sid in state.SECTIONS}
    tables, prerendered = {}, {}
    for sid in FULL:
        t = playback_tables.table(sid)
        tables[sid] = {**t, "fragments": [digest(f) for f in t["fragments"]]}
        v, st = view(sid), getattr(state.State(), sid)
        prerendered[sid] = {name: digest(html) for name, html in v.slots(st, kit.with_results(v, st)).items()}
    return json.dumps({"grids": grids, "tables": tables, "prerendered": prerendered}, separators=(",", ":"))


def classroom() -> bytes:
    sys.path.insert(0, str(ROOT))
    from tools import single_file
    files = {"style.css": "".join(f".wt-{i} {{ margin: {i}px; content: \"é{i}\"; }}\n" for i in range(60)).encode(),
             "worker.js": "".join(f"self.part{i} = {i * i};\n" for i in range(200)).encode()}
    payload, manifest = single_file.members(files, "pyodide/", lambda datas: {})
    config = {"classroom": {"members": manifest, "bytes": len(payload), "escape": single_file.ESC}}
    head = f'<script id="wt-build" type="application/json">{json.dumps(config)}</script>\n'.encode("ascii")
    return head + single_file.blocks(payload, CHUNK) + b"\n"


def readout() -> str:
    import test_readout_js
    return json.dumps(test_readout_js.cases())


def says() -> str:
    from weighttying import controls
    blanks = {"error": "the file was modified", "wanted": "d = 48", "near": "d = 64"}
    lines = [[name, {"takes_over": controls.SAYS["takes_over"][w], "later": controls.SAYS["later"][w], **blanks},
              controls.SAYS[name].format(takes_over=controls.SAYS["takes_over"][w], later=controls.SAYS["later"][w], **blanks)]
             for name, words in controls.SAYS.items() if isinstance(words, str) for w in controls.SAYS["later"]]
    return json.dumps({"says": controls.SAYS, "lines": lines}, indent=1, ensure_ascii=False) + "\n"


# Files a file box reads: (why, bytes as hex, repeated this often, the limit in bytes); files.json adds what
# state.decoded makes of each, for site/state.js's decoded.
FILES = [("empty", "", 1, 2_000_000), ("ASCII", "6162", 1, 2_000_000), ("two-byte letter", "c3a9", 1, 2_000_000),
         ("four-byte emoji", "f09f9880", 1, 2_000_000), ("a lone 0xff", "61ff62", 1, 2_000_000),
         ("a sequence cut by a letter", "61e28258", 1, 2_000_000), ("a sequence cut off at the end", "61e282", 1, 2_000_000),
         ("an emoji cut off at the end", "61f09f98", 1, 2_000_000),
         ("a surrogate", "61eda080", 1, 2_000_000), ("an overlong zero", "c080", 1, 2_000_000),
         ("an emoji then a stray continuation", "f09f988080", 1, 2_000_000), ("after a good letter", "c3a9ff", 1, 2_000_000),
         ("Latin-1 far in", "6162" * 5000 + "e9", 1, 2_000_000), ("over the limit", "61", 2_100_006, 2_000_000),
         ("over a limit of 1.5 MB", "0a", 1_600_000, 1_500_000), ("at the limit", "61", 2_000_000, 2_000_000)]


def files() -> str:
    from weighttying import state
    out = []
    for why, hexed, times, limit in FILES:
        text, problem = state.decoded(bytes.fromhex(hexed) * times, limit)
        out.append({"why": why, "hex": hexed, "times": times, "limit": limit, "chars": None if text is None else len(text),
                    "problem": problem})
    return json.dumps(out, indent=1) + "\n"


FIXTURES = {"rules.json": lambda: rules().encode(), "playback.json": lambda: playback().encode(),
            "classroom.html": classroom, "readout.json": lambda: readout().encode(), "files.json": lambda: files().encode(),
            "says.json": lambda: says().encode()}

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    for name, make in FIXTURES.items():
        (NODE / name).write_bytes(make())
        print(f"wrote tests/node/{name}")
