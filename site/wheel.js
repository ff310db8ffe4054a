// A pure-Python wheel's files, read without Python. Every wheel this site ships is a zip of stored (uncompressed)
// members (tools/buildsteps/pyc.py: the archive goes brotli-compressed as a whole), so reading one is slicing its
// bytes. worker_python.js writes them into site-packages itself: Pyodide's own install unpacks each wheel in
// Python, which costs 0.56 s of the Panel worker's boot in Chromium and 1.41 s in WebKit (bench/README.md).

const EOCD = 0x06054b50, CENTRAL = 0x02014b50, LOCAL = 0x04034b50; // the zip records' signatures
const EOCD_SIZE = 22, CENTRAL_SIZE = 46, LOCAL_SIZE = 30, MOST_COMMENT = 0xffff;

function endOfDirectory(view) {
  // Where the end-of-central-directory record starts (a comment of up to 64 KB may follow it).
  const last = view.byteLength - EOCD_SIZE;
  for (let at = last; at >= Math.max(0, last - MOST_COMMENT); at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  throw new Error("it is not a zip archive");
}

/** BYTES' files as [{name, data}] (data: a view into BYTES), in the central directory's order; null when a member
 * is compressed (the wheel is then Pyodide's to install). Throws on an archive that is damaged, in zip64, or has a
 * member whose name leaves the folder it is unpacked into. */
export function storedFiles(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = endOfDirectory(view);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new Error("it is a zip64 archive");
  const names = new TextDecoder("utf-8", { fatal: true }), files = [];
  for (let k = 0; k < count; k++) {
    if (at + CENTRAL_SIZE > bytes.length || view.getUint32(at, true) !== CENTRAL) throw new Error("its directory is damaged");
    const method = view.getUint16(at + 10, true), size = view.getUint32(at + 20, true);
    const unpacked = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = names.decode(bytes.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength));
    at += CENTRAL_SIZE + skip;
    if (method !== 0 || size !== unpacked) return null;
    if (!name || name.startsWith("/") || name.includes("\\") || name.split("/").some((p) => p === ".." || p === ".")) {
      throw new Error(`a member's name leaves its folder: ${JSON.stringify(name)}`);
    }
    if (local + LOCAL_SIZE > bytes.length || view.getUint32(local, true) !== LOCAL) throw new Error(`${name} is damaged`);
    const start = local + LOCAL_SIZE + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + size > bytes.length) throw new Error(`${name} is cut short`);
    files.push({ name, data: bytes.subarray(start, start + size) });
  }
  return files;
}
