// The Panel worker: sets up the live State with weighttying.app.main.start, then builds each section into its own
// document when the page asks ("build": the page decides the order, the section in view first), applies the page's
// widget changes and gathers the Runs it hands the page's pool (weighttying.app.pooled).
import { baseOf, booting, installPackages, post, readable, startRuntime, step } from "./worker_python.js";
import { fetchChecked } from "./fetched.js";

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
let app = null; // weighttying.app.main once its State is set up (start)
let pending = null; // {query, sections, carried, ran}: the page's playback state, not yet taken by Python

const emit = (type, json) => post({ type, data: JSON.parse(json) });
const sendPatch = (patch, buffers, sid) => post({ type: "patch", patch, buffers, sid });

// The run results computed at build (weighttying.prebuilt): {text} or, when the file is missing or
// was modified, {problem} naming it; the sections then compute their default results live.
function builtResults(config, base) {
  const r = config.results;
  if (!r) return Promise.resolve({ problem: "this build recorded no results file" });
  return fetchChecked(new URL(r.file, base).href, r.integrity, r.file).then((res) => res.text()).then((text) => ({ text }),
    (err) => ({ problem: err.message }));
}

function takeState() {
  // Python takes the page's latest playback state, if one is pending; returns its query once taken, else null.
  if (pending === null) return null;
  try {
    app.set_query(pending.query, pending.sections, JSON.stringify(pending.carried || {}), JSON.stringify(pending.ran || {}));
    return pending.query;
  } catch (err) {
    console.error(err);
    post({ type: "error", fatal: false, message: readable(err) });
    return null;
  } finally {
    pending = null;
  }
}

/** The boot message's work: Python with Panel and the package, the live State from QUERY; "sections" when set up. */
export function boot({ config, query, scheme, address, pool, runtime }) {
  return booting(async () => {
    const base = baseOf(address);
    py = await startRuntime(config, base, config.packages, runtime === true);
    const results = builtResults(config, base); // small, fetched while the packages load (the classroom file: posted)
    await installPackages(config, config.packages);
    await step(2, () => {
      py.runPython(PRELUDE(config));
      py.runPython("import panel");
    });
    const { text = null, problem = "" } = await results;
    // Let the page's queued messages in first: the reader may have moved a control while Python started.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await step(3, () => {
      // Python starts from the link it was booted with, so it names what it refused of it; a move the reader
      // made meanwhile (a "state" already here) is taken at once.
      const main = py.pyimport("weighttying.app.main");
      const { sections, query: held } = JSON.parse(main.start(query, emit, scheme || "light", address, text, problem));
      app = main;
      const taken = takeState(); // the move's query, once Python holds it: the page then has nothing to send again
      py.pyimport("weighttying.app.pooled").setup(pool || 0, emit); // how many numerics workers the page may start
      post({ type: "sections", sections, query: taken === null ? held : taken });
    });
  });
}

function build({ sid }) {
  const t = performance.now();
  try {
    post({ type: "render", sid, data: app.build(sid) });
  } catch (err) {
    console.error(err);
    post({ type: "error", fatal: true, message: `Building the live section ${sid} failed: ${readable(err)}` });
  } finally {
    post({ type: "timing", name: `build:${sid}`, ms: performance.now() - t });
  }
}

function patch(msg) {
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

/** The page's messages to the Panel worker (docs/DESIGN.md, "Page and worker"). */
export const handlers = {
  build,
  patch,
  rendered: ({ sid }) => {
    // The page embedded the section: from now on its Python-side changes reach the page.
    app.link(sid, sendPatch);
    post({ type: "linked", sid });
  },
  state: (msg) => {
    // The page's playback moved to msg.query: before Python is set up it is the query the State starts
    // from; after, the sections the page still plays (msg.sections) take it (a live section keeps its
    // own state, the page shows a section live only once its State matches the controls).
    pending = msg;
    if (app) {
      takeState();
      post({ type: "idle" });
    }
  },
  pool: (msg) => {
    // the pool's word on a run this worker asked for (site/pool.js, relayed by the page). Before the app is up it
    // is about a Run of the worker this one replaced: dropped, and never a Python import mid-install, which would
    // leave a package that checked for NumPy before NumPy was there in sys.modules
    if (!app) return;
    try {
      py.pyimport("weighttying.app.pooled").heard(msg.kind, msg.run, msg.part, msg.text || "");
    } catch (err) {
      console.error(err);
    }
  },
};
