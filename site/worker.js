// The Pyodide worker. Boots Python from this origin only (runtime and wheels listed, with their
// sha256, in the trimmed pyodide-lock.json that build.py writes), sets up the live State with
// weighttying.app.main.start, then builds each section into its own document when the page asks
// ("build": the page decides the order, the section in view first) and applies the page's widget
// changes. The page gets readable one-line errors; full tracebacks go to the console.
// An ES module: build.py bundles it with its imports (esbuild) into dist/worker.js, which the page starts as a
// module worker and the classroom file's bootstrap runs as a script (it has no import or export left).
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

// Panel 1.9 targets Pyodide 0.29 and compares converted values with pyodide.ffi.jsnull, which 0.27
// lacks (AttributeError on every browser-to-Python change). On 0.27 a JS null already arrives as
// None, so a sentinel that nothing equals is the exact equivalent. PANEL_CDN_ROOT must be set before
// panel is imported: it makes every stylesheet URL Panel emits point at this site. WT_TEST_SECTIONS (a test
// build's, "" on the real page) names the modules declaring its extra sections to weighttying.state, as at build.
const PRELUDE = (config) => `
import os
import pyodide.ffi
os.environ["PANEL_CDN_ROOT"] = ${JSON.stringify(config.panel_cdn_root)}
os.environ["WT_TEST_SECTIONS"] = ${JSON.stringify(config.test_sections || "")}
if not hasattr(pyodide.ffi, "jsnull"):
    pyodide.ffi.jsnull = object()
`;

let py = null;
let numerics = null; // weighttying.pool, in a numerics worker of the page's pool (site/pool.js): no Panel
let early = null; // weighttying.early there: a section's slots for a setting off its playback grid (site/early.js)
let part = null; // that worker's part in progress: {run, part, py: its pool.Part}
let app = null; // weighttying.app.main once its State is set up (start)
// A read-only hook for tests and bench (a module's names are not the worker's globals): the runtime, the part.
self.__wtWorker = Object.freeze({ get py() { return py; }, get part() { return part; } });
let current = null; // the query the live State was last set from
let pending = null; // {query, sections}: a newer one from the page's playback controls, not applied yet

const post = (msg) => self.postMessage(msg);

function readable(err) {
  // The last line of a Python traceback ("ValueError: ...") or a JS error's message.
  const lines = String((err && err.message) || err).trim().split("\n").filter((l) => l.trim());
  return lines.length ? lines[lines.length - 1].trim() : "unknown error";
}

async function step(index, fn) {
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

const emit = (type, json) => post({ type, data: JSON.parse(json) });
const sendPatch = (patch, buffers, sid) => post({ type: "patch", patch, buffers, sid });

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

// The run results computed at build (weighttying.prebuilt): {text} or, when the file is missing or
// was modified, {problem} naming it; the sections then compute their default results live.
function builtResults(config, base) {
  const r = config.results;
  if (!r) return Promise.resolve({ problem: "this build recorded no results file" });
  return fetchChecked(new URL(r.file, base).href, r.integrity, r.file).then((res) => res.text()).then((text) => ({ text }),
    (err) => ({ problem: err.message }));
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

async function boot({ config, query, scheme, address, pool }) {
  // The runtime's bytes come from this site over http, or, in the classroom file opened from disk, from
  // the page, which posted them with this script (self.wtPosted; site/classroom.js, site/unpack.js).
  const base = self.wtPosted ? address : self.location;
  const runtime = new URL(config.runtime, base).href;
  try {
    await step(0, async () => {
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
    });
    // Small, fetched while the packages load; in the classroom file it is one of the checked bytes posted.
    const built = pool === "numerics" ? null : builtResults(config, base);
    await step(1, async () => {
      const errors = [];
      await py.loadPackage(pool === "numerics" ? ["numpy", "weighttying"] : config.packages, {
        checkIntegrity: true,
        messageCallback: () => {},
        errorCallback: (m) => errors.push(m),
      });
      if (errors.length) throw new Error(await whichWheels(config, runtime, errors.join(" ")));
      // Python runs and its packages are installed: the checked bytes (runtime, wheels) are not needed
      checked.clear();
    });
    if (pool === "numerics") return numericsReady();
    await step(2, () => {
      py.runPython(PRELUDE(config));
      py.runPython("import panel");
    });
    const { text = null, problem = "" } = await built;
    // Let the page's queued messages in first: the reader may have moved a control while Python started.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await step(3, () => {
      // Python starts from the link it was booted with, so it names what it refused of it; a move the reader
      // made meanwhile (a "state" already here) follows at once.
      current = query;
      const main = py.pyimport("weighttying.app.main");
      const { sections, query: held } = JSON.parse(main.start(current, emit, scheme || "light", address, text, problem));
      app = main;
      const followed = follow(); // the move's query, once Python holds it: the page then has nothing to send again
      py.pyimport("weighttying.app.pooled").setup(pool || 0, emit); // how many numerics workers the page may start
      post({ type: "sections", sections, query: followed === null ? held : followed });
    });
  } catch (err) {
    console.error(err);
    post({ type: "error", fatal: true, message: `${err.step || "Starting"} failed: ${readable(err)}` });
  }
}

// ---- a numerics worker of the page's pool: runs parts of a run (weighttying.pool), a batch at a time ----

// What reaches the network from a worker: a numerics worker has every file it needs once it is ready, and it runs
// the code lab's reader code (views.codelab), so it gives them up, from the global and every prototype it inherits.
const NETWORK = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport", "importScripts", "Worker",
  "SharedWorker"];

function sealed(scope) {
  for (const name of NETWORK) {
    for (let o = scope; o; o = Object.getPrototypeOf(o)) {
      if (Object.prototype.hasOwnProperty.call(o, name)) delete o[name];
    }
    const said = `${name} is refused here: code run on this page cannot reach the network`;
    Object.defineProperty(scope, name, { get() { throw new Error(said); }, configurable: false });
  }
  // Python's ways to the network go through fetch; with it gone they are refused by name
  py.runPython('import sys\nfor _m in ("pyodide.http", "micropip"):\n    sys.modules[_m] = None');
}

function numericsReady() {
  numerics = py.pyimport("weighttying.pool");
  early = py.pyimport("weighttying.early");
  sealed(self);
  post({ type: "numerics-ready" });
}

function answerSlots({ id, section, query }) {
  // A section's slots for the query's setting, computed as its live section draws them; or why not.
  try {
    post({ type: "slots", id, data: early.slots(section, query) });
  } catch (err) {
    console.error(err);
    post({ type: "slots", id, error: readable(err) });
  }
}

function runPart({ run, part: index, spec }) {
  // One part, a batch of points per task: between batches this worker reads its messages, so a cancel lands.
  try {
    part = { run, part: index, py: numerics.Part(spec) };
  } catch (err) {
    console.error(err);
    return post({ type: "part-error", run, part: index, message: readable(err) });
  }
  const mine = part;
  const next = () => {
    if (part !== mine) return; // cancelled: "ended" was said
    try {
      const batch = mine.py.batch();
      const done = mine.py.done;
      post({ type: "points", run, part: index, batch, done });
      if (!done) return void setTimeout(next, 0);
      part = null;
      mine.py.destroy();
    } catch (err) {
      console.error(err);
      part = null;
      post({ type: "part-error", run, part: index, message: readable(err) });
    }
  };
  next();
}

function cancelPart(run) {
  // The round trip a Cancel waits for: this worker stopped the run's part (if it had one) after its step `step`.
  const mine = part && part.run === run ? part : null;
  if (mine) part = null;
  post({ type: "ended", run, part: mine ? mine.part : null, step: mine ? mine.py.step : null });
  if (mine) mine.py.destroy();
}

function follow() {
  // Python takes the page's latest playback state, if one is pending; returns its query once taken, else null.
  if (pending === null) return null;
  try {
    app.set_query(pending.query, pending.sections, JSON.stringify(pending.carried || {}));
    current = pending.query;
    return current;
  } catch (err) {
    console.error(err);
    post({ type: "error", fatal: false, message: readable(err) });
    return null;
  } finally {
    pending = null;
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "ping") {
    post({ type: "pong", n: msg.n }); // heartbeat: answered whenever Python is not inside a call
  } else if (msg.type === "lifeline") {
    // Held until this worker ends: the page waits on the same Web Lock, so it learns of a terminated
    // or crashed worker at once, even while Python is busy in a long call (then pings go unanswered).
    navigator.locks.request(msg.name, () => { post({ type: "lifeline" }); return new Promise(() => {}); })
      .catch(() => {}); // no locks here (an opaque origin may be denied them): the page relies on the heartbeat
  } else if (msg.type === "boot") {
    boot(msg);
  } else if (msg.type === "part") {
    runPart(msg);
  } else if (msg.type === "cancel") {
    cancelPart(msg.run);
  } else if (msg.type === "slots") {
    answerSlots(msg);
  } else if (msg.type === "pool") {
    // the pool's word on a run this worker asked for (site/pool.js, relayed by the page)
    try {
      py.pyimport("weighttying.app.pooled").heard(msg.kind, msg.run, msg.part, msg.text || "");
    } catch (err) {
      console.error(err);
    }
  } else if (msg.type === "build") {
    const t = performance.now();
    try {
      post({ type: "render", sid: msg.sid, data: app.build(msg.sid) });
    } catch (err) {
      console.error(err);
      post({ type: "error", fatal: true, message: `Building the live section ${msg.sid} failed: ${readable(err)}` });
    } finally {
      post({ type: "timing", name: `build:${msg.sid}`, ms: performance.now() - t });
    }
  } else if (msg.type === "rendered") {
    // The page embedded the section: from now on its Python-side changes reach the page.
    app.link(msg.sid, sendPatch);
    post({ type: "linked", sid: msg.sid });
  } else if (msg.type === "state") {
    // The page's playback moved to msg.query: before Python is set up it is the query the State starts
    // from; after, the sections the page still plays (msg.sections) follow it (a live section keeps its
    // own state, the page shows a section live only once its State matches the controls).
    pending = msg;
    if (app) {
      follow();
      post({ type: "idle" });
    }
  } else if (msg.type === "patch") {
    try {
      app.apply_patch(msg.sid, msg.patch);
    } catch (err) {
      console.error(err);
      // After a Pyodide fatal error every later call fails too: the page must replace this worker.
      const dead = !!(err && err.pyodide_fatal_error) || /fatally failed/.test(String(err && err.message));
      post({ type: "error", fatal: dead, crashed: dead, message: readable(err) });
    } finally {
      post({ type: "idle" }); // always, or the page would queue changes forever
    }
  }
};
