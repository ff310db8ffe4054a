// The Pyodide worker, one script for both kinds (the boot message's `pool` says which): the Panel worker
// (worker_panel.js) and a numerics worker of the page's pool (worker_numerics.js), over one Python start
// (worker_python.js). The page gets readable one-line errors; full tracebacks go to the console.
// An ES module: build.py bundles it with its imports (esbuild) into dist/worker.js, which the page starts as a
// module worker and the classroom file's bootstrap runs as a script (it has no import or export left).
import { post, python, readable, runtimeSource, takeRuntime } from "./worker_python.js";
import * as panel from "./worker_panel.js";
import * as numerics from "./worker_numerics.js";

// A read-only hook for tests and bench (a module's names are not the worker's globals): the runtime, the part, how
// an error is said (bench/worker_hook.js says its own errors so), and where the runtime's module came from
self.__wtWorker = Object.freeze({ get py() { return python(); }, get part() { return numerics.partNow(); }, readable,
  get runtime() { return runtimeSource(); } });

// Each message type is one kind's (their names do not overlap), so a message reaches its handler whatever came first.
const HANDLERS = {
  ping: (msg) => post({ type: "pong", n: msg.n }), // heartbeat: answered whenever Python is not inside a call
  lifeline: (msg) => {
    // Held until this worker ends: the page waits on the same Web Lock, so it learns of a terminated
    // or crashed worker at once, even while Python is busy in a long call (then pings go unanswered).
    navigator.locks.request(msg.name, () => { post({ type: "lifeline" }); return new Promise(() => {}); })
      .catch(() => {}); // no locks here (an opaque origin may be denied them): the page relies on the heartbeat
  },
  boot: (msg) => (msg.pool === "numerics" ? numerics : panel).boot(msg),
  runtime: takeRuntime, // the page's compiled runtime, for either kind (site/runtime.js)
  ...panel.handlers,
  ...numerics.handlers,
};

self.onmessage = (event) => {
  const handle = HANDLERS[event.data.type];
  if (handle) handle(event.data);
};
