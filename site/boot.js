// Main thread. Starts the Pyodide worker at once (before the page finishes parsing; with ?live=click or
// the browser's data saver only when the reader presses the button that says how much it downloads),
// loads BokehJS and Panel's JS from this origin meanwhile, then has Python build the sections one at a
// time, each into a Bokeh document of its own: first those in view or near it, then the rest when the
// reader is idle (pump). Each section's Panel root is laid out unseen in its <div id="live-SECTION">,
// brought to the state the reader set with the playback controls (player.js) meanwhile, then swapped in
// for the prerender in one frame, holding the section's height; the other sections keep answering from
// playback meanwhile. The page relays Panel's pyodide-worker protocol per section (render / patch / idle)
// plus ours (progress, timing, sections, build, linked, url, notes, state, error).
// Everything a test or a later feature needs is on the hook, window.__wt (see docs/DESIGN.md, "Page and worker");
// the lab's phases (starting, free, busy, building, ...) are one state machine, MOVES below.
//
// Robustness: the worker holds a Web Lock (its "lifeline") that the page waits on, so its end is seen
// at once. Once booted, the page also pings it every PING_MS: a ping unanswered for HUNG_MS is a worker
// stuck in one call (DEAD_MS when Web Locks are missing and silence is the only sign of death; then no
// Python call may run longer). A dead, hung, crashed or fatally failed worker is replaced without a
// reload: a new one boots from the state in the URL, and the page says what happened. Repeated crashes
// (MAX_CRASHES within CRASH_WINDOW_MS) stop at a Retry button instead of looping.
// The lab's parts, each a module of its own (lab.js says how they reach each other): scripts.js (BokehJS and
// Panel), status.js (what the page says), schedule.js (what Python does next), handover.js (a section goes
// live), messages.js (the worker's messages), watch.js (heartbeat, crash and restart).

import { createPool, poolSize } from "./pool.js";
import { createEarly } from "./early.js";
import { go, newLab } from "./lab.js";
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

export function startLab(config, transport, wt) {
  // config: the build's (#wt-build); transport: httpTransport or the classroom file's; wt: the hook, which this
  // fills in (status, ready, restart, ...) and whose page (page.js) and player (player.js) it reads.
  const loaded = new Set(); // scripts that have run; a retry loads only the rest
  const prerendered = new Map(); // live-ID -> its prerendered content, put back on restart
  const failedAssets = new Set(); // every page file that failed, named together
  const restart = (options) => K.restart(options), follow = () => K.follow();
  Object.assign(wt, {
    config, status: "booting", progress: 0, label: "", error: null, notes: [], timings: {},
    worker: null, lab: null, ready: null, restart, follow, patchesSent: 0, patchesReceived: 0,
    lastPatchAt: 0, // performance.now() when the latest worker patch was applied (repaint latency)
    crashes: [], // {reason, at, noticedAfterMs}: workers replaced after booting (see crashed())
    queueHighWater: 0, // the longest the per-attribute change queue has been (bounded by the attributes)
    cspViolations: [], // securitypolicyviolation events of this page: {directive, blocked}
    heartbeat: { ping: PING_MS, dead: DEAD_MS, hung: HUNG_MS, pongs: 0 },
  });
  // Files the page itself loads (its stylesheet, Panel's CSS, scripts): Resource Timing records a failed
  // Data saver (?live=click, or the browser asks to save data): no Python until the reader asks.
  const onClick = wt.page.live === "click" || !!(navigator.connection && navigator.connection.saveData);
  // The numerics workers a Run may use (site/pool.js), started on the first Run; the Panel worker learns the size.
  const pageAddress = location.href.split(/[?#]/)[0];
  wt.pool = createPool({
    size: poolSize({ cores: navigator.hardwareConcurrency, memory: navigator.deviceMemory,
      saveData: !!(navigator.connection && navigator.connection.saveData), click: wt.page.live === "click" }),
    spawn: () => transport.worker(), boot: { config, query: "", address: pageAddress }, post: (msg) => wt.lab && wt.lab.worker && wt.lab.worker.postMessage(msg),
  });
  wt.early = createEarly(wt); // before Panel: a setting off the playback grid, computed in the pool

  const $ = (id) => document.getElementById(id);
  const whenDom = (fn) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn, { once: true }) : fn());
  const firstPaint = new Promise((resolve) => whenDom(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
  const current = (lab) => lab === wt.lab && lab.phase !== "failed";
  const booted = (lab) => !!lab && !["paused", "starting"].includes(lab.phase);
  // The lab's context: what its parts share (settle: wt.ready's; patching: >0 while a worker patch is applied, so
  // it is not echoed back; scripts: the promise of BokehJS and Panel loaded), then every part's functions.
  const K = { config, transport, wt, loaded, prerendered, failedAssets, $, whenDom, firstPaint, current, booted,
    settle: null, patching: 0, scripts: null };
  Object.assign(K, scriptLoader(K), statusLine(K), scheduler(K), liveSections(K), messages(K), watch(K), { start });
  const { setStatus, say, fail, onMessage, heartbeat, crashed } = K;
  watchAssets(K);

  function promiseReady() {
    wt.ready = new Promise((resolve, reject) => { K.settle = { resolve, reject }; });
    wt.ready.catch(() => {}); // a failure is shown on the page; awaiting code still sees the rejection
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
    if (wt.status !== "paused") promiseReady(); // a paused page keeps the promise it handed out
    Object.assign(wt, { error: null, timings: { live: {} } });
    const lacking = NEEDS.find(([, has]) => !has());
    if (lacking) {
      const [name, , also = "The figures and controls answer from tables this page's build precomputed."] = lacking;
      wt.missing = name;
      wt.error = `This browser lacks ${name}, which the live lab needs. ${also}`;
      say("unsupported", "The live lab cannot run in this browser.", wt.error, false);
      setStatus("failed", "Not available in this browser", 0);
      return K.settle.reject(new Error(wt.error));
    }
    setStatus("booting", "Starting…", 0);
    const lab = go(wt.lab && wt.lab.phase === "paused" ? wt.lab : newLab("paused"), "start");
    const worker = (lab.worker = transport.worker());
    Object.assign(wt, { lab, worker });
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
    worker.postMessage({ type: "boot", config, query: wt.address.bootQuery(), address: pageAddress, pool: wt.pool.size,
      scheme: document.documentElement.dataset.wtScheme || "light" });
    K.scripts = null;
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
    wt.lab = newLab("paused");
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
}
