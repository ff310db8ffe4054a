// site/wheel.js, the reader of a stored wheel the worker writes into site-packages without Python: every member's
// bytes as written, a compressed member handed back to Pyodide (null), and a damaged, cut or escaping archive refused.
// The built wheels themselves are read against Python's zipfile in tests/test_wheel_reader.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { storedFiles } from "../../site/wheel.js";

const utf8 = new TextEncoder();

function zip(members, { comment = "", method = 0 } = {}) {
  // A zip of MEMBERS ({name: text}) as Python's zipfile writes one: local headers, central directory, end record.
  const locals = [], centrals = [];
  let offset = 0;
  for (const [name, text] of Object.entries(members)) {
    const n = utf8.encode(name), data = utf8.encode(text);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(8, method, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, n.length, true);
    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(10, method, true);
    central.setUint32(20, data.length, true);
    central.setUint32(24, data.length, true);
    central.setUint16(28, n.length, true);
    central.setUint32(42, offset, true);
    locals.push(new Uint8Array(local.buffer), n, data);
    centrals.push(new Uint8Array(central.buffer), n);
    offset += 30 + n.length + data.length;
  }
  const size = centrals.reduce((s, a) => s + a.length, 0), c = utf8.encode(comment);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, Object.keys(members).length, true);
  end.setUint16(10, Object.keys(members).length, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  end.setUint16(20, c.length, true);
  const parts = [...locals, ...centrals, new Uint8Array(end.buffer), c];
  const out = new Uint8Array(parts.reduce((s, a) => s + a.length, 0));
  parts.reduce((at, a) => (out.set(a, at), at + a.length), 0);
  return out;
}

const texts = (files) => Object.fromEntries(files.map(({ name, data }) => [name, new TextDecoder().decode(data)]));

test("every member's bytes, named as in the archive, a comment after the end record skipped", () => {
  const members = { "pkg/__init__.py": "x = 1\n", "pkg/sub/": "", "pkg-1.0.dist-info/METADATA": "Name: pkg\n", "é.py": "" };
  assert.deepEqual(texts(storedFiles(zip(members, { comment: "a comment" }))), members);
});

test("a member inside a larger buffer is read from its own view", () => {
  const inner = zip({ "a.py": "print(1)\n" }), outer = new Uint8Array(inner.length + 7);
  outer.set(inner, 7);
  assert.deepEqual(texts(storedFiles(outer.subarray(7))), { "a.py": "print(1)\n" });
});

test("a compressed member leaves the wheel to Pyodide", () => {
  assert.equal(storedFiles(zip({ "a.py": "x" }, { method: 8 })), null);
});

test("a name that leaves its folder is refused", () => {
  for (const name of ["../evil.py", "/etc/passwd", "pkg/../../evil.py", "pkg\\..\\evil.py", "./a.py"]) {
    assert.throws(() => storedFiles(zip({ [name]: "x" })), /leaves its folder/, name);
  }
});

test("a damaged or cut archive is refused, never read past its end", () => {
  const good = zip({ "a.py": "print(1)\n", "b.py": "print(2)\n" });
  assert.throws(() => storedFiles(good.subarray(0, 20)), /not a zip archive/);
  const cut = good.slice();
  const view = new DataView(cut.buffer);
  view.setUint32(good.length - 22 + 16, good.length, true); // the directory said to start past the end
  assert.throws(() => storedFiles(cut), /directory is damaged/);
  const long = good.slice(); // a member said to be longer than the archive
  const dir = new DataView(long.buffer).getUint32(good.length - 22 + 16, true);
  new DataView(long.buffer).setUint32(dir + 20, 1e6, true);
  new DataView(long.buffer).setUint32(dir + 24, 1e6, true);
  assert.throws(() => storedFiles(long), /cut short/);
});
