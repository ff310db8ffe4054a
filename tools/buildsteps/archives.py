"""Deterministic zips and wheels (sorted members, fixed dates and modes), and reading a wheel's METADATA."""
from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from email.parser import HeaderParser
from pathlib import Path

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def write_zip(path: Path, files: dict[str, bytes], stored: bool = False) -> Path:
    """A deterministic zip: sorted members, fixed timestamps and modes. STORED: members uncompressed, for
    an archive that is sent brotli/gzip-compressed as a whole (smaller than per-member deflate)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.external_attr = 0o644 << 16
            z.writestr(info, files[name], zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED, 6)
    path.write_bytes(buf.getvalue())
    return path


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(path: Path, dist_info: str, files: dict[str, bytes], stored: bool = False) -> Path:
    """A deterministic wheel (write_zip) of FILES with a WHEEL file when missing and a fresh RECORD."""
    files = {n: d for n, d in files.items() if n != f"{dist_info}/RECORD"}
    files.setdefault(f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: weighttying build.py\n"
                                            b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in sorted(files.items()))
    files[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    return write_zip(path, files, stored)


def dist_info_of(names) -> str:
    return next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))


def wheel_metadata(path: Path):
    """(METADATA headers, top-level import names) of a wheel."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta = HeaderParser().parsestr(z.read(f"{dist_info_of(names)}/METADATA").decode())
    tops = sorted({n.split("/")[0] for n in names if "/" in n and not n.split("/")[0].endswith((".dist-info", ".data"))}
                  | {n.rsplit(".", 1)[0] for n in names if "/" not in n and n.endswith((".py", ".pyc"))})
    return meta, tops
