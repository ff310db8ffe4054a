// The classroom file (dist/weighttying.html, opened from disk with no server and no network): the page's side.
// Everything the served site fetches is in this page's .wt-payload blocks (tools/single_file.py). Once the
// page is parsed, this module checks and unpacks the page's own files (BokehJS, Panel's JS and CSS, the
// worker's script) into blob: URLs and gives boot.js and player.js a transport (ClassroomTransport) that
//   - starts the worker from a small bootstrap at once, and posts it its script and the runtime's bytes when
//     they are ready: on file:// a worker cannot fetch the page's blob: URLs, so bytes are posted, and the
//     worker checks and unpacks them itself (its script is dist/worker.js, site/worker.js bundled with its
//     imports: no import or export left, so the classic bootstrap below runs it as a script);
//   - gives the blob: URL of a site path (boot.js's scripts; Panel's stylesheets, which Python names by path);
//   - hands the workers after the first the runtime's module the first compiled (compileRuntime; site/runtime.js).
// A file that does not match its sha256 stops the live lab with its name; the text still reads.
import { whenDom } from "./dom.js";
import { refusals } from "./refusals.js";
import { offeredRuntime } from "./runtime.js";
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

// A promise: the page is parsed, so every payload block of it is in the document.
const parsed = () => new Promise((resolve) => whenDom(resolve));

// What unpacking this file needs beyond what boot.js checks. Without it the page's own files stay packed,
// the playback tables too: the text and its precomputed figures still read.
const PACKED = "The text and its precomputed figures read; in this single-file copy the controls need it too.";
const NEEDS = [
  ["DecompressionStream", () => typeof DecompressionStream === "function", PACKED],
  ["Web Crypto (crypto.subtle)", () => !!(window.crypto && crypto.subtle), PACKED],
  ["blob: URLs", () => typeof URL.createObjectURL === "function", PACKED],
];

/** The classroom file's transport, in the shape of boot.js's httpTransport: {ready, worker(), url(path),
 * localize(value), timings, needs}. config: the page's, whose classroom part lists the payload's members. */
export class ClassroomTransport {
  ready; // a promise: the worker's script and the page's files unpacked and checked (rejected with why not)
  timings = {}; // ms since navigation: payload decoded, worker's bytes posted, page files unpacked
  needs = NEEDS; // [name, has(), what is lost without it]: what boot.js checks before starting the lab
  #members; // every packed file: {path, codec, for, offset, length, size, sha256} (tools/single_file.py)
  #bytes; // the payload's length as built: a file cut short or edited differs
  #escape; // how the payload's text escapes what a <script> block cannot hold (unpack.js decodeText)
  #urls = new Map(); // site path -> blob: URL of its checked bytes
  #payload = null; // the decoded payload, kept for the next worker (Retry, crash restarts)
  #source = null; // the worker's script (checked by its sha256 like every member)
  #sourced; // a promise: the worker's script is read (every worker is posted it then)
  #runtime = offeredRuntime(); // the module the first worker compiled, once it offered it (compileRuntime)
  // An inline script of this file that was edited (the guard before this one) keeps the lab off; if this script
  // was the one refused, site/guard.js says so.
  #refused = refusals({ afterGuard: true });

  constructor(config) {
    ({ members: this.#members, bytes: this.#bytes, escape: this.#escape } = config.classroom);
    const decoded = parsed().then(() => this.#decode());
    // The worker's script first: it starts unpacking the runtime while the page unpacks BokehJS and Panel.
    this.#sourced = decoded.then(() => this.#workerSource());
    this.ready = Promise.all([this.#sourced, this.#sourced.then(() => this.#pageFiles())]);
    this.ready.catch(() => {}); // boot.js shows the failure (and player.js names it in each section)
  }

  worker() {
    // A worker started now from the bootstrap, posted its script and the runtime's bytes once they are read.
    const w = new Worker(URL.createObjectURL(new Blob([BOOTSTRAP], { type: "text/javascript" })));
    this.#sourced.then(() => {
      const copy = this.#payload.slice(), members = this.#members.filter((m) => m.for === "worker");
      w.postMessage({ type: "wt-source", source: this.#source, files: { bytes: copy.buffer, members } }, [copy.buffer]);
      this.timings.posted = this.timings.posted || performance.now();
    }, () => {}); // boot.js shows the failure through transport.ready
    this.#runtime.heard(w);
    return w;
  }

  /** A promise of the runtime's module a worker of this page compiled and offered while it booted; null before. */
  compileRuntime() {
    return this.#runtime.compile();
  }

  // The blob: URL of a site path (itself if the file holds no such member). A field, not a method: tables.js calls
  // it on its own, once ready.
  url = (path) => this.#urls.get(path.split("?")[0]) || path;

  localize(value) {
    return localize(value, this.url);
  }

  async #decode() {
    if (this.#refused()) throw new Error(this.#refused());
    const blocks = [...document.querySelectorAll("script.wt-payload")];
    if (!blocks.length) throw new Error("this file is incomplete: its data block is missing (was it cut short while copying?)");
    this.#payload = decodeText(blocks.map((b) => b.textContent), this.#escape);
    blocks.forEach((b) => b.remove()); // 13 MB of text the page no longer needs
    if (this.#payload.length !== this.#bytes) {
      throw new Error(`this file is damaged or was edited: it holds ${this.#payload.length} bytes of data where it was built with ${this.#bytes}`);
    }
    this.timings.decoded = performance.now();
  }

  async #pageFiles() {
    await Promise.all(this.#members.filter((m) => m.for === "page" && m.path !== "worker.js").map(async (m) => {
      const data = await member(this.#payload, m);
      this.#urls.set(m.path, URL.createObjectURL(new Blob([data], { type: mime(m.path) })));
    }));
    // A link to a file that sits beside index.html on a server (the third-party notices) opens its copy
    // from this file instead: a single copied file has nothing beside it.
    document.querySelectorAll("a[href]").forEach((a) => {
      const inside = this.#urls.get(a.getAttribute("href"));
      if (inside) a.href = inside;
    });
    this.timings.pageFiles = performance.now();
  }

  async #workerSource() {
    this.#source = new TextDecoder().decode(await member(this.#payload, this.#members.find((m) => m.path === "worker.js")));
  }
}
