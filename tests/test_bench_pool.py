"""bench/pool.py's floor (a Run as one part in Node-Pyodide) fails with a message that says why: a site with no lock,
and a lock Node-Pyodide cannot load. The floor itself is measured by the bench, not here. Each case runs in a child
interpreter, as `python bench/pool.py` would: a failure is its exit code and its words on stderr."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOOR = ("import sys; from pathlib import Path; sys.path.insert(0, 'bench'); import pool; "
         "pool.floor(Path(sys.argv[1]), ['repeat'], 1)")


def floor_fails(dist: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", FLOOR, str(dist)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc.stderr


def test_a_site_without_a_lock_is_named(tmp_path):
    assert "expected one pyodide-lock.json in" in floor_fails(tmp_path)


@pytest.mark.parametrize("lock", ["{not json", '{"info": {}, "packages": {}}'])
def test_a_lock_node_cannot_load_stops_with_its_words(tmp_path, lock):
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "pyodide" / "pyodide-lock.json").write_text(lock)
    assert "the floor's Node-Pyodide run failed (exit 1)" in floor_fails(tmp_path)
