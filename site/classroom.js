// The classroom file (dist/weighttying.html, opened from disk with no server and no network): the page's side.
// Everything the served site fetches is in this page's .wt-payload blocks (tools/single_file.py). Once the
// page is parsed, this module checks and unpacks the page's own files (BokehJS, Panel's JS and CSS, the
// worker's script) into blob: URLs and gives boot.js and player.js a transport (classroomTransport) that
//   - starts the worker from a small bootstrap at once, and posts it its script and the runtime's bytes when
//     they are ready: on file:// a worker cannot fetch the page's blob: URLs, so bytes are posted, and the
//     worker checks and unpacks them itself (its script is dist/worker.js, site/worker.js bundled with its
//     imports: no import or export left, so the classic bootstrap below runs it as a script);
//   - gives the blob: URL of a site path (boot.js's scripts; Panel's stylesheets, which Python names by path).
// A file that does not match its sha256 stops the live lab with its name; the text still reads.
import { refusals } from "./refusals.js";
import { decodeText, member, mime } from "./unpack.js";

// Queues what boot.js posts until the real script arrives with the bytes, then runs it and replays.
const BOOTSTRAP = `"use strict";
const early = [];
self.onmessage = (event) => {
  if (event.data.type !== "wt-source") return void early.push(event);
  // heard from: the page's silence watch starts now, not while it was still reading this file (a minute in
  // WebKit on a busy machine); ms: how long this worker waited for its bytes
  self.postMessage({ type: "timing", name: "bytes_received", ms: performance.now() });
  self.wtPosted = event.data.files;
  (0, eval)(event.data.source); // not importScripts of a blob: URL, which WebKit refuses a file:// page's worker
  early.forEach((e) => self.onmessage(e));
};`;

export function localize(value, url) {
  // Panel names its stylesheets by site path (PANEL_CDN_ROOT): here each becomes its blob: URL (url), in place.
  if (typeof value === "string") return url(value);
  if (Array.isArray(value)) value.forEach((v, i) => { value[i] = localize(v, url); });
  else if (value && typeof value === "object" && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer)) {
    for (const key of Object.keys(value)) value[key] = localize(value[key], url);
  }
  return value;
}

export function classroomTransport(config) {
  const { members, bytes, escape } = config.classroom;
  const urls = new Map(); // site path -> blob: URL of its checked bytes
  let payload = null; // the decoded payload, kept for the next worker (Retry, crash restarts)
  let source = null; // the worker's script (checked by its sha256 like every member)

  // An inline script of this file that was edited (the guard before this one) keeps the lab off; if this script
  // was the one refused, site/guard.js says so.
  const refused = refusals({ afterGuard: true });

  const timings = {}; // ms since navigation: payload decoded, worker's bytes posted, page files unpacked

  async function decode() {
    if (refused()) throw new Error(refused());
    const blocks = [...document.querySelectorAll("script.wt-payload")];
    if (!blocks.length) throw new Error("this file is incomplete: its data block is missing (was it cut short while copying?)");
    payload = decodeText(blocks.map((b) => b.textContent), escape);
    blocks.forEach((b) => b.remove()); // 13 MB of text the page no longer needs
    if (payload.length !== bytes) {
      throw new Error(`this file is damaged or was edited: it holds ${payload.length} bytes of data where it was built with ${bytes}`);
    }
    timings.decoded = performance.now();
  }

  async function pageFiles() {
    await Promise.all(members.filter((m) => m.for === "page" && m.path !== "worker.js").map(async (m) => {
      const data = await member(payload, m);
      urls.set(m.path, URL.createObjectURL(new Blob([data], { type: mime(m.path) })));
    }));
    // A link to a file that sits beside index.html on a server (the third-party notices) opens its copy
    // from this file instead: a single copied file has nothing beside it.
    document.querySelectorAll("a[href]").forEach((a) => {
      const inside = urls.get(a.getAttribute("href"));
      if (inside) a.href = inside;
    });
    timings.pageFiles = performance.now();
  }

  async function workerSource() {
    source = new TextDecoder().decode(await member(payload, members.find((m) => m.path === "worker.js")));
  }

  const decoded = new Promise((resolve) => {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", resolve, { once: true });
    else resolve();
  }).then(decode);
  // The worker's script first: it starts unpacking the runtime while the page unpacks BokehJS and Panel.
  const sourced = decoded.then(workerSource);
  const ready = Promise.all([sourced, sourced.then(pageFiles)]);
  ready.catch(() => {}); // boot.js shows the failure (and player.js names it in each section)

  function worker() {
    const w = new Worker(URL.createObjectURL(new Blob([BOOTSTRAP], { type: "text/javascript" })));
    sourced.then(() => {
      const copy = payload.slice();
      w.postMessage({ type: "wt-source", source, files: { bytes: copy.buffer, members: members.filter((m) => m.for === "worker") } },
        [copy.buffer]);
      timings.posted = timings.posted || performance.now();
    }, () => {}); // boot.js shows the failure through transport.ready
    return w;
  }

  const url = (path) => urls.get(path.split("?")[0]) || path;

  // What unpacking this file needs beyond what boot.js checks. Without it the page's own files stay packed,
  // the playback tables too: the text and its precomputed figures still read.
  const packed = "The text and its precomputed figures read; in this single-file copy the controls need it too.";
  const needs = [
    ["DecompressionStream", () => typeof DecompressionStream === "function", packed],
    ["Web Crypto (crypto.subtle)", () => !!(window.crypto && crypto.subtle), packed],
    ["blob: URLs", () => typeof URL.createObjectURL === "function", packed],
  ];

  return { ready, worker, url, localize: (value) => localize(value, url), timings, needs };
}
