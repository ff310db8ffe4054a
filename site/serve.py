#!/usr/bin/env python3
"""Serve this folder (the built explainer) on http://127.0.0.1:8000 with only the standard library.

    python3 serve.py [--port 8000] [--bind 127.0.0.1] [--dir .]

Works from a copied dist/ on a laptop with no internet. Beyond `python -m http.server` it sends the
right MIME types for .wasm/.mjs (browsers refuse to stream-compile wasm otherwise), serves the
precompressed .br (brotli) or .gz copy of a file when the browser accepts it, and sends a Content-Security-Policy
that keeps the page and its worker on this origin.
"""
from __future__ import annotations

import argparse
import email.utils
import os
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

# The page: same origin only. Bokeh and Panel set inline styles and data: icons; nothing evals. It compiles one
# WebAssembly module, Python's runtime from its checked bytes, for its workers ('wasm-unsafe-eval'; site/runtime.js).
CSP = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; "
       "font-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; "
       "form-action 'none'")
# The worker: Pyodide compiles WebAssembly ('wasm-unsafe-eval'), Panel builds a JS helper with
# pyodide.code.run_js, which is eval ('unsafe-eval'), and the runtime scripts run from the blob: the
# worker made of the bytes it checked against their sha256. Still nothing leaves this origin.
WORKER_CSP = CSP.replace("script-src 'self' 'wasm-unsafe-eval'", "script-src 'self' blob: 'wasm-unsafe-eval' 'unsafe-eval'")
WORKERS = ("/worker.js",)


class Handler(SimpleHTTPRequestHandler):
    # HTTP/1.1: Chromium ignores an ETag on an HTTP/1.0 response, so every revalidation became a full
    # download (a repeat visit fetched all 16 MB again). Every response here carries Content-Length.
    protocol_version = "HTTP/1.1"
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json",
                      ".whl": "application/octet-stream", ".zip": "application/zip", ".gz": "application/gzip",
                      ".br": "application/octet-stream"}

    def end_headers(self) -> None:
        path = self.path.split("?", 1)[0]
        self.send_header("Content-Security-Policy", WORKER_CSP if path.endswith(WORKERS) else CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        # Every file is revalidated, so a rebuilt dist/ is never mixed with a cached old one.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def not_modified(self, etag: str, mtime: int) -> bool:
        """The client's copy is current: its If-None-Match holds etag, or (without one) If-Modified-Since >= mtime."""
        if "If-None-Match" in self.headers:
            return etag in [t.strip() for t in self.headers["If-None-Match"].split(",")]
        try:
            return email.utils.parsedate_to_datetime(self.headers["If-Modified-Since"]).timestamp() >= mtime
        except (TypeError, ValueError, IndexError, OverflowError):
            return False

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # redirects to the slash form
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path):
            self.send_error(404, "File not found")
            return None
        # The precompressed twin build.py wrote, best first: brotli, then gzip, else the file itself.
        accepted = {e.split(";")[0].strip() for e in self.headers.get("Accept-Encoding", "").split(",")}
        twins = [(enc, path + ext) for enc, ext in (("br", ".br"), ("gzip", ".gz")) if os.path.isfile(path + ext)]
        encoding, chosen = next(((enc, p) for enc, p in twins if enc in accepted), (None, path))
        # Validators, so a revalidation (Cache-Control: no-cache) costs a 304 and no body: every file
        # of a repeat visit that did not change.
        st = os.stat(chosen)
        etag = f'"{st.st_size:x}-{st.st_mtime_ns:x}-{encoding or "id"}"'
        if self.not_modified(etag, int(st.st_mtime)):
            self.send_response(304)
            self.send_header("ETag", etag)
            if twins:
                self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return None
        f = open(chosen, "rb")
        self.send_response(200)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", self.date_time_string(int(st.st_mtime)))
        self.send_header("Content-Type", self.guess_type(path))
        if twins:
            self.send_header("Vary", "Accept-Encoding")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
        self.end_headers()
        return f


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Serve the built explainer on this machine.")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--bind", default="127.0.0.1", help="address to listen on (0.0.0.0 shares it on the network)")
    ap.add_argument("--dir", default=here, help="folder to serve (default: the one holding serve.py)")
    args = ap.parse_args(argv)
    if not os.path.isfile(os.path.join(args.dir, "index.html")):
        print(f"serve.py: {os.path.abspath(args.dir)} has no index.html; point --dir at the built site", file=sys.stderr)
        return 1
    try:
        server = ThreadingHTTPServer((args.bind, args.port), partial(Handler, directory=args.dir))
    except OSError as e:
        print(f"serve.py: cannot listen on {args.bind}:{args.port}: {e.strerror}; try --port {args.port + 1}", file=sys.stderr)
        return 1
    print(f"Serving {os.path.abspath(args.dir)} at http://{args.bind}:{args.port}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
