// The page's pool of numerics workers: each is worker.js booted with pool "numerics" (Pyodide, NumPy and
// weighttying only, from the same checked files as the Panel worker: this site's, revalidated from the browser's
// cache, or the classroom file's posted bytes), started on the first Run and released after IDLE_MS idle.
// The Panel worker asks for a Run's parts ("pool-run"); the page hands each part to a worker of its own and
// relays every batch of points back ("pool" messages; app/pooled.py gathers them): workers never talk to each
// other, so this works alike in every engine (no nested workers, which WebKit's file:// pages lack).
// A worker that dies while running a part (its Web Lock is granted) is replaced and its part run again from its
// start; so is one that hangs (no batch for HANG.factor times its part's slowest batch so far, at least
// HANG.floorMs: a worker answers only between batches, so silence is all there is to go on). A Run whose parts run
// the reader's own code (its view's QUIET_S, sent as quiet_s) is different: a part silent for that long has its
// worker ended and fails, saying so, never run again (an endless loop would only loop again), and so does one whose
// worker dies. A worker that ran the reader's code is "tainted" (that code could have changed its Python): it runs
// only such parts from then on, never answers a slots ask, and is ended when a clean worker needs its place. Every
// message a worker sends is checked by shape (SHAPES) before it is acted on. A pool that
// cannot start says so once and the Panel worker runs that Run, and every later one, itself.
// Before Panel has loaded, a worker also answers a section's setting off its playback grid (ask; site/early.js).
import { BOOT_WORDS } from "./runtime.js";

export const IDLE_MS = 60_000;
// A batch is BUDGET_S (0.2 s) of compute plus one step; ten times the slowest seen, and 8 s at least (the Panel
// worker's HUNG_MS), tell a stuck worker from a slow one on a loaded machine.
export const HANG = { floorMs: 8000, factor: 10, tickMs: 250 };
const MAX_RETRIES = 2; // a part whose worker died this often is an error, not bad luck

export function poolSize({ cores, memory, saveData, click }) {
  // Numerics workers for this browser: one core is the page's and the Panel worker's; at most 4. Two cores get two,
  // since the Panel worker only waits while a Run goes (bench/README.md, pool.py: a second worker pays on 2 cores,
  // and adds 130-150 MB to the page's peak, which 4 GB holds). One where the reader saves data or memory is short
  // (deviceMemory < 4 GB); at most 2 where the browser does not say.
  if (click || saveData || memory < 4) return 1;
  const whole = Math.floor(cores || 1);
  const n = whole === 2 ? 2 : Math.min(4, Math.max(1, whole - 1));
  return memory === undefined ? Math.min(2, n) : n;
}

// What a numerics worker may say and be heard, by type: each field's typeof. The reader's code can post messages to
// this page too (through Pyodide's js module), so any other shape is dropped (and counted: pool.dropped).
const SHAPES = {
  "numerics-ready": {},
  error: { fatal: "boolean", message: "string" },
  lifeline: {},
  points: { run: "number", batch: "string", done: "boolean" },
  "part-error": { run: "number", message: "string" },
  ended: { run: "number" },
  slots: { id: "number" },
};

/** Whether MSG is a message a numerics worker sends: an object whose type is in SHAPES, with its fields' types. */
export function shaped(msg) {
  const shape = msg && typeof msg === "object" && Object.hasOwn(SHAPES, msg.type) ? SHAPES[msg.type] : null;
  return !!shape && Object.entries(shape).every(([key, type]) => typeof msg[key] === type);
}

function heard(pool, worker, msg, resolve, reject) {
  // What a numerics worker said, to its boot's promise (resolve, reject) or the pool's relay, finish and died; its
  // part's messages only while it runs that part, filed under the part it runs, whatever they name.
  if (!shaped(msg)) {
    if (!BOOT_WORDS.has(msg?.type)) pool.dropped += 1; // its boot's words are not for the pool
    return;
  }
  const mine = worker.part && worker.part.run === msg.run ? { ...msg, part: worker.part.part } : null;
  if (msg.type === "numerics-ready") resolve();
  else if (msg.type === "error" && msg.fatal) reject(new Error(msg.message));
  else if (msg.type === "lifeline") {
    navigator.locks.request(worker.lock, () => pool.died(worker, "")).catch(() => {});
  } else if (msg.type === "points") mine && pool.relay(worker, mine);
  else if (msg.type === "part-error") mine && pool.finish(worker, mine, "error", msg.message);
  else if (msg.type === "ended") pool.ended.push({ run: msg.run, part: msg.part, step: msg.step, at: performance.now() });
  else if (msg.type === "slots" && !worker.tainted) answered(worker, msg);
}

function answered(worker, { id, data, error }) {
  // A slots answer (pool.ask) to the promise that asked it.
  const a = worker.asks.get(id);
  worker.asks.delete(id);
  if (a) (error ? a.reject(new Error(error)) : a.resolve(data));
}

function startWorker(pool, spawn, boot) {
  // A new numerics worker of pool, {w, ready (a promise), part (the one it runs), since (its part's last word, 0:
  // none running), slowest (its part's slowest batch, ms), asks (slots asked, by id), prepared (the sections it was
  // asked to prepare for), dead, quit}: what it says goes to the pool (heard); its Web Lock says when it ends.
  const worker = { w: spawn(), part: null, since: 0, slowest: 0, asks: new Map(), prepared: new Set(), dead: false, quit: false,
    lock: `weighttying-numerics-${Math.random().toString(36).slice(2)}` };
  pool.started += 1;
  worker.ready = new Promise((resolve, reject) => {
    worker.reject = reject;
    worker.w.onmessage = (event) => heard(pool, worker, event.data, resolve, reject);
    worker.w.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message || "worker.js could not start"));
      pool.died(worker, `it threw ${event.message || "an error"}`);
    };
  });
  worker.ready.catch(() => {});
  if (globalThis.navigator && navigator.locks) worker.w.postMessage({ type: "lifeline", name: worker.lock });
  worker.w.postMessage({ type: "boot", ...boot, pool: "numerics" });
  pool.workers.push(worker);
  return worker;
}

class HangWatch {
  // Every running part's worker: silent for longer than its bound (HANG), it is stuck in one call: ended (the
  // pool's died), and its part runs again in a new worker. Time this page's own thread was held up does not count
  // against it.
  #timer = 0; // the interval ticking while a part runs (0: none)
  #tickAt = 0; // performance.now() of the last tick (0: none since armed)

  constructor(pool, hang) {
    [this.pool, this.hang] = [pool, hang];
  }

  arm() {
    if (!this.#timer) this.#timer = setInterval(() => this.#tick(), this.hang.tickMs);
  }

  stop() {
    clearInterval(this.#timer);
    this.#timer = this.#tickAt = 0;
  }

  #tick() {
    const { pool, hang } = this;
    const now = performance.now(), gap = now - (this.#tickAt || now);
    this.#tickAt = now;
    for (const w of pool.workers.filter((x) => x.since)) {
      if (gap > 4 * hang.tickMs) w.since += gap - hang.tickMs;
      const bound = w.part.quietMs || Math.max(hang.floorMs, hang.factor * w.slowest), silent = now - w.since;
      if (silent <= bound) continue;
      const s = (ms) => (ms / 1000).toFixed(1);
      pool.hung.push({ run: w.part.run, part: w.part.part, silentMs: silent, boundMs: bound });
      w.w.terminate();
      pool.died(w, `no batch for ${s(silent)} s, where its slowest took ${s(w.slowest)} s`, true);
    }
    if (!pool.workers.some((x) => x.since)) this.stop();
  }
}

/** What the section says when the worker running the reader's code died (WHY: what it said, if anything). */
export function readerDied(why) {
  return `the worker running your code stopped${why ? ` (${why})` : ""}: code that takes all the memory ends it. The ` +
    "next Run starts a new one. Your code is kept in the editor, and the results shown are from the last Run that finished.";
}

/** What the section says of a part that ran its reader's code QUIET_MS without a batch (its worker was ended). */
export function quietStop(quietMs) {
  return `your code ran for ${quietMs / 1000} s without finishing a step (an endless loop, or far too slow), so ` +
    "the worker running it was ended; the next Run starts a new one. Your code is kept in the editor, and the " +
    "results shown are from the last Run that finished.";
}

function endWorker(pool, worker) {
  // worker ended by the pool (not a death: nothing of it runs again)
  worker.quit = true;
  worker.w.terminate();
  pool.released += 1;
  pool.workers = pool.workers.filter((w) => w !== worker);
}

function stopPart(pool, worker) {
  // worker's part cancelled: it is told (and confirms), or, running the reader's code, ended; a reader's part not yet
  // sent (its worker still booting) is only dropped, so a second Run does not end the boot the first one started
  const { run, quietMs } = worker.part, sent = worker.since > 0;
  if (quietMs && sent) return endWorker(pool, worker);
  Object.assign(worker, { part: null, since: 0, slowest: 0 });
  if (!quietMs) worker.w.postMessage({ type: "cancel", run });
}

function endIdleTainted(pool) {
  // A clean worker's place: an idle worker that ran the reader's code is ended (the next such Run starts another).
  const idle = pool.workers.find((w) => w.tainted && !w.part && !w.dead);
  if (idle) endWorker(pool, idle);
}

export class Pool {
  size; // numerics workers at most (0 once it failed: the Panel worker computes)
  boots; // each worker's boot steps, as spawn records them (boot.js's watchBoots)
  workers = []; // its numerics workers (startWorker says what each holds)
  runs = new Map(); // run id -> {sid, run, parts, left, waiting}: the Runs not over, their parts not yet handed out
  ended = []; // {run, part, step, at}: parts cancelled, as their workers confirmed
  notes = []; // what the pool said to the sections (a part run again, the pool failed)
  hung = []; // {run, part, silentMs, boundMs}: workers ended for their silence
  started = 0; // workers started
  released = 0; // workers the pool ended (idle, released, or giving their place)
  failed = ""; // why the pool could not start ("": it could); then size is 0
  reason = ""; // that failure's own words (a file named, say), for a Run the Panel worker cannot take over
  dropped = 0; // messages from its workers dropped for their shape (SHAPES)
  #spawn; #boot; #post; #idleMs; // as the constructor was given them
  #idleTimer = 0; // releases the workers once idle for idleMs
  #asked = 0; // slots asks so far, their ids
  #watch; // the HangWatch over its running parts

  // spawn(): a new Worker of worker.js; boot: the fields of its "boot" message; post(msg): to the Panel worker. Tests
  // and bench read its public fields (the hook, site/hook.js).
  constructor({ size, spawn, boot, post, idleMs = IDLE_MS, hang = HANG, boots = [] }) {
    [this.size, this.boots] = [size, boots];
    [this.#spawn, this.#boot, this.#post, this.#idleMs] = [spawn, boot, post, idleMs];
    this.#watch = new HangWatch(this, hang);
  }

  run({ sid, run: id, parts, quiet_s: quietS }) {
    // A Run's parts (JSON specs, weighttying.pool.split), each to a worker of its own; quietS: see the top.
    const quietMs = quietS > 0 ? 1000 * quietS : 0;
    this.runs.set(id, { sid, run: id, parts: parts.length, left: parts.length,
      waiting: parts.map((spec, i) => ({ run: id, part: i, spec, tries: 0, quietMs })) });
    if (!this.size) this.#fail(new Error(this.failed ? "it failed before" : "no workers allowed"));
    else this.#next();
  }

  cancel({ run: id }) {
    // Every part of the Run stops: a waiting one is dropped, a running one's worker confirms ("ended", its last step);
    // one running the reader's code is ended instead, since that code may never return to read the cancel.
    this.runs.delete(id);
    for (const w of this.workers.filter((x) => x.part && x.part.run === id)) stopPart(this, w);
    this.#next();
  }

  release() {
    // Every worker ends (their memory goes back); the next Run starts new ones.
    clearTimeout(this.#idleTimer);
    this.#watch.stop();
    for (const w of this.workers) {
      w.quit = true;
      for (const a of w.asks.values()) a.reject(new Error("the pool was released"));
      w.w.terminate();
    }
    this.released += this.workers.length;
    this.workers = [];
  }

  warm({ reader = false, prepare = "" } = {}) {
    // A worker up before anything is asked of it (started if there is none and the pool has room): a promise that it
    // is up or could not start, never rejected. boot.js waits on it to start the Panel worker after it; the code lab
    // warms one for the reader's code (reader: a tainted worker will do), so its first Run does not wait for a boot,
    // nor for what every such Run computes first (prepare: the section, weighttying.early.prepare; once per worker).
    const fit = this.workers.find((w) => !w.dead && (reader || !w.tainted));
    const worker = this.size && (fit || this.workers.length < this.size) ? this.#orStart(fit) : null;
    if (!worker) return Promise.resolve();
    if (prepare && !worker.prepared.has(prepare)) {
      worker.prepared.add(prepare);
      worker.ready.then(() => { if (!worker.dead) worker.w.postMessage({ type: "prepare", section: prepare }); }, () => {});
    }
    this.#next(); // idle until asked: released after idleMs if nothing is
    return worker.ready.then(() => {}, () => {});
  }

  ask(msg) {
    // A section's slots for a setting ({section, query}; site/early.js), from a worker without a part (started if
    // there is none): a promise of their JSON text, rejected with why not.
    if (!this.size) return Promise.reject(new Error(this.failed || "no numerics workers here"));
    const clean = this.workers.filter((w) => !w.dead && !w.tainted);
    const worker = this.#orStart(clean.find((w) => !w.part) || clean[0]);
    if (!worker) return Promise.reject(new Error(this.failed));
    clearTimeout(this.#idleTimer); // not idle while it asks
    const id = (this.#asked += 1);
    const answer = new Promise((resolve, reject) => {
      worker.asks.set(id, { resolve, reject });
      worker.ready.then(() => { if (!worker.dead) worker.w.postMessage({ type: "slots", id, ...msg }); }, (err) => {
        worker.asks.delete(id);
        reject(err);
        if (!worker.dead) this.#fail(err);
      });
    });
    answer.then(() => this.#next(), () => this.#next());
    return answer;
  }

  relay(worker, msg) {
    // A batch of points of the part worker runs (heard), to the Panel worker.
    const r = this.runs.get(msg.run);
    if (!r) return; // cancelled meanwhile (heard passes only the points of the part the worker runs)
    const now = performance.now();
    worker.slowest = Math.max(worker.slowest, now - worker.since);
    worker.since = now;
    this.#post({ type: "pool", kind: "points", sid: r.sid, run: msg.run, part: msg.part, text: msg.batch });
    if (msg.done) this.finish(worker, msg);
  }

  finish(worker, msg, kind, text) {
    // worker's part is over (done, or its Python failed: kind "error"); the worker takes the next waiting part.
    const r = this.runs.get(msg.run);
    Object.assign(worker, { part: null, since: 0, slowest: 0 });
    if (r && kind) this.#post({ type: "pool", kind, sid: r.sid, run: msg.run, part: msg.part, text });
    if (r && (r.left -= 1) === 0) this.runs.delete(msg.run);
    this.#next();
  }

  died(worker, why, hung = false) {
    // A worker that ended unasked (why: what it said, if anything) or hung (ended by the HangWatch): its part (if
    // any) runs again in a new worker, and the section says so.
    if (worker.quit || worker.dead) return;
    worker.dead = true;
    worker.reject(new Error(why));
    for (const a of worker.asks.values()) a.reject(new Error(`the numerics worker stopped${why ? ` (${why})` : ""}`));
    this.workers = this.workers.filter((w) => w !== worker);
    const part = worker.part, r = part && this.runs.get(part.run);
    if (!r) return;
    part.tries += 1;
    if (part.quietMs) return this.finish(worker, part, "error", hung ? quietStop(part.quietMs) : readerDied(why));
    const stopped = hung ? `A numerics worker stopped answering (${why}) and was ended`
      : `A numerics worker stopped${why ? ` (${why})` : ""}`;
    if (part.tries > MAX_RETRIES) return this.finish(worker, { run: part.run, part: part.part }, "error", `${stopped} ${part.tries} times running part ${part.part + 1}.`);
    const note = `${stopped}; its part (${part.part + 1} of ${r.parts}) was started again in a new one.`;
    this.notes.push(note);
    this.#post({ type: "pool", kind: "retry", sid: r.sid, run: part.run, part: part.part, text: note });
    r.waiting.unshift(part);
    this.#next();
  }

  #orStart(worker) {
    // WORKER, or else a new one; null where none can start (no Worker at all here: a policy, memory), the pool failed.
    if (worker) return worker;
    try {
      return startWorker(this, this.#spawn, this.#boot);
    } catch (err) {
      this.#fail(err);
      return null;
    }
  }

  #fail(err) {
    // The pool cannot start: the Panel worker runs the waiting Runs itself (and asks no more: size 0).
    this.reason = err.message;
    this.failed = `The pool of numerics workers could not start (${err.message}): this run is computed by the one Python worker instead.`;
    this.notes.push(this.failed);
    this.size = 0;
    for (const r of this.runs.values()) this.#post({ type: "pool", kind: "failed", sid: r.sid, run: r.run, part: null, text: this.failed });
    this.runs.clear();
    this.release();
  }

  #next() {
    // Every waiting part to a free worker, starting workers up to size; idle: released after idleMs.
    clearTimeout(this.#idleTimer);
    for (const r of this.runs.values()) {
      while (r.waiting.length) {
        const part = r.waiting[0];
        let free = this.workers.find((w) => !w.part && !w.dead && (part.quietMs || !w.tainted));
        if (!free && this.workers.length >= this.size) endIdleTainted(this);
        if (!free && this.workers.length < this.size) free = this.#orStart(null);
        if (!free) return; // none free and no room (or the pool failed: the Panel worker computes instead)
        this.#hand(free, r.waiting.shift());
      }
    }
    if (this.workers.every((w) => !w.part && !w.asks.size)) this.#idleTimer = setTimeout(() => this.release(), this.#idleMs);
  }

  #hand(worker, part) {
    // part to worker, once it has booted; a worker that died meanwhile gave it back (died). A part of the reader's
    // code taints it as it is sent: the slots it was asked for then can never be heard (heard), so they are refused.
    worker.part = part;
    worker.ready.then(() => {
      if (worker.part !== part || worker.dead) return;
      if (part.quietMs && !worker.tainted) {
        worker.tainted = true;
        for (const a of worker.asks.values()) a.reject(new Error("its worker now runs the reader's code"));
        worker.asks.clear();
      }
      worker.w.postMessage({ type: "part", run: part.run, part: part.part, spec: part.spec });
      worker.since = performance.now();
      this.#watch.arm();
    }, (err) => { if (!worker.dead) this.#fail(err); });
  }
}
