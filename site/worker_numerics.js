// A numerics worker of the page's pool (site/pool.js): NumPy and weighttying, no Panel. It runs parts of a Run
// (weighttying.pool), a batch at a time, the code lab's reader code among them, and answers a section's slots for
// a setting off its playback grid before Panel has loaded (weighttying.early, site/early.js); a Run of the reader's
// code before Panel runs here whole, its slots drawn with each batch (site/earlyrun.js).
import { baseOf, booting, installPackages, post, readable, startRuntime } from "./worker_python.js";

let early = null; // weighttying.early, once ready: its slots, and the parts this worker runs (early.part)
let part = null; // the part in progress: {run, part, py: its pool.Part or early.Run}

/** The part in progress (null: none), for tests and bench (self.__wtWorker, worker.js). */
export const partNow = () => part;

// What reaches the network from a worker: a numerics worker has every file it needs once it is ready, and it runs
// the code lab's reader code (views.codelab), so it gives them up, from the global and every prototype it inherits.
const NETWORK = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport", "importScripts", "Worker",
  "SharedWorker"];

function sealed(scope, py) {
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

const PACKAGES = ["numpy", "weighttying"];

/** The boot message's work: Python with NumPy and weighttying, then sealed off the network; "numerics-ready". */
export function boot({ config, address, runtime }) {
  return booting(async () => {
    const py = await startRuntime(config, baseOf(address), PACKAGES, runtime === true);
    await installPackages(config, PACKAGES, "Installing NumPy and weighttying");
    early = py.pyimport("weighttying.early");
    sealed(self, py);
    post({ type: "numerics-ready" });
  });
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
    part = { run, part: index, py: early.part(spec) }; // a pooled Run's part, or a Run before Panel (weighttying.early)
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

function prepare({ section }) {
  // What section's Run computes first whatever the reader's code, computed before a Run is asked; a failure here is
  // the Run's to say when it meets it.
  try {
    early.prepare(section);
  } catch (err) {
    console.error(err);
  }
}

/** The page's messages to a numerics worker: run a part, cancel it, answer a section's slots, prepare for a Run. */
export const handlers = {
  part: runPart,
  cancel: (msg) => cancelPart(msg.run),
  slots: answerSlots,
  prepare,
};
