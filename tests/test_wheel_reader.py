"""site/wheel.js against Python's zipfile on every wheel the build ships: the worker writes each pure-Python wheel
into site-packages from these files, so they must be exactly the members Pyodide's own install would unpack."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import zipfile

from harness import ROOT

READ_JS = """
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { storedFiles } from "./site/wheel.js";
const out = {};
for (const path of process.argv.slice(1)) {
  const files = storedFiles(new Uint8Array(readFileSync(path)));
  out[path] = files && Object.fromEntries(files.map(({ name, data }) => [name, createHash("sha256").update(data).digest("hex")]));
}
console.log(JSON.stringify(out));
"""


def test_every_shipped_wheel_reads_as_zipfile_reads_it(dist_dir):
    wheels = sorted(str(p) for p in (dist_dir / "pyodide").glob("*.whl"))
    assert len(wheels) >= 10, wheels
    node = shutil.which("node")
    proc = subprocess.run([node, "--input-type=module", "-e", READ_JS, *wheels], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    read = json.loads(proc.stdout)
    for path in wheels:
        with zipfile.ZipFile(path) as z:
            want = {i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}
        assert read[path] == want, f"{path}: wheel.js reads other members than zipfile"
