// The classroom file's payload (tools/single_file.py writes it): every file of the site, compressed, in
// <script class="wt-payload"> blocks of a page read as windows-1252, listed in config.classroom.members with its
// sha256. Shared by the page (site/classroom.js) and the worker (site/worker.js), which both import it: a file
// is used only once its own sha256 matches, and one that does not names itself.

// windows-1252 reads every byte as one character; only 0x80-0x9F are not their own code point.
const HIGH = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152,
  0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178];
const MIME = { js: "text/javascript;charset=utf-8", css: "text/css;charset=utf-8", wasm: "application/wasm",
  json: "application/json", txt: "text/plain;charset=utf-8" };
const DECODER = "decoder/brotli_dec_wasm";

export function decodeText(texts, escape) {
  // The payload's bytes from its blocks' texts: each character is one byte; ESC, c stands for c - 64.
  const byte = new Uint8Array(0x2123);
  for (let b = 0; b < 256; b++) byte[b] = b;
  HIGH.forEach((cp, i) => { byte[cp] = 0x80 + i; });
  const out = new Uint8Array(texts.reduce((sum, t) => sum + t.length, 0));
  let n = 0;
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      const b = byte[text.charCodeAt(i)];
      out[n++] = b === escape ? (byte[text.charCodeAt(++i)] - 64) & 0xff : b;
    }
  }
  return out.subarray(0, n);
}

export const mime = (path) => MIME[path.split(".").pop()] || "application/octet-stream";

async function sha256(data) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

// Streams and Responses of bytes, never Blobs: WebKit's worker of a file:// page cannot read a Blob.
const gunzip = async (data) => new Uint8Array(await new Response(new ReadableStream({
  start(c) { c.enqueue(data); c.close(); },
}).pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());

function classic(text, names) {
  // The decoder's ES module as a function returning its exports: no import() of a blob: or data: URL,
  // which WebKit's file:// worker refuses (and the page's CSP too, for data:).
  const body = text.replace(/\bexport\s*\{[^}]*\};?\s*$/, "").replace(/\bexport (?=(class|const|function) )/g, "")
    .replace(/\bimport\.meta\.url\b/g, "self.location.href");
  const exports = text.match(/\bexport\s*\{([^}]*)\}/);
  const alias = Object.fromEntries((exports ? exports[1].split(",") : []).map((e) => e.trim().split(/\s+as\s+/).reverse()));
  const module = new Function(`${body}\nreturn {${names.map((n) => `${n}: ${alias[n] || n}`).join(", ")}};`)();
  names.forEach((n) => { if (typeof module[n] !== "function") throw new Error(`the brotli decoder has no ${n}`); });
  return module;
}

export async function member(payload, m, brotli) {
  // One file, decompressed and checked. Damaged bytes may not even decompress: the same verdict.
  const packed = payload.subarray(m.offset, m.offset + m.length);
  // a missing feature is not damage: say which (boot.js names it to the reader before anything is unpacked)
  if (m.codec !== "br" && typeof DecompressionStream !== "function") throw new Error("this browser lacks DecompressionStream");
  if (!(globalThis.crypto && crypto.subtle)) throw new Error("this browser lacks Web Crypto (crypto.subtle)");
  let data;
  try {
    data = m.codec === "br" ? brotli(packed) : await gunzip(packed);
  } catch {
    data = null;
  }
  if (!data || data.length !== m.size || (await sha256(data)) !== m.sha256) {
    throw new Error(`${m.path} inside this file was modified or damaged: its sha256 is not the one recorded when the file was built`);
  }
  return data;
}

export async function unpackInto({ bytes, members }, base, into) {
  // Worker: every file for it, as {body, type} keyed by the URL Pyodide will ask for (relative to BASE).
  const payload = new Uint8Array(bytes);
  const find = (path) => members.find((m) => m.path === path);
  const glue = await member(payload, find(`${DECODER}.js`));
  const wasm = await member(payload, find(`${DECODER}_bg.wasm`));
  const decoder = classic(new TextDecoder().decode(glue), ["initSync", "decompress"]);
  decoder.initSync({ module: wasm });
  for (const m of members.filter((m) => m.codec === "br")) {
    into.set(new URL(m.path, base).href, { body: await member(payload, m, decoder.decompress), type: mime(m.path) });
  }
}
