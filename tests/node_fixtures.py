"""The files the node unit tests read instead of a build (tests/node/): what the build would emit for them, made
here by the build's own functions over small inputs. tests/test_node.py fails when one is stale;
`.venv/bin/python tests/node_fixtures.py` rewrites them all.

- rules.json: the page's state rules (prerender.rules(), the page config's "state").
- playback.json: every section's playback grid (keys, values), and the whole tables of FULL, whose fragments are
  their sha256 (16 hex digits), with the fragment of each slot the prerender shows (prerendered).
- readout.json: the numbers and figures CPython draws, which readout.js reads back (tests/test_readout_js.py).
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
    from weighttying import playback as P
    from weighttying import state as S
    from weighttying.prerender import view
    from weighttying.views import kit
    grids = {sid: {"keys": list(view(sid).PLAYBACK), "values": [list(g) for g in view(sid).PLAYBACK.values()]}
             for sid in S.SECTIONS}
    tables, prerendered = {}, {}
    for sid in FULL:
        t = P.table(sid)
        tables[sid] = {**t, "fragments": [digest(f) for f in t["fragments"]]}
        v, st = view(sid), getattr(S.State(), sid)
        prerendered[sid] = {name: digest(html) for name, html in v.slots(st, kit.with_results(v, st)).items()}
    return json.dumps({"grids": grids, "tables": tables, "prerendered": prerendered}, separators=(",", ":"))


def classroom() -> bytes:
    sys.path.insert(0, str(ROOT))
    from tools import single_file as F
    files = {"style.css": "".join(f".wt-{i} {{ margin: {i}px; content: \"é{i}\"; }}\n" for i in range(60)).encode(),
             "worker.js": "".join(f"self.part{i} = {i * i};\n" for i in range(200)).encode()}
    payload, manifest = F.members(files, "pyodide/", lambda datas: {})
    config = {"classroom": {"members": manifest, "bytes": len(payload), "escape": F.ESC}}
    head = f'<script id="wt-build" type="application/json">{json.dumps(config)}</script>\n'.encode("ascii")
    return head + F.blocks(payload, CHUNK) + b"\n"


def readout() -> str:
    import test_readout_js
    return json.dumps(test_readout_js.cases())


FIXTURES = {"rules.json": lambda: rules().encode(), "playback.json": lambda: playback().encode(),
            "classroom.html": classroom, "readout.json": lambda: readout().encode()}

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    for name, make in FIXTURES.items():
        (NODE / name).write_bytes(make())
        print(f"wrote tests/node/{name}")
