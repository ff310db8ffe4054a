"""dist/weighttying.html: the whole explainer in one file that runs opened from disk (file://).

A teacher copies that one file to a USB stick or mails it; double-clicked, it is the served page: prose
and prerendered figures at once, then Python in a worker. Everything the served site fetches is inside
it, in <script class="wt-payload"> blocks at the end of <body>: each file compressed (brotli for the
worker's runtime and wheels, gzip for what the page itself unpacks with the browser's
DecompressionStream), listed in the page's config (`classroom.members`: path, codec, offset, length,
size, sha256 of the file itself). site/classroom.js and site/unpack.js (in the page's script, and in the
worker's) check every file against that sha256 before it is used.

Why windows-1252: it is the one encoding a browser must support in which every byte is a character of
its own, so the compressed bytes are stored as they are (+1.6 %) instead of base64 (+33 %). The HTML
parser changes only NUL and CR in a script block, and "<" could end it: those three bytes and the
escape byte itself are written as ESC, byte + 64. The page's own text is then plain ASCII: character
references in the HTML, \\u escapes in scripts and styles.

Why blocks of CHUNK bytes, not one: WebKit appends each piece the parser reads to a <script>'s one text,
copying it every time, so one 13 MB block took it ~100 s to parse on a busy 2-core machine (and ~10 s idle)
where the same bytes in 32 KB blocks took 2.5 s (Chromium and Firefox are as fast either way).
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import re
from typing import Callable

NAME = "weighttying.html"
ESC = 0x3D  # "="
UNSAFE = re.compile(rb"[\x00\r<=]")
PAYLOAD_OPEN = b'<script class="wt-payload" type="application/octet-stream">'
PAYLOAD_CLOSE = b"</script>"
CHUNK = 32_768  # payload bytes per block: under 64 K characters even if every byte were escaped
# The brotli decoder the worker instantiates from the file (npm brotli-dec-wasm, pinned).
DECODER = {"pkg/brotli_dec_wasm.js": "decoder/brotli_dec_wasm.js",
           "pkg/brotli_dec_wasm_bg.wasm": "decoder/brotli_dec_wasm_bg.wasm"}
# Served files the single file has no use for: inlined into the page, or only for serving dist/. (style.css is
# inlined and a member too: sections link it inside their shadow roots by name.)
NOT_MEMBERS = ("index.html", "serve.py", "embed.js", "wt.js")
# The page's script (build.py's bundle of site/main.js), inlined; before it, the guard (site/guard.js, bundled),
# which says so when the page's script is the inline script the browser refused.
PAGE_SCRIPT = '<script src="wt.js"></script>'
GUARD = "guard.js"
# The page's policy. The worker, made from a blob: URL, inherits it: Pyodide compiles WebAssembly and Panel
# evaluates one JS helper ('unsafe-eval'); the page's inline scripts run only if they are the ones built
# (their sha256 is listed; 'report-sample' lets classroom.js quote one that was refused); nothing may be
# fetched but this file's own blob: and data: URLs.
CSP = ("default-src 'none'; script-src {hashes} blob: 'wasm-unsafe-eval' 'unsafe-eval' 'report-sample'; "
       "style-src 'unsafe-inline' blob:; img-src data: blob:; font-src data: blob:; connect-src blob: data:; "
       "worker-src blob:; object-src 'none'; base-uri 'none'; form-action 'none'")
RAW_TEXT = re.compile(r"(<(script|style)\b[^>]*>)(.*?)(</\2>)", re.S | re.I)


def encode(data: bytes) -> bytes:
    """DATA with NUL, CR, "<" and ESC written as ESC, byte + 64 (len(data) * ~1.016 bytes)."""
    return UNSAFE.sub(lambda m: bytes((ESC, (m[0][0] + 64) & 0xFF)), data)


def decode(text: bytes) -> bytes:
    """The inverse of encode (what site/unpack.js does in the browser)."""
    return re.sub(rb"=(.)", lambda m: bytes(((m[1][0] - 64) & 0xFF,)), text, flags=re.S)


def blocks(payload: bytes, chunk: int = CHUNK) -> bytes:
    """PAYLOAD as consecutive <script class="wt-payload"> blocks of chunk bytes each, encoded."""
    return b"".join(PAYLOAD_OPEN + encode(payload[i:i + chunk]) + PAYLOAD_CLOSE for i in range(0, len(payload), chunk))


def spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) in the file DATA of each payload block's encoded text, in order."""
    out = []
    for m in re.finditer(re.escape(PAYLOAD_OPEN), data):
        out.append((m.end(), data.index(PAYLOAD_CLOSE, m.end())))
    return out


def payload_of(data: bytes) -> bytes:
    """The payload the file DATA carries (what site/unpack.js decodes in the browser)."""
    return b"".join(decode(data[a:b]) for a, b in spans(data))


def js_ascii(text: str) -> str:
    """JS or JSON source with every non-ASCII character as \\uXXXX (UTF-16 units), same meaning."""
    def units(m: re.Match) -> str:
        raw = m[0].encode("utf-16-be")
        return "".join(f"\\u{int.from_bytes(raw[i:i + 2], 'big'):04x}" for i in range(0, len(raw), 2))
    return re.sub(r"[^\x00-\x7f]", units, text)


def css_ascii(text: str) -> str:
    """CSS with every non-ASCII character as a CSS escape (the space ends the escape)."""
    return re.sub(r"[^\x00-\x7f]", lambda m: f"\\{ord(m[0]):x} ", text)


def ascii_page(html: str) -> str:
    """HTML with every non-ASCII character escaped the way its context reads it back."""
    out, pos = [], 0
    for m in RAW_TEXT.finditer(html):
        out.append(html[pos:m.start()].encode("ascii", "xmlcharrefreplace").decode())
        body = js_ascii(m[3]) if m[2].lower() == "script" else css_ascii(m[3])
        out.append(m[1] + body + m[4])
        pos = m.end()
    out.append(html[pos:].encode("ascii", "xmlcharrefreplace").decode())
    return "".join(out)


def members(files: dict[str, bytes], runtime: str, brotli: Callable[[list[bytes]], dict[str, bytes]],
            worker_files: tuple[str, ...] = ()):
    """(payload bytes, manifest): every file the page or worker needs, compressed, with its sha256.

    The worker unpacks the runtime and wheels and `worker_files` (the build's results, which it fetches
    beside them) (brotli, decoded by the pinned decoder, which is itself gzip) and the page everything
    else (gzip, which the browser decodes natively)."""
    chosen = {p: d for p, d in files.items() if p not in NOT_MEMBERS}
    def unpacked(path):
        return path.startswith(runtime) or path in worker_files
    br = brotli([d for p, d in chosen.items() if unpacked(p)])
    payload, manifest = bytearray(), []
    for path, data in sorted(chosen.items()):
        digest = hashlib.sha256(data).hexdigest()
        worker = unpacked(path) or path.startswith("decoder/")
        codec = "br" if unpacked(path) else "gz"
        packed = br[digest] if codec == "br" else gzip.compress(data, 9, mtime=0)
        manifest.append({"path": path, "codec": codec, "for": "worker" if worker else "page",
                         "offset": len(payload), "length": len(packed), "size": len(data), "sha256": digest})
        payload += packed
    return bytes(payload), manifest


def inline(html: str, sources: dict[str, str]) -> tuple[str, list[str]]:
    """HTML with its local <link rel=stylesheet> and <script src> replaced by their text (sources, by name), the
    guard added before the page's script; returns it and the CSP hashes of the inline scripts."""
    if PAGE_SCRIPT not in html:
        raise ValueError(f"site/index.html has no {PAGE_SCRIPT} to put the classroom file's guard before")
    html = html.replace(PAGE_SCRIPT, f'<script src="{GUARD}"></script>\n{PAGE_SCRIPT}')
    hashes = []

    def script(m: re.Match) -> str:
        text = js_ascii(sources[m[1]])
        if re.search(r"</script|<!--", text, re.I):
            raise ValueError(f"{m[1]} holds </script or <!--, which would end or confuse its inline <script>")
        hashes.append("'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'")
        return f"<script>{text}</script>"

    html = re.sub(r'<link rel="stylesheet" href="([\w./-]+)">',
                  lambda m: f"<style>{css_ascii(sources[m[1]])}</style>", html)
    html = re.sub(r'<script src="([\w./-]+)"></script>', script, html)
    return html, hashes


def single_file(render: Callable[[dict, str], str], build_info: dict, files: dict[str, bytes],
                sources: dict[str, str], decoder: dict[str, bytes], brotli) -> bytes:
    """The classroom file. render(build_info, csp) is build.py's page(); FILES the served site's files;
    SOURCES the text of the page's scripts (wt.js, guard.js) and styles by name; DECODER the pinned decoder files by npm path."""
    results = build_info.get("results")  # the build's run results: the worker fetches them beside the runtime
    payload, manifest = members({**files, **{DECODER[k]: v for k, v in decoder.items()}}, build_info["runtime"], brotli,
                                (results["file"],) if results else ())
    info = {**build_info, "classroom": {"members": manifest, "bytes": len(payload), "escape": ESC}}
    html, hashes = inline(render(info, "\0csp\0"), sources)
    html = ascii_page(html.replace('<meta charset="utf-8">', '<meta charset="windows-1252">', 1))
    html = html.replace("\0csp\0", CSP.format(hashes=" ".join(hashes)))
    if 'charset="windows-1252"' not in html or "</body>" not in html:
        raise ValueError('site/index.html needs <meta charset="utf-8"> and </body>')
    head, tail = html.rsplit("</body>", 1)
    out = head.encode("ascii") + blocks(payload) + b"\n</body>" + tail.encode("ascii")
    if payload_of(out) != payload:
        raise ValueError("the payload does not survive its own encoding")
    return out
