// Main thread. Starts the Pyodide worker at once (before the page finishes parsing; with ?live=click or
// the browser's data saver only when the reader presses the button that says how much it downloads),
// loads BokehJS and Panel's JS from this origin meanwhile, then has Python build the sections one at a
// time, each into a Bokeh document of its own: first those in view or near it, then the rest when the
// reader is idle (pump). Each section's Panel root is laid out unseen in its <div id="live-SECTION">,
// brought to the state the reader set with the playback controls (player.js) meanwhile, then swapped in
// for the prerender in one frame, holding the section's height; the other sections keep answering from
// playback meanwhile. The page relays Panel's pyodide-worker protocol per section (render / patch / idle)
// plus ours (progress, timing, sections, build, linked, url, notes, state, error).
// What a test or bench reads of the lab is its state (labstate.js's LabState, startLab's result), shown read-only by
// the hook (hook.js); the lab's phases (starting, free, busy, building, ...) are one state machine, lab.js's MOVES.
//
// Robustness: the worker holds a Web Lock (its "lifeline") that the page waits on, so its end is seen
// at once. Once booted, the page also pings it every PING_MS: a ping unanswered for HUNG_MS is a worker
// stuck in one call (DEAD_MS when Web Locks are missing and silence is the only sign of death; then no
// Python call may run longer). A dead, hung, crashed or fatally failed worker is replaced without a
// reload: a new one boots from the state in the URL, and the page says what happened. Repeated crashes
// (MAX_CRASHES within CRASH_WINDOW_MS) stop at a Retry button instead of looping.
// The lab's parts, each a class in a module of its own, made by LiveLab below in the order they need each other and
// handed the parts they ask: status.js (what the page says), scripts.js (BokehJS and Panel), handover.js (a section
// goes live) and schedule.js (what Python does next), which call each other, watch.js (heartbeat, crash and
// restart), messages.js (the worker's messages); before Panel, early.js (answers off a grid) and earlyrun.js (the
// code lab's Run), on the pool of numerics workers (pool.js). Only the LabState writes the lab's state; the parts ask
// it. Of one worker's record (lab.js's newLab), each part alone writes its own (lab.watch, lab.schedule, ...), the
// others ask it.

import { Pool, poolSize } from "./pool.js";
import { Early } from "./early.js";
import { EarlyRun } from "./earlyrun.js";
import { booted, go, newLab, stop } from "./lab.js";
import { LabState } from "./labstate.js";
import { $, whenDom } from "./dom.js";
import { ScriptLoader } from "./scripts.js";
import { StatusLine, watchAssets } from "./status.js";
import { Scheduler } from "./schedule.js";
import { LiveSections } from "./handover.js";
import { Messages } from "./messages.js";
import { Watch } from "./watch.js";
import { compileRuntime, handingRuntime } from "./runtime.js";

// Where the worker and the page's files come from: this site over http (this), or, in the classroom file
// opened from disk, the page itself (site/classroom.js's ClassroomTransport).
export const httpTransport = {
  ready: Promise.resolve(), worker: () => new Worker("worker.js", { type: "module" }), url: (path) => path, localize: (value) => value,
  compileRuntime, // by the page, for every worker it starts (site/runtime.js)
};

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

function numericsPool({ config, workers, state, live, pageAddress, runs }) {
  // The numerics workers a Run may use (site/pool.js), started on the first Run or off-grid ask; the Panel worker
  // learns the size. pool.boots: each one's boot steps (watchBoots). What the pool says of a Run goes to the Panel
  // worker that asked for it, or to runs() (earlyrun.js) for the page's own Runs before Panel.
  const boots = [];
  const post = (msg) => (runs().owns(msg.run) ? runs().heard(msg) : state.lab && state.lab.worker && state.lab.worker.postMessage(msg));
  return new Pool({
    size: poolSize({ cores: navigator.hardwareConcurrency, memory: navigator.deviceMemory,
      saveData: !!(navigator.connection && navigator.connection.saveData), click: live === "click" }),
    spawn: () => watchBoots(workers.start(), boots), boot: { config, query: "", address: pageAddress, runtime: workers.hands },
    post, boots,
  });
}

export function startLab(config, transport, { live, address, player, firstNeeds = [] }) {
  // config: the build's (#wt-build); transport: httpTransport or the classroom file's; live: page.js's live= value;
  // address: the address bar's one writer (address.js); player: the playback (player.js), put back by a restart;
  // firstNeeds: the sections whose first live answer on this page is a numerics worker's: opened off their grid
  // (early.js's offGrid), or embedded with a Run before Panel (earlyrun.js).
  // Returns the lab's state (labstate.js), which the hook (hook.js) shows.
  return new LiveLab(config, transport, { live, address, player, firstNeeds }).state;
}

// On this many cores or fewer, two Pyodides booting at once each take about twice as long (bench/README.md,
// bootorder.py): a page whose first live answer is the numerics worker's (firstNeeds), boots that worker first
// and the Panel worker once it is up and has answered any Run the reader pressed meanwhile (the Panel worker's
// boot would share the cores with that Run: codelab.py), at most HOLD_MS later. WebKit (Safari, every iPhone
// browser) clamps the count it reports to 4 or 8 against fingerprinting, so where the browser does not say its
// memory either (WebKit, Firefox; Chromium says both), a 4 may be 2 cores: counted as few.
export const FEW_CORES = 2, CLAMPED_CORES = 4;
const HOLD_MS = 20_000;

export function numericsFirst({ firstNeeds, cores = 1, memory, poolSize }) {
  // Whether the Panel worker waits for a numerics worker: a page whose first need is one, on few cores, with a pool.
  const few = cores <= FEW_CORES || (memory === undefined && cores <= CLAMPED_CORES);
  return firstNeeds.length > 0 && poolSize > 0 && few;
}

// What the live lab needs that an old or limited browser may lack (the classroom file adds its own): the
// first one missing is named and Python is not started; the playback (player.js) needs none of them.
const NEEDS = [
  ["WebAssembly", () => typeof WebAssembly === "object" && typeof WebAssembly.instantiate === "function"],
  ["BigInt64Array (WebAssembly's 64-bit integers)", () => typeof BigInt64Array === "function"],
  ["Web Workers", () => typeof Worker === "function"],
];

class LiveLab {
  // The live lab, from the page's side: its state, its parts, and starting (or pausing) a worker.
  state = new LabState(); // the lab's state: the one writer of what the page says and counts
  config; transport; address; // as startLab was given them
  workers = null; // starts a worker of the transport, handing it the page's compiled runtime where it can (runtime.js)
  pageAddress = location.href.split(/[?#]/)[0]; // this page without query, for the links Python writes
  pool = null; // the numerics workers (pool.js)
  runs = null; // the reader's Runs before Panel (earlyrun.js)
  hold = false; // the first start waits for a numerics worker to be up (numericsFirst)
  firstRun = ""; // the section whose Run before Panel is this page's first need ("": none), prepared for at once
  status = null; sections = null; scheduler = null; watch = null; messages = null; // the parts start() and Retry ask
  // lab is the state's current lab and has not failed: what a part still acts on (a replaced lab's words are not)
  current = (lab) => lab === this.state.lab && lab.phase !== "failed";

  constructor(config, transport, { live, address, player, firstNeeds }) {
    Object.assign(this, { config, transport, address, workers: handingRuntime(config, transport) });
    const { state, pageAddress, workers } = this;
    this.pool = numericsPool({ config, workers, state, live, pageAddress, runs: () => runs });
    this.hold = numericsFirst({ firstNeeds, cores: navigator.hardwareConcurrency, memory: navigator.deviceMemory,
      poolSize: this.pool.size });
    this.firstRun = firstNeeds.find((sid) => (config.early_runs || {})[sid]) || "";
    // before Panel, in the pool: answers off the grid, and the reader's Runs (its end is news for the scheduler)
    const paused = () => state.status === "paused";
    const early = new Early({ player, pool: this.pool, paused });
    const runs = (this.runs = new EarlyRun({ config, pool: this.pool, player, address, paused,
      ended: () => state.lab && this.scheduler.pump(state.lab) }));
    this.makeParts({ config, transport, address, player, runs });
    state.equip({ pool: this.pool, early, runs, restart: (options) => this.watch.restart(options),
      playerMoved: () => this.scheduler.playerMoved() });
    // Retry: a new worker; but a file of the page itself (a stylesheet) is only asked for again by a reload,
    // which loses nothing (the state is in the URL).
    whenDom(() => $("wt-retry").addEventListener("click", () => {
      if ($("wt-error").dataset.kind === "asset") location.reload();
      else this.watch.restart();
    }));
    // Data saver (?live=click, or the browser asks to save data): no Python until the reader asks.
    if (live === "click" || (navigator.connection && navigator.connection.saveData)) this.pause();
    else this.start();
  }

  makeParts({ config, transport, address, player, runs }) {
    // The parts, in the order they need each other; the scheduler and the hand-over call each other (sendChange).
    const { state, current } = this;
    const failedAssets = new Set(); // every page file that failed, named together
    const firstPaint = new Promise((resolve) => whenDom(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
    const status = (this.status = new StatusLine({ state, stopWorker: () => this.stopWorker() }));
    const scripts = new ScriptLoader({ config, transport, firstPaint, current, status });
    const sections = (this.sections = new LiveSections({ state, transport, address, current, scripts, status, runs,
      sendChange: (...args) => this.scheduler.sendChange(...args) }));
    this.scheduler = new Scheduler({ state, address, current, sections, runs });
    this.watch = new Watch({ state, address, player, current, sections, failedAssets, status,
      stopWorker: () => this.stopWorker(), start: () => this.start() });
    this.messages = new Messages({ state, address, pool: this.pool, current, watch: this.watch, status, scripts,
      scheduler: this.scheduler, sections });
    watchAssets({ state, config, failedAssets, status });
  }

  stopWorker() {
    // The lab's worker ends (the lab stays current, failed, until restart() makes a new one), and so do the Runs it
    // handed the pool: nobody would hear their batches (a new worker starts from the URL, without them).
    this.state.workerEnded();
    if (this.state.lab) stop(this.state.lab);
    this.workers.renew(); // the next worker's runtime is compiled anew from this site (a Retry asks again)
    for (const run of [...this.pool.runs.keys()]) if (!this.runs.owns(run)) this.pool.cancel({ run });
  }

  start() {
    const { state, status, transport } = this;
    if (state.status !== "paused") state.promiseReady(); // a paused page keeps the promise it handed out
    state.begin();
    const lacking = [...NEEDS, ...(transport.needs || [])].find(([, has]) => !has());
    if (lacking) {
      const [name, , also = "The figures and controls answer from tables this page's build precomputed."] = lacking;
      state.lacks(name, `This browser lacks ${name}, which the live lab needs. ${also}`);
      status.say("unsupported", "The live lab cannot run in this browser.", state.error, false);
      status.setStatus("failed", "Not available in this browser", 0);
      return state.failed(new Error(state.error));
    }
    status.setStatus("booting", "Starting…", 0);
    const lab = go(state.lab && state.lab.phase === "paused" ? state.lab : newLab("paused"), "start");
    if (!this.hold) return this.spawn(lab);
    this.hold = false; // a restart starts the Panel worker at once
    state.use(lab);
    const held = new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    const answered = this.pool.warm({ prepare: this.firstRun }).then(() => this.runs.answered());
    Promise.race([answered, held]).then(() => { if (this.current(lab)) this.spawn(lab); });
  }

  spawn(lab) {
    // The Panel worker of LAB, and each part's record of it.
    const { state, status, transport, workers } = this;
    const worker = (lab.worker = workers.start());
    state.timing("panel_started", performance.now());
    state.use(lab, worker);
    // each part's record of this worker (lab.js's newLab), before anything the worker says
    this.sections.begin(lab);
    this.scheduler.begin(lab);
    this.listen(lab, worker);
    this.watch.begin(lab); // its heartbeat, and its lifeline asked for
    // scheme: the colour scheme page.js resolved (theme= or prefers-color-scheme), for Panel's theme.
    // address: this page without query, for the links Python writes into exports and figure stamps.
    worker.postMessage({ type: "boot", config: this.config, query: this.address.bootQuery(), address: this.pageAddress,
      pool: this.pool.size, scheme: document.documentElement.dataset.wtScheme || "light", runtime: workers.hands });
    // The page's files that failed their check (the classroom file) stop the lab now, not when BokehJS is asked for.
    transport.ready.catch((e) => { if (this.current(lab)) status.fail(e.message); });
  }

  listen(lab, worker) {
    // The worker's messages to messages.js; an uncaught error in it is a crash once booted, else a failed start.
    worker.onmessage = (event) => this.messages.onMessage(lab, event);
    worker.onerror = (event) => {
      event.preventDefault();
      if (!this.current(lab)) return;
      const why = event.message || "worker.js could not be loaded";
      if (booted(lab)) this.watch.crashed(`the Python worker threw an uncaught error (${why})`);
      else this.status.fail(`The Python worker stopped: ${why}`);
    };
  }

  pause() {
    // Data saver: the controls answer from the playback tables; the button says what the live lab costs.
    this.state.use(newLab("paused"));
    this.state.promiseReady();
    this.status.setStatus("paused", "Not loaded (data saver): the controls answer from precomputed tables.", 0);
    whenDom(() => {
      const button = $("wt-go");
      button.textContent = `Load the live lab (${(this.config.live_bytes / 1e6).toFixed(1)} MB download)`;
      button.hidden = false;
      button.addEventListener("click", () => { button.hidden = true; this.start(); }, { once: true });
    });
  }
}
