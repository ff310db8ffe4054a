// A worker's Python: Pyodide and its packages from this origin only, every byte checked first (runtime and wheels
// listed, with their sha256, in the trimmed pyodide-lock.json that build.py writes), with the boot's progress
// and a readable one-line error for the page. Shared by both kinds of worker (worker.js): the Panel worker
// (worker_panel.js) and a numerics worker of the page's pool (worker_numerics.js).
import { fetchChecked } from "./fetched.js";
import { unpackInto } from "./unpack.js";

// Boot steps and their share of the progress bar: measured cold seconds on a 2-core laptop.
const STEPS = [
  ["runtime", 2.8, "Starting Python (Pyodide)"],
  ["packages", 1.1, "Installing NumPy, Panel, Bokeh and weighttying"],
  ["import", 3.4, "Importing Panel"],
  ["app", 0.6, "Building the live sections"], // the first one's share; the page counts the rest
];
const TOTAL = STEPS.reduce((sum, [, weight]) => sum + weight, 0);

export const post = (msg) => self.postMessage(msg);

export function readable(err) {
  // The last line of a Python traceback ("ValueError: ...") or a JS error's message.
  const lines = String((err && err.message) || err).trim().split("\n").filter((l) => l.trim());
  return lines.length ? lines[lines.length - 1].trim() : "unknown error";
}

/** FN, the boot's step INDEX: its progress said first, its time after; an error it throws is named by the step. */
export async function step(index, fn) {
  const [name, , label] = STEPS[index];
  const done = STEPS.slice(0, index).reduce((sum, [, weight]) => sum + weight, 0);
  post({ type: "progress", step: name, label, fraction: done / TOTAL });
  const t = performance.now();
  try {
    return await fn();
  } catch (err) {
    err.step = label;
    throw err;
  } finally {
    post({ type: "timing", name, ms: performance.now() - t });
  }
}

// The runtime files (and the lock, which holds every wheel's sha256) are fetched once, with the sha256
// build.py wrote into the page's config (Subresource Integrity); a file that is missing or was modified
// is named, and nothing of it runs. Pyodide then gets those same checked bytes (the wasm: its checked
// response) from memory (fetch and importScripts below), so nothing is downloaded twice and nothing
// unchecked can slip in between.
// Bytes, never Blobs: WebKit's worker of a file:// page cannot read any Blob, nor load a blob: URL.
const checked = new Map(); // absolute URL -> {body: Uint8Array whose sha256 matched, type: its MIME type}
//                             or {response} (the wasm over http: handed over once)

async function verifyRuntime(config) {
  const want = config.integrity || {};
  await Promise.all(Object.keys(want).filter((p) => p.startsWith(config.runtime)).map(async (path) => {
    const url = new URL(path, self.location).href;
    const res = await fetchChecked(url, want[path], path);
    // The wasm goes to Pyodide as this checked response itself (a fetch with integrity resolves only once the
    // whole body matched the sha256): compiled from a response with a URL, Chromium keeps the compiled module,
    // its optimized functions too, in its code cache, so a repeat visit neither compiles it nor runs Python
    // on baseline code again (bench/README.md, "Memory and repeat visits"). Compiled from bytes, it cannot.
    // Pyodide compiles it only by instantiateStreaming, which refuses a body not labelled application/wasm, and
    // has no fallback (the boot would hang): from a host that labels it otherwise, the bytes go, labelled.
    const type = res.headers.get("Content-Type") || "", wasm = path.endsWith(".wasm");
    checked.set(url, wasm && type.split(";")[0].trim() === "application/wasm" ? { response: res }
      : { body: new Uint8Array(await res.arrayBuffer()), type: wasm ? "application/wasm" : type });
  }));
}

const netFetch = self.fetch.bind(self);
const netImportScripts = self.importScripts.bind(self);
const urlOf = (input) => new URL(input instanceof Request ? input.url : String(input), self.location).href;

self.fetch = (input, init) => {
  const url = urlOf(input), hit = checked.get(url);
  if (hit && hit.response) { // a response's body can be read only once: handed over, it is no longer ours
    checked.delete(url);
    return Promise.resolve(hit.response);
  }
  // the type kept, so pyodide.asm.wasm still streams as application/wasm
  return hit ? Promise.resolve(new Response(hit.body, { headers: { "Content-Type": hit.type } })) : netFetch(input, init);
};
// A checked script runs from its bytes (indirect eval: global scope, as importScripts would run it).
self.importScripts = (...urls) => urls.forEach((u) => {
  const url = urlOf(u), hit = checked.get(url);
  if (!hit) return netImportScripts(u);
  (0, eval)(`${new TextDecoder().decode(hit.body)}\n//# sourceURL=${url}`);
});

// Pyodide names the package that failed ("...while loading numpy: Failed to fetch"); name its file and
// say whether it is missing or was modified (its sha256 is not the one in the lock).
async function whichWheels(config, runtime, message) {
  try {
    const lock = await (await fetch(`${runtime}pyodide-lock.json`)).json();
    const names = [...message.matchAll(/while loading ([\w.-]+)/g)].map((m) => m[1]);
    const why = await Promise.all(names.filter((n) => lock.packages[n]).map(async (n) => {
      const file = `${config.runtime}${lock.packages[n].file_name}`;
      const res = await fetch(new URL(file, self.location), { cache: "no-store" }).catch(() => null);
      return res && res.ok ? `${file} was modified: its sha256 is not the one in pyodide-lock.json`
        : `could not load ${file} from this site`;
    }));
    return why.length ? why.join("; ") : message;
  } catch {
    return message;
  }
}

let py = null; // the runtime, once started
let runtime = null; // the absolute URL of its folder (the lock's too)

/** The runtime, once startRuntime has started it (null before): for tests and bench (self.__wtWorker, worker.js). */
export const python = () => py;

/** Where this worker's files come from: this site over http, or the classroom file's page, which posted them with
 * this script (self.wtPosted; site/classroom.js, site/unpack.js). */
export const baseOf = (address) => (self.wtPosted ? address : self.location);

/** Step 0: the runtime, from its checked bytes only; returns Pyodide. */
export function startRuntime(config, base) {
  runtime = new URL(config.runtime, base).href;
  return step(0, async () => {
    // nothing of the runtime runs unless it is the file the build recorded (runtime_checked: the time that takes)
    const t = performance.now();
    await (self.wtPosted ? unpackInto(self.wtPosted, base, checked) : verifyRuntime(config));
    self.wtPosted = null;
    post({ type: "timing", name: "runtime_checked", ms: performance.now() - t });
    try {
      self.importScripts(`${runtime}pyodide.js`);
    } catch (err) {
      throw new Error(`could not load ${config.runtime}pyodide.js from this site`, { cause: err });
    }
    py = await loadPyodide({ indexURL: runtime, lockFileURL: `${runtime}pyodide-lock.json` });
    return py;
  });
}

/** Step 1 (after startRuntime): PACKAGES installed, each checked against the lock's sha256 (a failure names its file). */
export function installPackages(config, packages) {
  return step(1, async () => {
    const errors = [];
    await py.loadPackage(packages, { checkIntegrity: true, messageCallback: () => {}, errorCallback: (m) => errors.push(m) });
    if (errors.length) throw new Error(await whichWheels(config, runtime, errors.join(" ")));
    // Python runs and its packages are installed: the checked bytes (runtime, wheels) are not needed
    checked.clear();
  });
}

/** FN, a boot: any failure is said to the page as fatal, named by its step. */
export async function booting(fn) {
  try {
    await fn();
  } catch (err) {
    console.error(err);
    post({ type: "error", fatal: true, message: `${err.step || "Starting"} failed: ${readable(err)}` });
  }
}
