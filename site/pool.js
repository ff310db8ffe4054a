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
export const IDLE_MS = 60_000;
// A batch is BUDGET_S (0.2 s) of compute plus one step; ten times the slowest seen, and 8 s at least (the Panel
// worker's HUNG_MS), tell a stuck worker from a slow one on a loaded machine.
export const HANG = { floorMs: 8000, factor: 10, tickMs: 250 };
const MAX_RETRIES = 2; // a part whose worker died this often is an error, not bad luck

export function poolSize({ cores, memory, saveData, click }) {
  // Numerics workers for this browser: one core is the page's and the Panel worker's; at most 4; one where the
  // reader saves data or memory is short (deviceMemory < 4 GB); at most 2 where the browser does not say.
  if (click || saveData || memory < 4) return 1;
  const n = Math.min(4, Math.max(1, Math.floor(cores || 1) - 1));
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

function heard(pool, worker, msg, resolve, reject, { relay, finish, died }) {
  // What a numerics worker said, to its boot's promise (resolve, reject) or createPool's relay, finish and died;
  // its part's messages only while it runs that part, filed under the part it runs, whatever they name.
  if (!shaped(msg)) {
    if (msg?.type !== "progress" && msg?.type !== "timing") pool.dropped += 1; // its boot's words, not for the pool
    return;
  }
  const mine = worker.part && worker.part.run === msg.run ? { ...msg, part: worker.part.part } : null;
  if (msg.type === "numerics-ready") resolve();
  else if (msg.type === "error" && msg.fatal) reject(new Error(msg.message));
  else if (msg.type === "lifeline") {
    navigator.locks.request(worker.lock, () => died(worker, "")).catch(() => {});
  } else if (msg.type === "points") mine && relay(worker, mine);
  else if (msg.type === "part-error") mine && finish(worker, mine, "error", msg.message);
  else if (msg.type === "ended") pool.ended.push({ run: msg.run, part: msg.part, step: msg.step, at: performance.now() });
  else if (msg.type === "slots" && !worker.tainted) answered(worker, msg);
}

function answered(worker, { id, data, error }) {
  // A slots answer (pool.ask) to the promise that asked it.
  const a = worker.asks.get(id);
  worker.asks.delete(id);
  if (a) (error ? a.reject(new Error(error)) : a.resolve(data));
}

function startWorker(pool, { spawn, boot }, told) {
  // A new numerics worker of pool, {w, ready (a promise), part (the one it runs), since (its part's last word, 0:
  // none running), slowest (its part's slowest batch, ms), asks (slots asked, by id), dead, quit}: what it says
  // goes to told (createPool's relay, finish and died); its Web Lock says when it ends.
  const worker = { w: spawn(), part: null, since: 0, slowest: 0, asks: new Map(), dead: false, quit: false,
    lock: `weighttying-numerics-${Math.random().toString(36).slice(2)}` };
  pool.started += 1;
  worker.ready = new Promise((resolve, reject) => {
    worker.reject = reject;
    worker.w.onmessage = (event) => heard(pool, worker, event.data, resolve, reject, told);
    worker.w.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message || "worker.js could not start"));
      told.died(worker, `it threw ${event.message || "an error"}`);
    };
  });
  worker.ready.catch(() => {});
  if (globalThis.navigator && navigator.locks) worker.w.postMessage({ type: "lifeline", name: worker.lock });
  worker.w.postMessage({ type: "boot", ...boot, pool: "numerics" });
  pool.workers.push(worker);
  return worker;
}

function hangWatch(pool, hang, died) {
  // Every running part's worker: silent for longer than its bound (HANG), it is stuck in one call: ended (died),
  // and its part runs again in a new worker. Time this page's own thread was held up does not count against it.
  let timer = 0, tickAt = 0;
  function tick() {
    const now = performance.now(), gap = now - (tickAt || now);
    tickAt = now;
    for (const w of pool.workers.filter((x) => x.since)) {
      if (gap > 4 * hang.tickMs) w.since += gap - hang.tickMs;
      const bound = w.part.quietMs || Math.max(hang.floorMs, hang.factor * w.slowest), silent = now - w.since;
      if (silent <= bound) continue;
      const s = (ms) => (ms / 1000).toFixed(1);
      pool.hung.push({ run: w.part.run, part: w.part.part, silentMs: silent, boundMs: bound });
      w.w.terminate();
      died(w, `no batch for ${s(silent)} s, where its slowest took ${s(w.slowest)} s`, true);
    }
    if (!pool.workers.some((x) => x.since)) stop();
  }
  function stop() {
    clearInterval(timer);
    timer = tickAt = 0;
  }
  return { arm: () => { if (!timer) timer = setInterval(tick, hang.tickMs); }, stop };
}

let asked = 0; // slots asks so far, their ids

function askSlots(pool, msg, { start, failed, next, hold }) {
  // A section's slots for a setting ({section, query}; site/early.js), from a worker without a part (started if
  // there is none): a promise of their JSON text, rejected with why not. hold(): the pool is not idle.
  if (!pool.size) return Promise.reject(new Error(pool.failed || "no numerics workers here"));
  const clean = pool.workers.filter((w) => !w.dead && !w.tainted);
  let worker = clean.find((w) => !w.part) || clean[0];
  try {
    worker = worker || start();
  } catch (err) {
    failed(err);
    return Promise.reject(err);
  }
  hold();
  const id = (asked += 1);
  const answer = new Promise((resolve, reject) => {
    worker.asks.set(id, { resolve, reject });
    worker.ready.then(() => { if (!worker.dead) worker.w.postMessage({ type: "slots", id, ...msg }); }, (err) => {
      worker.asks.delete(id);
      reject(err);
      if (!worker.dead) failed(err);
    });
  });
  answer.then(next, next);
  return answer;
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
  // worker's part cancelled: it is told (and confirms), or, running the reader's code, ended
  const { run, quietMs } = worker.part;
  if (quietMs) return endWorker(pool, worker);
  Object.assign(worker, { part: null, since: 0, slowest: 0 });
  worker.w.postMessage({ type: "cancel", run });
}

function endIdleTainted(pool) {
  // A clean worker's place: an idle worker that ran the reader's code is ended (the next such Run starts another).
  const idle = pool.workers.find((w) => w.tainted && !w.part && !w.dead);
  if (idle) endWorker(pool, idle);
}

function failPool(pool, err, post, release) {
  // The pool cannot start: the Panel worker runs the waiting Runs itself (and asks no more: size 0).
  pool.failed = `The pool of numerics workers could not start (${err.message}): this run is computed by the one Python worker instead.`;
  pool.notes.push(pool.failed);
  pool.size = 0;
  for (const r of pool.runs.values()) post({ type: "pool", kind: "failed", sid: r.sid, run: r.run, part: null, text: pool.failed });
  pool.runs.clear();
  release();
}

export function createPool({ size, spawn, boot, post, idleMs = IDLE_MS, hang = HANG }) {
  // size: workers at most; spawn(): a new Worker of worker.js; boot: the fields of its "boot" message;
  // post(msg): to the Panel worker. Returns the pool, whose state tests and bench read (the hook, site/hook.js).
  const pool = { size, workers: [], runs: new Map(), ended: [], notes: [], hung: [], started: 0, released: 0, failed: "", dropped: 0,
    run, cancel, release, ask: (msg) => askSlots(pool, msg, { start, failed, next, hold: () => clearTimeout(idleTimer) }) };
  let idleTimer = 0;
  const start = () => startWorker(pool, { spawn, boot }, { relay, finish, died });
  const watcher = hangWatch(pool, hang, died);
  const failed = (err) => failPool(pool, err, post, release);

  function relay(worker, msg) {
    const r = pool.runs.get(msg.run);
    if (!r) return; // cancelled meanwhile (heard passes only the points of the part the worker runs)
    const now = performance.now();
    worker.slowest = Math.max(worker.slowest, now - worker.since);
    worker.since = now;
    post({ type: "pool", kind: "points", sid: r.sid, run: msg.run, part: msg.part, text: msg.batch });
    if (msg.done) finish(worker, msg);
  }

  function finish(worker, msg, kind, text) {
    // worker's part is over (done, or its Python failed: kind "error"); the worker takes the next waiting part.
    const r = pool.runs.get(msg.run);
    Object.assign(worker, { part: null, since: 0, slowest: 0 });
    if (r && kind) post({ type: "pool", kind, sid: r.sid, run: msg.run, part: msg.part, text });
    if (r && (r.left -= 1) === 0) pool.runs.delete(msg.run);
    next();
  }

  function died(worker, why, hung = false) {
    // A worker that ended unasked (why: what it said, if anything) or hung (ended here): its part (if any) runs
    // again in a new worker, and the section says so.
    if (worker.quit || worker.dead) return;
    worker.dead = true;
    worker.reject(new Error(why));
    for (const a of worker.asks.values()) a.reject(new Error(`the numerics worker stopped${why ? ` (${why})` : ""}`));
    pool.workers = pool.workers.filter((w) => w !== worker);
    const part = worker.part, r = part && pool.runs.get(part.run);
    if (!r) return;
    part.tries += 1;
    if (part.quietMs) return finish(worker, part, "error", hung ? quietStop(part.quietMs) : readerDied(why));
    const stopped = hung ? `A numerics worker stopped answering (${why}) and was ended`
      : `A numerics worker stopped${why ? ` (${why})` : ""}`;
    if (part.tries > MAX_RETRIES) return finish(worker, { run: part.run, part: part.part }, "error", `${stopped} ${part.tries} times running part ${part.part + 1}.`);
    const note = `${stopped}; its part (${part.part + 1} of ${r.parts}) was started again in a new one.`;
    pool.notes.push(note);
    post({ type: "pool", kind: "retry", sid: r.sid, run: part.run, part: part.part, text: note });
    r.waiting.unshift(part);
    next();
  }

  function next() {
    // Every waiting part to a free worker, starting workers up to size; idle: released after idleMs.
    clearTimeout(idleTimer);
    for (const r of pool.runs.values()) {
      while (r.waiting.length) {
        const part = r.waiting[0];
        let free = pool.workers.find((w) => !w.part && !w.dead && (part.quietMs || !w.tainted));
        try {
          if (!free && pool.workers.length >= pool.size) endIdleTainted(pool);
          if (!free && pool.workers.length < pool.size) free = start();
        } catch (err) { // no Worker at all here (a policy, memory): the Panel worker computes instead
          return failed(err);
        }
        if (!free) return;
        hand(free, r.waiting.shift());
      }
    }
    if (pool.workers.every((w) => !w.part && !w.asks.size)) idleTimer = setTimeout(release, idleMs);
  }

  function hand(worker, part) {
    // part to worker, once it has booted; a worker that died meanwhile gave it back (died)
    worker.part = part;
    worker.tainted ||= !!part.quietMs;
    worker.ready.then(() => {
      if (worker.part !== part || worker.dead) return;
      worker.w.postMessage({ type: "part", run: part.run, part: part.part, spec: part.spec });
      worker.since = performance.now();
      watcher.arm();
    }, (err) => { if (!worker.dead) failed(err); });
  }

  function run({ sid, run: id, parts, quiet_s: quietS }) {
    // A Run's parts (JSON specs, weighttying.pool.split), each to a worker of its own; quietS: see the top.
    const quietMs = quietS > 0 ? 1000 * quietS : 0;
    pool.runs.set(id, { sid, run: id, parts: parts.length, left: parts.length,
      waiting: parts.map((spec, i) => ({ run: id, part: i, spec, tries: 0, quietMs })) });
    if (!pool.size) failed(new Error(pool.failed ? "it failed before" : "no workers allowed"));
    else next();
  }

  function cancel({ run: id }) {
    // Every part of the Run stops: a waiting one is dropped, a running one's worker confirms ("ended", its last step);
    // one running the reader's code is ended instead, since that code may never return to read the cancel.
    pool.runs.delete(id);
    for (const w of pool.workers.filter((x) => x.part && x.part.run === id)) stopPart(pool, w);
    next();
  }

  function release() {
    // Every worker ends (their memory goes back); the next Run starts new ones.
    clearTimeout(idleTimer);
    watcher.stop();
    for (const w of pool.workers) {
      w.quit = true;
      for (const a of w.asks.values()) a.reject(new Error("the pool was released"));
      w.w.terminate();
    }
    pool.released += pool.workers.length;
    pool.workers = [];
  }

  return pool;
}
