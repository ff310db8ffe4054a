// site/share_code.js, the code lab's code in a link's fragment: what encode writes decode reads back, compressed or
// not; every way a fragment can be wrong (cut short, edited, another format, too long, an inflate bomb, a browser
// without DecompressionStream) is a ShareError that says why, never other code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { KEY, ShareError, decode, encode, hash, isShared } from "../../site/share_code.js";

const CODE = "def lesson_backward(params, cfg, inputs, cache, dlogits):\n    dE = dlogits.T @ h  # ∂L/∂E, “tied” 🙂\n";
const MAX = 20_000;
const NONE = {}; // a browser with neither CompressionStream nor DecompressionStream

async function refused(fragment, why, env = globalThis, max = MAX) {
  await assert.rejects(decode(fragment, max, env), (err) => err instanceof ShareError && why.test(err.why), why.source);
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

test("what encode writes, decode reads back: compressed here, plain where the browser cannot compress", async () => {
  const zipped = await encode(CODE);
  assert.equal(zipped.zipped, true);
  assert.match(zipped.fragment, /^code=z1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
  assert.equal(await decode(`#${zipped.fragment}`, MAX), CODE);
  const plain = await encode(CODE, NONE);
  assert.equal(plain.zipped, false);
  assert.match(plain.fragment, /^code=t1\./);
  assert.equal(await decode(plain.fragment, MAX, NONE), CODE); // a plain link needs no DecompressionStream
  const long = CODE.repeat(100);
  assert.ok((await encode(long)).fragment.length < (await encode(long, NONE)).fragment.length / 5); // it compresses
});

test("the format is deflate-raw of the UTF-8, base64url, checked by the code's hash", async () => {
  // written by node's zlib, not by encode: the fragment's format as its comment states it
  const fragment = `${KEY}z1.${hash(CODE)}.${b64url(deflateRawSync(Buffer.from(CODE, "utf8")))}`;
  assert.equal(await decode(fragment, MAX), CODE);
  assert.equal(hash(""), "811c9dc5"); // FNV-1a's offset basis: nothing hashed
  assert.notEqual(hash("ab"), hash("ba"));
});

test("a fragment that was cut short or edited is refused, never read as other code", async () => {
  const { fragment } = await encode(CODE);
  const [head, check, payload] = fragment.split(".");
  await refused(`${head}.${check}.${payload.slice(0, -6)}`, /damaged|check/);
  const flipped = payload.slice(0, 20) + (payload[20] === "A" ? "B" : "A") + payload.slice(21);
  await refused(`${head}.${check}.${flipped}`, /damaged|check|UTF-8/);
  await refused(`${head}.${hash("other")}.${payload}`, /does not match its check/);
  await refused(`${head}.${check}.${payload}!`, /not base64url/);
  await refused(`${head}.${check}`, /not a whole shared code/);
  await refused(`${head}.${check}.${payload}.more`, /not a whole shared code/);
  await refused(`${KEY}z9.${check}.${payload}`, /format this page does not read \(“z9”\)/);
  const latin1 = Buffer.from([0xff, 0xfe, 0x41]);
  await refused(`${KEY}t1.${check}.${b64url(latin1)}`, /not UTF-8/);
});

test("code longer than the editor takes is refused, however small its link", async () => {
  const long = "#".repeat(MAX + 1);
  const { fragment } = await encode(long);
  assert.ok(fragment.length < 200); // a small link
  await refused(fragment, new RegExp(`${MAX + 1} characters, more than the editor takes \\(${MAX}\\)`));
  assert.equal(await decode((await encode("é".repeat(MAX))).fragment, MAX), "é".repeat(MAX)); // characters, not bytes
  // an inflate bomb is refused at the editor's size in bytes
  const bomb = `${KEY}z1.${hash("")}.${b64url(deflateRawSync(Buffer.alloc(50_000_000)))}`;
  await refused(bomb, /longer than the editor takes/);
  await refused(`${KEY}t1.${hash("")}.${"A".repeat(200_000)}`, /longer than the editor takes/); // a long payload unread
});

test("a browser without DecompressionStream says so instead of failing", async () => {
  const { fragment } = await encode(CODE);
  await refused(fragment, /cannot decompress it/, NONE);
  // one whose streams know only gzip and deflate (engines before 2023) is such a browser
  class Old { constructor(format) { if (format === "deflate-raw") throw new TypeError("unsupported"); } }
  await refused(fragment, /cannot decompress it/, { DecompressionStream: Old });
  assert.equal((await encode(CODE, { CompressionStream: Old })).zipped, false);
});

test("only a code fragment is a shared code's: a section's anchor is not", () => {
  assert.ok(isShared("#code=z1.x.y") && isShared("code=t1.x.y"));
  assert.ok(!isShared("#codelab") && !isShared("") && !isShared("#sweep"));
});
