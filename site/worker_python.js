// A worker's Python: Pyodide and its packages from this origin only, every byte checked first (runtime and wheels
// listed, with their sha256, in the trimmed pyodide-lock.json that build.py writes), with the boot's progress
// and a readable one-line error for the page. Shared by both kinds of worker (worker.js): the Panel worker
// (worker_panel.js) and a numerics worker of the page's pool (worker_numerics.js).
import { fetchChecked, labelledWasm } from "./fetched.js";
import { unpackInto } from "./unpack.js";
import { storedFiles } from "./wheel.js";

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

/** FN, the boot's step INDEX: its progress said first, its time after; an error it throws is named by the step
 * (LABEL: what this worker's step does, where it is not what STEPS says of the Panel worker's). */
export async function step(index, fn, label = STEPS[index][2]) {
  const [name] = STEPS[index];
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
// unchecked can slip in between. Every fetch starts at once, and the wheels this worker installs as soon as the
// lock (their sha256) is checked, so over a slow network they arrive while Python starts, not after it (at
// 20 Mbit/s a numerics worker is up 0.7 s sooner: bench/README.md, codelab.py). Pyodide starts once its two
// scripts are checked; it asks for the wasm, the standard library and the lock first thing, and each ask waits
// for that file's own check. Over http the page hands the wasm compiled from its own checked fetch (site/runtime.js),
// and it is fetched here only where that compile failed.
// Bytes, never Blobs: WebKit's worker of a file:// page cannot read any Blob, nor load a blob: URL.
const netFetch = self.fetch.bind(self);
const netImportScripts = self.importScripts.bind(self);
const urlOf = (input) => new URL(input instanceof Request ? input.url : String(input), self.location).href;

const checked = new Map(); // absolute URL -> {body: Uint8Array whose sha256 matched, type: its MIME type}
//                             or {response} (the wasm over http: handed over once), or a promise of either
const scripts = new Map(); // absolute URL -> the checked text of a script Pyodide runs (importScripts is synchronous)

function checkedFile(url, integrity, name, wasm) {
  // A promise of URL's checked bytes (or, for the wasm labelled application/wasm, its checked response).
  return fetchChecked(url, integrity, name, netFetch).then(async (res) => {
    // The wasm goes to Pyodide as this checked response itself (a fetch with integrity resolves only once the
    // whole body matched the sha256): compiled from a response with a URL, Chromium keeps the compiled module,
    // its optimized functions too, in its code cache, so a repeat visit neither compiles it nor runs Python
    // on baseline code again (bench/README.md, "Memory and repeat visits"). Compiled from bytes, it cannot.
    // Pyodide compiles it only by instantiateStreaming, which refuses a body not labelled application/wasm, and
    // has no fallback (the boot would hang): from a host that labels it otherwise, the bytes go, labelled.
    if (wasm && labelledWasm(res)) return { response: res };
    const type = wasm ? "application/wasm" : res.headers.get("Content-Type") || "";
    return { body: new Uint8Array(await res.arrayBuffer()), type };
  });
}

// The runtime's module the page hands (site/runtime.js), once its "runtime" message comes: null where the page's
// compile failed. Where it was instantiated from: "page", or "own" (compiled here from the checked response).
let resolveGiven, coming = false, offers = false;
const given = new Promise((resolve) => { resolveGiven = resolve; });
let runtimeFrom = "";
/** The page's "runtime" messages: one is coming (said before the boot), then its module (anything else is none). */
export const takeRuntime = (msg) => {
  coming = true;
  if (!msg.coming) resolveGiven(msg.module instanceof WebAssembly.Module ? msg.module : null);
};
/** Where this worker's runtime module came from ("page", "own"; "" before): for tests and bench (__wtWorker). */
export const runtimeSource = () => runtimeFrom;

// What Pyodide's fetch of the wasm gets where the page handed its module: nothing (instantiateGiven ignores it).
const HANDED_WASM = { body: new Uint8Array(0), type: "application/wasm" };

function checkRuntime(config, packages, handed) {
  // Every runtime file's checked fetch, started now, and the PACKAGES' wheels once the lock is checked: the
  // promise that every runtime file matched (a failure names its file). HANDED: the page hands the wasm compiled
  // from its checked bytes, so it is fetched here only where the page's compile failed.
  const want = config.integrity || {};
  const files = Object.keys(want).filter((p) => p.startsWith(config.runtime)).map((path) => {
    const url = new URL(path, self.location).href, wasm = path.endsWith(".wasm");
    const own = () => checkedFile(url, want[path], path, wasm);
    const file = wasm && handed ? given.then((module) => (module ? HANDED_WASM : own())) : own();
    checked.set(url, file);
    if (path === `${config.runtime}pyodide-lock.json`) file.then((lock) => prefetchWheels(config, lock, packages), () => {});
    return file;
  });
  return Promise.all(files);
}

// The wheels PACKAGES need (their dependencies too), by the lock's ENTRIES; each one's URL and SRI.
function wheelsNeeded(entries, packages) {
  const need = new Set();
  const add = (name) => {
    if (need.has(name) || !entries[name]) return;
    need.add(name);
    entries[name].depends.forEach(add);
  };
  packages.forEach(add);
  return [...need];
}
const wheelURL = (entry) => `${runtime}${entry.file_name}`;
const integrityOf = (hex) => `sha256-${btoa(String.fromCharCode(...hex.match(/../g).map((h) => parseInt(h, 16))))}`;
// A promise of the lock ENTRY's wheel, checked against its sha256 (a failure names the file).
const checkedWheel = (config, entry) =>
  checkedFile(wheelURL(entry), integrityOf(entry.sha256), `${config.runtime}${entry.file_name}`, false);

function prefetchWheels(config, lock, packages) {
  // The checked fetch of each wheel PACKAGES need, started before Python is up: its sha256 is the lock's. A failure
  // is met and named when the wheel is installed.
  const entries = JSON.parse(new TextDecoder().decode(lock.body)).packages;
  for (const name of wheelsNeeded(entries, packages)) {
    const wheel = checkedWheel(config, entries[name]);
    wheel.catch(() => {}); // not a rejection nobody heard: installPackages awaits it
    checked.set(wheelURL(entries[name]), wheel);
  }
}

// A file that failed its check ends the boot with its name (startRuntime, installPackages): Pyodide's ask for it is
// left waiting, never rejected, since Pyodide asks some files before anything of it would hear a rejection.
const unanswered = new Promise(() => {});

self.fetch = (input, init) => {
  const url = urlOf(input), hit = checked.get(url);
  if (!hit) return netFetch(input, init);
  return Promise.resolve(hit).then((file) => {
    if (!file.response) return new Response(file.body, { headers: { "Content-Type": file.type } }); // the type
    // kept, so pyodide.asm.wasm still streams as application/wasm; a response's body can be read only once:
    checked.delete(url); // handed over, it is no longer ours
    return file.response;
  }, () => unanswered);
};
// A checked script runs from its bytes (indirect eval: global scope, as importScripts would run it).
self.importScripts = (...urls) => urls.forEach((u) => {
  const url = urlOf(u), text = scripts.get(url);
  if (text === undefined) return netImportScripts(u);
  (0, eval)(`${text}\n//# sourceURL=${url}`);
});

// Pyodide names the package that failed ("...while loading numpy: Failed to fetch"); name its file and
// say whether it is missing or was modified (its sha256 is not the one in the lock).
async function whichWheels(config, runtime, message) {
  try {
    const lock = await (await fetch(`${runtime}pyodide-lock.json`)).json();
    const names = [...message.matchAll(/while loading ([\w.-]+)/g)].map((m) => m[1]);
    const why = await Promise.all(names.filter((n) => lock.packages[n]).map(async (n) => {
      const file = `${config.runtime}${lock.packages[n].file_name}`;
      const res = await netFetch(new URL(file, self.location), { cache: "no-store" }).catch(() => null);
      return res && res.ok ? `${file} was modified: its sha256 is not the one in pyodide-lock.json`
        : `could not load ${file} from this site`;
    }));
    return why.length ? why.join("; ") : message;
  } catch {
    return message;
  }
}

function instantiateGiven() {
  // Pyodide compiles the wasm only through instantiateStreaming, of its checked response: once the page's module
  // comes, it is instantiated instead; where the page has none, that response is compiled here, as without it.
  // Its first call only (the runtime's): any later one is the browser's own again.
  const own = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    WebAssembly.instantiateStreaming = own;
    const t = performance.now(), module = offers ? null : await given;
    runtimeFrom = module ? "page" : "own";
    // how long it waited for the page's compile: the page's timings say the page's module was used (every engine)
    if (module) post({ type: "timing", name: "runtime_given", ms: performance.now() - t });
    if (module) return { module, instance: await WebAssembly.instantiate(module, imports) };
    const made = await own.call(WebAssembly, source, imports);
    // the classroom file's first worker: its module, for the workers after it (site/runtime.js's offeredRuntime)
    if (offers) post({ type: "runtime-offer", module: made.module });
    return made;
  };
}

let py = null; // the runtime, once started
let runtime = null; // the absolute URL of its folder (the lock's too)

/** The runtime, once startRuntime has started it (null before): for tests and bench (self.__wtWorker, worker.js). */
export const python = () => py;

/** Where this worker's files come from: this site over http, or the classroom file's page, which posted them with
 * this script (self.wtPosted; site/classroom.js, site/unpack.js). */
export const baseOf = (address) => (self.wtPosted ? address : self.location);

/** Step 0: the runtime, from its checked bytes only, and the fetch of PACKAGES' wheels begun; returns Pyodide.
 * HANDED: the page hands this worker its compiled module (its boot message's `runtime`; site/runtime.js). */
export function startRuntime(config, base, packages, handed = false) {
  runtime = new URL(config.runtime, base).href;
  if (handed) instantiateGiven();
  else runtimeFrom = "own";
  return step(0, async () => {
    // nothing of the runtime runs unless it is the file the build recorded (runtime_checked: the time until every
    // file was, which overlaps Pyodide's start below)
    const t = performance.now();
    let all;
    if (self.wtPosted) { // the classroom file: every file already in memory, checked as it was unpacked
      await unpackInto(self.wtPosted, base, checked);
      offers = handed && !coming; // the page said before the boot whether it has a module for this worker
      all = Promise.resolve();
    } else {
      all = checkRuntime(config, packages, handed);
    }
    self.wtPosted = null;
    all.then(() => post({ type: "timing", name: "runtime_checked", ms: performance.now() - t }), () => {});
    await Promise.all(["pyodide.js", "pyodide.asm.js"].map(async (name) => {
      const url = `${runtime}${name}`, file = await Promise.race([checked.get(url), all]);
      if (file && file.body) scripts.set(url, new TextDecoder().decode(file.body));
    }));
    try {
      self.importScripts(`${runtime}pyodide.js`);
    } catch (err) {
      throw new Error(`could not load ${config.runtime}pyodide.js from this site`, { cause: err });
    }
    // A file that fails its check ends the boot with its name (Pyodide waits for it forever).
    py = await Promise.race([loadPyodide({ indexURL: runtime, lockFileURL: `${runtime}pyodide-lock.json` }),
      all.then(() => unanswered)]);
    return py;
  });
}

async function wheelBytes(config, entry) {
  // A wheel's checked bytes: fetched before Python was up (or posted by the classroom file), else now.
  return (await (checked.get(wheelURL(entry)) || checkedWheel(config, entry))).body;
}

function writeFiles(FS, folder, files) {
  // A wheel's FILES (wheel.js) into FOLDER, as Pyodide's install unpacks it.
  const made = new Set();
  for (const { name, data } of files) {
    const path = `${folder}/${name}`, dir = name.endsWith("/") ? path : path.slice(0, path.lastIndexOf("/"));
    if (!made.has(dir)) FS.mkdirTree(dir);
    made.add(dir);
    if (!name.endsWith("/")) FS.writeFile(path, data);
  }
}

/** Step 1 (after startRuntime): PACKAGES installed, each checked against the lock's sha256 (a failure names its file).
 * A pure-Python wheel is written into site-packages from here (wheel.js); NumPy's, with its shared libraries, and
 * any wheel with a compressed member, by Pyodide's loadPackage. */
export function installPackages(config, packages, label) {
  return step(1, async () => {
    const entries = (await (await self.fetch(`${runtime}pyodide-lock.json`)).json()).packages;
    const names = wheelsNeeded(entries, packages);
    const wheels = await Promise.allSettled(names.map((name) => wheelBytes(config, entries[name])));
    const errors = wheels.filter((w) => w.status === "rejected").map((w) => readable(w.reason));
    if (errors.length) throw new Error(errors.join("; "));
    const pure = names.map((name, i) => {
      const file = entries[name].file_name;
      try {
        return file.endsWith("-none-any.whl") ? storedFiles(wheels[i].value) : null;
      } catch (err) { // its bytes are the build's (sha256), so the build wrote it wrong: named, like any wheel
        throw new Error(`${config.runtime}${file} cannot be installed: ${err.message}`, { cause: err });
      }
    });
    const said = [];
    await py.loadPackage(names.filter((name, i) => !pure[i]), { checkIntegrity: true, messageCallback: () => {},
      errorCallback: (m) => said.push(m) });
    if (said.length) throw new Error(await whichWheels(config, runtime, said.join(" ")));
    // the pure wheels last, in one synchronous go: no message can find them importable without NumPy beside them
    const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
    pure.forEach((files) => files && writeFiles(py.FS, site, files));
    py.runPython("import importlib\nimportlib.invalidate_caches()"); // the folders written above, seen by import
    // Python runs and its packages are installed: the checked bytes (runtime, wheels) are not needed
    checked.clear();
    scripts.clear();
  }, label);
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
