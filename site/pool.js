// The page's pool of numerics workers: each is worker.js booted with pool "numerics" (Pyodide, NumPy and
// weighttying only, from the same checked files as the Panel worker: this site's, revalidated from the browser's
// cache, or the classroom file's posted bytes), started on the first Run and released after IDLE_MS idle.
// The Panel worker asks for a Run's parts ("pool-run"); the page hands each part to a worker of its own and
// relays every batch of points back ("pool" messages; app/pooled.py gathers them): workers never talk to each
// other, so this works alike in every engine (no nested workers, which WebKit's file:// pages lack).
// A worker that dies while running a part (its Web Lock is granted) is replaced and its part run again from its
// start; a pool that cannot start says so once and the Panel worker runs that Run, and every later one, itself.
export const IDLE_MS = 60_000;
const MAX_RETRIES = 2; // a part whose worker died this often is an error, not bad luck

export function poolSize({ cores, memory, saveData, click }) {
  // Numerics workers for this browser: one core is the page's and the Panel worker's; at most 4; one where the
  // reader saves data or memory is short (deviceMemory < 4 GB); at most 2 where the browser does not say.
  if (click || saveData || memory < 4) return 1;
  const n = Math.min(4, Math.max(1, Math.floor(cores || 1) - 1));
  return memory === undefined ? Math.min(2, n) : n;
}

function heard(pool, worker, msg, resolve, reject, { relay, finish, died }) {
  // What a numerics worker said, to its boot's promise (resolve, reject) or createPool's relay, finish and died.
  if (msg.type === "numerics-ready") resolve();
  else if (msg.type === "error" && msg.fatal) reject(new Error(msg.message));
  else if (msg.type === "lifeline") {
    navigator.locks.request(worker.lock, () => died(worker, "")).catch(() => {});
  } else if (msg.type === "points") relay(worker, msg);
  else if (msg.type === "part-error") finish(worker, msg, "error", msg.message);
  else if (msg.type === "ended") pool.ended.push({ run: msg.run, part: msg.part, step: msg.step, at: performance.now() });
}

function startWorker(pool, { spawn, boot }, told) {
  // A new numerics worker of pool, {w, ready (a promise), part (the one it runs), dead, quit}: what it says goes
  // to told (createPool's relay, finish and died); its Web Lock says when it ends.
  const worker = { w: spawn(), part: null, dead: false, quit: false, lock: `weighttying-numerics-${Math.random().toString(36).slice(2)}` };
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

export function createPool({ size, spawn, boot, post, idleMs = IDLE_MS }) {
  // size: workers at most; spawn(): a new Worker of worker.js; boot: the fields of its "boot" message;
  // post(msg): to the Panel worker. Returns the pool, whose state tests and bench read (wt.pool).
  const pool = { size, workers: [], runs: new Map(), ended: [], notes: [], started: 0, released: 0, failed: "", run, cancel, release };
  let idleTimer = 0;
  const start = () => startWorker(pool, { spawn, boot }, { relay, finish, died });

  function relay(worker, msg) {
    const r = pool.runs.get(msg.run);
    if (!r || !worker.part || worker.part.run !== msg.run) return; // cancelled meanwhile
    post({ type: "pool", kind: "points", sid: r.sid, run: msg.run, part: msg.part, text: msg.batch });
    if (msg.done) finish(worker, msg);
  }

  function finish(worker, msg, kind, text) {
    // worker's part is over (done, or its Python failed: kind "error"); the worker takes the next waiting part.
    const r = pool.runs.get(msg.run);
    worker.part = null;
    if (r && kind) post({ type: "pool", kind, sid: r.sid, run: msg.run, part: msg.part, text });
    if (r && (r.left -= 1) === 0) pool.runs.delete(msg.run);
    next();
  }

  function died(worker, why) {
    // A worker that ended unasked (why: what it said, if anything): its part (if any) runs again in a new worker,
    // and the section says so.
    if (worker.quit || worker.dead) return;
    worker.dead = true;
    worker.reject(new Error(why));
    pool.workers = pool.workers.filter((w) => w !== worker);
    const part = worker.part, r = part && pool.runs.get(part.run);
    if (!r) return;
    part.tries += 1;
    const stopped = `A numerics worker stopped${why ? ` (${why})` : ""}`;
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
        let free = pool.workers.find((w) => !w.part && !w.dead);
        try {
          if (!free && pool.workers.length < pool.size) free = start();
        } catch (err) { // no Worker at all here (a policy, memory): the Panel worker computes instead
          return failed(err);
        }
        if (!free) return;
        hand(free, r.waiting.shift());
      }
    }
    if (pool.workers.every((w) => !w.part)) idleTimer = setTimeout(release, idleMs);
  }

  function hand(worker, part) {
    // part to worker, once it has booted; a worker that died meanwhile gave it back (died)
    worker.part = part;
    worker.ready.then(() => {
      if (worker.part === part && !worker.dead) worker.w.postMessage({ type: "part", run: part.run, part: part.part, spec: part.spec });
    }, (err) => { if (!worker.dead) failed(err); });
  }

  function failed(err) {
    // The pool cannot start: the Panel worker runs the waiting Runs itself (and asks no more: size 0).
    pool.failed = `The pool of numerics workers could not start (${err.message}): this run is computed by the one Python worker instead.`;
    pool.notes.push(pool.failed);
    pool.size = 0;
    for (const r of pool.runs.values()) post({ type: "pool", kind: "failed", sid: r.sid, run: r.run, part: null, text: pool.failed });
    pool.runs.clear();
    release();
  }

  function run({ sid, run: id, parts }) {
    // A Run's parts (JSON specs, weighttying.pool.split), each to a worker of its own.
    pool.runs.set(id, { sid, run: id, parts: parts.length, left: parts.length,
      waiting: parts.map((spec, i) => ({ run: id, part: i, spec, tries: 0 })) });
    if (!pool.size) failed(new Error(pool.failed ? "it failed before" : "no workers allowed"));
    else next();
  }

  function cancel({ run: id }) {
    // Every part of the Run stops: a waiting one is dropped, a running one's worker confirms ("ended", its last step).
    pool.runs.delete(id);
    for (const w of pool.workers) {
      if (w.part && w.part.run === id) {
        w.part = null;
        w.w.postMessage({ type: "cancel", run: id });
      }
    }
    next();
  }

  function release() {
    // Every worker ends (their memory goes back); the next Run starts new ones.
    clearTimeout(idleTimer);
    for (const w of pool.workers) {
      w.quit = true;
      w.w.terminate();
    }
    pool.released += pool.workers.length;
    pool.workers = [];
  }

  return pool;
}
