// Main thread. Starts the Pyodide worker at once (before the page finishes parsing; with ?live=click or
// the browser's data saver only when the reader presses the button that says how much it downloads),
// loads BokehJS and Panel's JS from this origin meanwhile, then has Python build the sections one at a
// time, each into a Bokeh document of its own: first those in view or near it, then the rest when the
// reader is idle (pump). Each section's Panel root is laid out unseen in its <div id="live-SECTION">,
// brought to the state the reader set with the playback controls (player.js) meanwhile, then swapped in
// for the prerender in one frame, holding the section's height; the other sections keep answering from
// playback meanwhile. The page relays Panel's pyodide-worker protocol per section (render / patch / idle)
// plus ours (progress, timing, sections, build, linked, url, notes, state, error).
// What a test or bench reads of the lab is its state S (startLab's result), shown read-only by the hook (hook.js);
// the lab's phases (starting, free, busy, building, ...) are one state machine, MOVES below.
//
// Robustness: the worker holds a Web Lock (its "lifeline") that the page waits on, so its end is seen
// at once. Once booted, the page also pings it every PING_MS: a ping unanswered for HUNG_MS is a worker
// stuck in one call (DEAD_MS when Web Locks are missing and silence is the only sign of death; then no
// Python call may run longer). A dead, hung, crashed or fatally failed worker is replaced without a
// reload: a new one boots from the state in the URL, and the page says what happened. Repeated crashes
// (MAX_CRASHES within CRASH_WINDOW_MS) stop at a Retry button instead of looping.
// The lab's parts, each a module of its own taking the others' functions it calls as parameters, made below in the
// order they need each other: status.js (what the page says), scripts.js (BokehJS and Panel), schedule.js (what
// Python does next) and handover.js (a section goes live), which call each other, watch.js (heartbeat, crash and
// restart), messages.js (the worker's messages).

import { createPool, poolSize } from "./pool.js";
import { createEarly } from "./early.js";
import { booted, go, newLab, stop } from "./lab.js";
import { $, whenDom } from "./dom.js";
import { scriptLoader } from "./scripts.js";
import { statusLine, watchAssets } from "./status.js";
import { scheduler } from "./schedule.js";
import { liveSections } from "./handover.js";
import { messages } from "./messages.js";
import { DEAD_MS, HUNG_MS, PING_MS, TICK_MS, watch } from "./watch.js";

// Where the worker and the page's files come from: this site over http (this), or, in the classroom file
// opened from disk, the page itself (site/classroom.js's classroomTransport).
export const httpTransport = {
  ready: Promise.resolve(), worker: () => new Worker("worker.js", { type: "module" }), url: (path) => path, localize: (value) => value,
};

function labState() {
  // What the lab's parts write and the hook (hook.js) shows: where Python is, what the page said, counters.
  return {
    status: "booting", progress: 0, label: "", error: null, missing: undefined, notes: [], timings: {},
    worker: null, lab: null, ready: null, settle: null, // settle: ready's {resolve, reject}
    patchesSent: 0, patchesReceived: 0,
    lastPatchAt: 0, // performance.now() when the latest worker patch was applied (repaint latency)
    crashes: [], // {reason, at, noticedAfterMs}: workers replaced after booting (see crashed())
    queueHighWater: 0, // the longest the per-attribute change queue has been (bounded by the attributes)
    cspViolations: [], // securitypolicyviolation events of this page: {directive, blocked}
    heartbeat: { ping: PING_MS, dead: DEAD_MS, hung: HUNG_MS, pongs: 0 },
  };
}

export function watchBoots(worker, boots) {
  // A numerics worker's boot steps (its "timing" messages) and when it was up, ms, for tests and bench (pool.boots).
  const mine = { spawned: performance.now() };
  boots.push(mine);
  worker.addEventListener("message", ({ data }) => {
    if (data && data.type === "timing" && typeof data.name === "string" && typeof data.ms === "number") mine[data.name] = data.ms;
    else if (data && data.type === "numerics-ready") mine.ready = mine.ready || performance.now();
  });
  return worker;
}

function numericsPool({ config, transport, S, live, pageAddress }) {
  // The numerics workers a Run may use (site/pool.js), started on the first Run or off-grid ask; the Panel worker
  // learns the size. pool.boots: each one's boot steps (watchBoots).
  const boots = [];
  const pool = createPool({
    size: poolSize({ cores: navigator.hardwareConcurrency, memory: navigator.deviceMemory,
      saveData: !!(navigator.connection && navigator.connection.saveData), click: live === "click" }),
    spawn: () => watchBoots(transport.worker(), boots), boot: { config, query: "", address: pageAddress },
    post: (msg) => S.lab && S.lab.worker && S.lab.worker.postMessage(msg),
  });
  return Object.assign(pool, { boots });
}

export function startLab(config, transport, { live, address, player }) {
  // config: the build's (#wt-build); transport: httpTransport or the classroom file's; live: page.js's live= value;
  // address: the address bar's one writer (address.js); player: the playback (player.js), put back by a restart.
  // Returns the lab's state S, which its parts write and the hook (hook.js) shows.
  const loaded = new Set(); // scripts that have run; a retry loads only the rest
  const prerendered = new Map(); // live-ID -> its prerendered content, put back on restart
  const failedAssets = new Set(); // every page file that failed, named together
  const S = labState();

  // Data saver (?live=click, or the browser asks to save data): no Python until the reader asks.
  const onClick = live === "click" || !!(navigator.connection && navigator.connection.saveData);
  const pageAddress = location.href.split(/[?#]/)[0];
  const pool = (S.pool = numericsPool({ config, transport, S, live, pageAddress }));
  S.early = createEarly({ player, pool, paused: () => S.status === "paused" }); // before Panel: off the grid, in the pool

  const firstPaint = new Promise((resolve) => whenDom(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
  const current = (lab) => lab === S.lab && lab.phase !== "failed";
  const stopWorker = () => { // the lab's worker ends (the lab stays S.lab, failed, until restart() makes a new one)
    S.worker = null;
    if (S.lab) stop(S.lab);
  };
  // The parts, in the order they need each other; the scheduler and the hand-over call each other (sendChange).
  const { setStatus, say, fail, showNotes } = statusLine({ S, stopWorker });
  const { needScripts } = scriptLoader({ config, transport, loaded, firstPaint, current, fail });
  const { render, handOver, applyPatches } = liveSections({ S, transport, address, current, prerendered, needScripts,
    setStatus, sendChange: (...args) => sendChange(...args) });
  const { sendChange, pump, playerMoved } = scheduler({ S, address, current, handOver });
  const { heartbeat, crashed, restart } = watch({ S, address, player, current, prerendered, failedAssets, stopWorker,
    fail, say, showNotes, start });
  const { onMessage } = messages({ S, address, pool, current, crashed, fail, setStatus, showNotes, needScripts, pump,
    render, applyPatches });
  Object.assign(S, { restart, playerMoved });
  watchAssets({ S, config, failedAssets, say });

  function promiseReady() {
    S.ready = new Promise((resolve, reject) => { S.settle = { resolve, reject }; });
    S.ready.catch(() => {}); // a failure is shown on the page; awaiting code still sees the rejection
  }

  // What the live lab needs that an old or limited browser may lack (the classroom file adds its own): the
  // first one missing is named and Python is not started; the playback (player.js) needs none of them.
  const NEEDS = [
    ["WebAssembly", () => typeof WebAssembly === "object" && typeof WebAssembly.instantiate === "function"],
    ["BigInt64Array (WebAssembly's 64-bit integers)", () => typeof BigInt64Array === "function"],
    ["Web Workers", () => typeof Worker === "function"],
    ...(transport.needs || []),
  ];

  function start() {
    if (S.status !== "paused") promiseReady(); // a paused page keeps the promise it handed out
    Object.assign(S, { error: null, timings: { live: {} } });
    const lacking = NEEDS.find(([, has]) => !has());
    if (lacking) {
      const [name, , also = "The figures and controls answer from tables this page's build precomputed."] = lacking;
      S.missing = name;
      S.error = `This browser lacks ${name}, which the live lab needs. ${also}`;
      say("unsupported", "The live lab cannot run in this browser.", S.error, false);
      setStatus("failed", "Not available in this browser", 0);
      return S.settle.reject(new Error(S.error));
    }
    setStatus("booting", "Starting…", 0);
    const lab = go(S.lab && S.lab.phase === "paused" ? S.lab : newLab("paused"), "start");
    const worker = (lab.worker = transport.worker());
    Object.assign(S, { lab, worker });
    worker.onmessage = (event) => onMessage(lab, event);
    worker.onerror = (event) => {
      event.preventDefault();
      if (!current(lab)) return;
      const why = event.message || "worker.js could not be loaded";
      if (booted(lab)) crashed(`the Python worker threw an uncaught error (${why})`);
      else fail(`The Python worker stopped: ${why}`);
    };
    lab.heartbeat = setInterval(() => heartbeat(lab), TICK_MS);
    if (navigator.locks) {
      lab.lockName = `weighttying-worker-${Math.random().toString(36).slice(2)}`;
      worker.postMessage({ type: "lifeline", name: lab.lockName });
    }
    // scheme: the colour scheme page.js resolved (theme= or prefers-color-scheme), for Panel's theme.
    // address: this page without query, for the links Python writes into exports and figure stamps.
    worker.postMessage({ type: "boot", config, query: address.bootQuery(), address: pageAddress, pool: pool.size,
      scheme: document.documentElement.dataset.wtScheme || "light" });
    // The page's files that failed their check (the classroom file) stop the lab now, not when BokehJS is asked for.
    transport.ready.catch((e) => { if (current(lab)) fail(e.message); });
  }

  // Retry: a new worker; but a file of the page itself (a stylesheet) is only asked for again by a reload,
  // which loses nothing (the state is in the URL).
  whenDom(() => $("wt-retry").addEventListener("click", () => {
    if ($("wt-error").dataset.kind === "asset") location.reload();
    else restart();
  }));

  function pause() {
    // Data saver: the controls answer from the playback tables; the button says what the live lab costs.
    S.lab = newLab("paused");
    promiseReady();
    setStatus("paused", "Not loaded (data saver): the controls answer from precomputed tables.", 0);
    whenDom(() => {
      const go = $("wt-go");
      go.textContent = `Load the live lab (${(config.live_bytes / 1e6).toFixed(1)} MB download)`;
      go.hidden = false;
      go.addEventListener("click", () => { go.hidden = true; start(); }, { once: true });
    });
  }

  if (onClick) pause();
  else start();
  return S;
}
