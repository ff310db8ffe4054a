// site/unpack.js over a classroom file (tests/node/classroom.html, made by tools/single_file.py's own functions): the
// payload blocks, read as the browser reads them (windows-1252), decode to the bytes the build recorded; every page
// member unpacks under its own sha256; a damaged member, or one that no longer decompresses, names itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeText, member, mime } from "../../site/unpack.js";
import { classroom } from "./fixtures.mjs";

const text = classroom();
const config = JSON.parse(text.match(/<script id="wt-build" type="application\/json">(.*?)<\/script>/s)[1]);
const { members, bytes, escape } = config.classroom;
const blocks = [...text.matchAll(/<script class="wt-payload" type="application\/octet-stream">(.*?)<\/script>/gs)].map((m) => m[1]);
const payload = decodeText(blocks, escape);

test("the payload decodes to as many bytes as the build recorded", () => {
  assert.ok(blocks.length > 1, "the payload is written as blocks");
  assert.equal(payload.length, bytes);
});

test("every page member unpacks under its own sha256", async () => {
  const page = members.filter((m) => m.codec === "gz");
  assert.ok(page.some((m) => m.path === "worker.js") && page.some((m) => m.path === "style.css"));
  for (const m of page) assert.equal((await member(payload, m)).length, m.size, m.path);
  const worker = new TextDecoder().decode(await member(payload, page.find((m) => m.path === "worker.js")));
  assert.match(worker, /^self\.part0 = 0;\n/, "the worker's own text");
});

test("a damaged member names itself, whether or not it still decompresses", async () => {
  const m = members.find((x) => x.path === "style.css");
  for (const at of [m.offset + 10, m.offset + m.length - 5]) { // inside the deflate stream; the gzip trailer
    const damaged = payload.slice();
    damaged[at] ^= 0x01;
    await assert.rejects(member(damaged, m), new RegExp(`^Error: style\\.css inside this file was modified or damaged`));
  }
});

test("a browser lacking DecompressionStream is told so, not that the file is damaged", async (t) => {
  const m = members.find((x) => x.path === "style.css");
  const saved = Object.getOwnPropertyDescriptor(globalThis, "DecompressionStream");
  delete globalThis.DecompressionStream;
  t.after(() => Object.defineProperty(globalThis, "DecompressionStream", saved));
  await assert.rejects(member(payload, m), /^Error: this browser lacks DecompressionStream$/);
});

test("ESC, byte + 64 stands for the byte, and windows-1252's 0x80-0x9F map back to their bytes", () => {
  const bytes = Uint8Array.from([0x00, 0x0d, 0x3c, 0x3d, 0x41, 0x80, 0x9f, 0xff]);
  const encoded = [];
  for (const b of bytes) encoded.push(...([0x00, 0x0d, 0x3c, 0x3d].includes(b) ? [0x3d, (b + 64) & 0xff] : [b]));
  const text = new TextDecoder("windows-1252").decode(Uint8Array.from(encoded));
  assert.deepEqual(decodeText([text], 0x3d), bytes);
  const cut = text.indexOf("=") + 2; // blocks end on whole escapes (single_file.py encodes each block alone)
  assert.deepEqual(decodeText([text.slice(0, cut), text.slice(cut)], 0x3d), bytes, "blocks decode as their concatenation");
  assert.equal(mime("a/b.wasm"), "application/wasm");
  assert.equal(mime("LICENSE"), "application/octet-stream");
});
