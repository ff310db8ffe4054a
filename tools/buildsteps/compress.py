"""Stage compress: the .gz and .br twins serve.py sends, cached by content (brotli: one Node run of
tools/brotli.mjs)."""
from __future__ import annotations

import gzip
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path

from . import base
from .base import TOOLS, log, run, sha256

COMPRESS = (".js", ".mjs", ".css", ".html", ".json", ".wasm", ".svg", ".map", ".whl", ".zip")
# The smallest brotli there is: q10 would save a third of its CPU seconds and cost every reader ~270 kB more
# (wasm, stdlib, numpy, panel). CACHE/br/<sha256>.br holds q11 output.
BROTLI_QUALITY = 11
# What the page's own code computes (the playback tables and results.json, 14 MB of JSON made anew whenever
# py/ changes) at q10: q11 took five times the CPU seconds (gradcheck.json 15.5 s vs 3.0 s) for about a tenth
# fewer bytes. CACHE/br/<sha256>.q10.br holds it.
COMPUTED_QUALITY = 10


def compress(files: dict[str, bytes], brotli: bool) -> dict[str, bytes]:
    """Precompressed twins (serve.py sends .br, else .gz, to a browser that accepts it), only where they are
    smaller. Brotli is worth it for the big files (wasm, stdlib, wheels); small text gets gzip only."""
    twins: dict[str, bytes] = {}
    for rel, data in files.items():
        if rel.endswith(COMPRESS):
            gz = gzipped(data)
            if len(gz) < len(data):
                twins[rel + ".gz"] = gz
    if brotli:
        big = {rel: data for rel, data in files.items() if rel.endswith(COMPRESS) and len(data) >= 4096}
        computed = {rel for rel in big if rel.startswith("playback/") or rel == "results.json"}
        br = brotlied([d for rel, d in big.items() if rel not in computed])
        br |= brotlied([big[rel] for rel in computed], COMPUTED_QUALITY)
        for rel, data in big.items():
            if len(br[sha256(data)]) < len(twins.get(rel + ".gz", data)):
                twins[rel + ".br"] = br[sha256(data)]
    return twins


def gzipped(data: bytes) -> bytes:
    """Deterministic gzip of DATA, cached by content (the wasm takes a second to compress)."""
    path = base.CACHE / "gz" / (sha256(data) + ".gz")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with base.whole(path) as part:
            part.write_bytes(gzip.compress(data, 9, mtime=0))
    return path.read_bytes()


def brotlied(datas: list[bytes], quality: int = BROTLI_QUALITY) -> dict[str, bytes]:
    """{sha256: brotli of it} for each of DATAS, cached by content and quality; the missing ones in one Node run."""
    cache = base.CACHE / "br"
    cache.mkdir(parents=True, exist_ok=True)
    suffix = ".br" if quality == BROTLI_QUALITY else f".q{quality}.br"
    want = {sha256(d): d for d in datas}
    missing = {h: d for h, d in want.items() if not (cache / f"{h}{suffix}").is_file()}
    if missing:
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="wt-br-") as tmp:
            tmp = Path(tmp)
            jobs = []
            for h, d in missing.items():
                (tmp / h).write_bytes(d)
                jobs.append([str(tmp / h), str(tmp / f"{h}.br")])
            (tmp / "jobs.json").write_text(json.dumps(jobs))
            run(["node", str(TOOLS / "brotli.mjs"), str(tmp / "jobs.json"), str(quality)], "brotli compression (node)")
            for h in missing:
                with base.whole(cache / f"{h}{suffix}") as part:
                    shutil.move(tmp / f"{h}.br", part)
        log(f"brotli-compressed {len(missing)} files ({sum(map(len, missing.values())) >> 20} MB) at q{quality} "
            f"in {time.monotonic() - t0:.0f} s (cached for next time)")
    return {h: (cache / f"{h}{suffix}").read_bytes() for h in want}


def brotli_behind(datas: list[bytes], brotli: bool) -> threading.Thread:
    """Brotli of DATAS in a thread, on whatever core the stage running meanwhile leaves idle; it lands in
    the content-keyed cache that compress (and assemble's live_bytes) read."""
    thread = threading.Thread(target=brotlied, args=([d for d in datas if len(d) >= 4096],), daemon=True)
    if brotli:
        thread.start()
    return thread
