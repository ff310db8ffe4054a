// The page's pool of numerics workers (site/pool.js): its size rule, and its dispatch with stand-in workers
// (the browser tests run the real ones): parts to workers, batches relayed, Cancel, a dead worker's part run
// again, a pool that cannot start, release when idle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HANG, Pool, poolSize, quietStop, readerDied } from "../../site/pool.js";

test("size: cores - 1, within 1..4, 2 on 2 cores; 1 saving data, on click or under 4 GB; at most 2 where memory is unsaid", () => {
  const size = (cores, memory, more = {}) => poolSize({ cores, memory, ...more });
  assert.deepEqual([1, 2, 3, 4, 5, 8, 64].map((c) => size(c, 8)), [1, 2, 2, 3, 4, 4, 4]);
  assert.equal(size(2, 4), 2, "2 cores and 4 GB: both cores");
  assert.equal(size(2, 2), 1, "2 cores, memory short: one");
  assert.equal(size(2, 8, { saveData: true }), 1, "2 cores, saving data: one");
  assert.equal(size(undefined, 8), 1, "no core count: one");
  assert.equal(size(8, 8, { click: true }), 1);
  assert.equal(size(8, 8, { saveData: true }), 1);
  assert.equal(size(8, 2), 1);
  assert.equal(size(8, 0.5), 1);
  assert.equal(size(8, 4), 4, "4 GB is enough");
  assert.deepEqual([1, 2, 3, 8].map((c) => size(c, undefined)), [1, 2, 2, 2]);
});

function fakeWorkers({ bootFails = false } = {}) {
  // Stand-ins for worker.js in numerics mode: they boot at once and run a part when told to (step()).
  const made = [];
  const spawn = () => {
    const w = { sent: [], terminated: false, part: null };
    w.postMessage = (msg) => {
      w.sent.push(msg);
      const say = (data) => queueMicrotask(() => w.onmessage({ data }));
      if (msg.type === "boot") say(bootFails ? { type: "error", fatal: true, message: "out of memory" } : { type: "numerics-ready" });
      if (msg.type === "part") w.part = { run: msg.run, part: msg.part, step: 0 };
      if (msg.type === "slots") say(msg.section === "bad" ? { type: "slots", id: msg.id, error: "ValueError: no" }
        : { type: "slots", id: msg.id, data: `{"readout": "${msg.query}"}` });
      if (msg.type === "cancel") {
        say({ type: "ended", run: msg.run, part: w.part && w.part.part, step: w.part && w.part.step });
        w.part = null;
      }
    };
    w.batch = (done = false) => { // the worker sends a batch of its part
      w.part.step += 10;
      w.onmessage({ data: { type: "points", run: w.part.run, part: w.part.part, batch: `b${w.part.step}`, done } });
      if (done) w.part = null;
    };
    w.terminate = () => { w.terminated = true; };
    made.push(w);
    return w;
  };
  return { made, spawn };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function running(sid, run) {
  // A pool of two fake workers, each running one of the run's two parts: its workers, what it posted, the pool.
  const { made, spawn } = fakeWorkers(), posted = [];
  const pool = new Pool({ size: 2, spawn, boot: {}, post: (m) => posted.push(m), idleMs: 1e6 });
  pool.run({ sid, run, parts: ["a", "b"] });
  await tick();
  return { made, posted, pool };
}

test("parts go one to a worker, batches are relayed, the workers are released once idle", async () => {
  const { made, spawn } = fakeWorkers(), posted = [];
  const pool = new Pool({ size: 2, spawn, boot: {}, post: (m) => posted.push(m), idleMs: 5 });
  pool.run({ sid: "tasks", run: 1, parts: ["p0", "p1", "p2"] });
  await tick();
  assert.equal(made.length, 2, "no more workers than the size");
  assert.deepEqual(made.map((w) => w.sent.at(-1).spec), ["p0", "p1"]);
  made[0].batch();
  made[0].batch(true);
  await tick();
  assert.equal(made[0].sent.at(-1).spec, "p2", "a free worker takes the waiting part");
  assert.deepEqual(posted.map((m) => [m.kind, m.part, m.text]), [["points", 0, "b10"], ["points", 0, "b20"]]);
  made[1].batch(true);
  made[0].batch(true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(made.every((w) => w.terminated) && pool.workers.length === 0 && pool.released === 2, "released when idle");
});

test("Cancel stops every part: each worker confirms its last step, nothing of the run is relayed after", async () => {
  const { made, posted, pool } = await running("paper", 7);
  made[0].batch();
  made[1].batch();
  made[1].batch();
  pool.cancel({ run: 7 });
  await tick();
  assert.deepEqual(pool.ended.map(({ run, part, step }) => [run, part, step]), [[7, 0, 10], [7, 1, 20]]);
  const relayed = posted.length;
  made[0].onmessage({ data: { type: "points", run: 7, part: 0, batch: "late", done: false } });
  assert.equal(posted.length, relayed, "a batch in flight when Cancel landed is dropped");
  pool.release();
});

test("a worker that dies mid-part is replaced, its part runs again from its start, and the section is told", async () => {
  const { made, posted, pool } = await running("tasks", 3);
  made[1].batch();
  made[1].onerror({ preventDefault() {}, message: "killed" });
  await tick();
  assert.equal(made.length, 3, "a new worker");
  assert.equal(made[2].sent.at(-1).spec, "b", "the dead worker's part, from its start");
  const retry = posted.find((m) => m.kind === "retry");
  assert.ok(retry && retry.part === 1 && /started again/.test(retry.text), JSON.stringify(posted));
  pool.release();
});

test("a pool that cannot start tells the Panel worker to run the Run itself, once, and asks no more", async () => {
  const { spawn } = fakeWorkers({ bootFails: true }), posted = [];
  const pool = new Pool({ size: 2, spawn, boot: {}, post: (m) => posted.push(m), idleMs: 1e6 });
  pool.run({ sid: "tasks", run: 1, parts: ["a", "b"] });
  await tick();
  await tick();
  assert.equal(posted.filter((m) => m.kind === "failed").length, 1, JSON.stringify(posted));
  assert.match(posted[0].text, /could not start \(out of memory\)/);
  assert.equal(pool.size, 0);
  pool.run({ sid: "tasks", run: 2, parts: ["a"] });
  assert.equal(posted.at(-1).kind, "failed", "a later Run is answered at once");
});

test("a worker whose part gives no batch within its bound is ended and its part runs again in a new one", async () => {
  const { made, spawn } = fakeWorkers(), posted = [];
  const hang = { floorMs: 40, factor: 10, tickMs: 5 };
  const pool = new Pool({ size: 2, spawn, boot: {}, post: (m) => posted.push(m), idleMs: 1e6, hang });
  pool.run({ sid: "tasks", run: 4, parts: ["a", "b"] });
  await tick();
  const beat = setInterval(() => made[1].part && made[1].batch(), 2); // worker 1 answers, worker 0 is stuck
  await new Promise((resolve) => setTimeout(resolve, 120));
  clearInterval(beat);
  assert.ok(made[0].terminated && !made[1].terminated, "only the silent worker is ended");
  assert.equal(made[2].sent.at(-1).spec, "a", "its part, from its start, in a new worker");
  pool.release(); // before its replacement, as silent, is ended too
  assert.deepEqual([pool.hung[0].run, pool.hung[0].part], [4, 0]);
  assert.ok(pool.hung[0].silentMs > hang.floorMs);
  const retry = posted.find((m) => m.kind === "retry");
  assert.ok(retry && retry.part === 0 && /stopped answering \(no batch for .* s\).*started again/.test(retry.text), retry && retry.text);
});

test("the bound follows the part's slowest batch: a slow but steady worker is not ended", async () => {
  const { made, spawn } = fakeWorkers();
  const pool = new Pool({ size: 1, spawn, boot: {}, post: () => {}, idleMs: 1e6, hang: { floorMs: 10, factor: 10, tickMs: 2 } });
  pool.run({ sid: "tasks", run: 5, parts: ["a"] });
  await tick();
  made[0].batch(); // at once: slowest ~0 ms
  await new Promise((resolve) => setTimeout(resolve, 8));
  made[0].batch(); // 8 ms: the bound is now 80 ms
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.ok(!made[0].terminated && pool.hung.length === 0, "40 ms is within ten of its slowest batches");
  made[0].batch(true);
  pool.release();
});

test("ask: a section's slots from a worker (started for it), its error named, none without workers", async () => {
  const { made, spawn } = fakeWorkers();
  const pool = new Pool({ size: 2, spawn, boot: {}, post: () => {}, idleMs: 1e6 });
  assert.equal(await pool.ask({ section: "sweep", query: "sweep.sigma=0.3" }), '{"readout": "sweep.sigma=0.3"}');
  await assert.rejects(pool.ask({ section: "bad", query: "" }), /ValueError: no/);
  assert.equal(made.length, 1, "one worker answers both");
  const stuck = pool.ask({ section: "sweep", query: "x" });
  made[0].onmessage = () => {}; // its answer never comes: the worker ends
  made[0].onerror({ preventDefault() {}, message: "killed" });
  await assert.rejects(stuck, /numerics worker stopped/);
  pool.release();
  const none = new Pool({ size: 0, spawn, boot: {}, post: () => {} });
  await assert.rejects(none.ask({ section: "sweep", query: "" }), /no numerics workers/);
});

async function readersRun({ size = 1, run, quietS = 10, hang = HANG }) {
  // A pool of SIZE fake workers running the reader's code (one part, "mine", quiet_s QUIET_S): as running() gives.
  const { made, spawn } = fakeWorkers(), posted = [];
  const pool = new Pool({ size, spawn, boot: {}, post: (m) => posted.push(m), idleMs: 1e6, hang });
  pool.run({ sid: "codelab", run, parts: ["mine"], quiet_s: quietS });
  await tick();
  return { made, posted, pool };
}

test("a part of the reader's code (quiet_s) silent past its limit: its worker ended, the Run failed, not run again", async () => {
  const { made, posted, pool } = await readersRun({ run: 8, quietS: 0.04, hang: { floorMs: 1e6, factor: 10, tickMs: 5 } });
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.ok(made[0].terminated, "ended at its quiet limit, though the pool's own bound is far off");
  assert.equal(made.length, 1, "no new worker runs it again");
  assert.deepEqual(posted.map((m) => [m.kind, m.part, m.text]), [["error", 0, quietStop(40)]]);
  assert.match(quietStop(10_000), /^your code ran for 10 s without finishing a step/);
  assert.equal(pool.runs.size, 0, "the Run is over");
  pool.release();
});

test("a part of the reader's code whose worker dies is not run again: the Run fails, saying so", async () => {
  const { made, posted, pool } = await readersRun({ size: 2, run: 9 });
  made[0].onerror({ preventDefault() {}, message: "out of memory" });
  await tick();
  assert.equal(made.length, 1, "no second worker for it");
  assert.deepEqual(posted.map((m) => [m.kind, m.text]), [["error", readerDied("it threw out of memory")]]);
  pool.release();
});

test("a worker that ran the reader's code runs only such parts, answers no ask, and gives its place to a clean one", async () => {
  const { made, pool } = await readersRun({ run: 10 });
  made[0].batch(true);
  pool.run({ sid: "codelab", run: 11, parts: ["again"], quiet_s: 10 });
  await tick();
  assert.equal(made[0].sent.at(-1).spec, "again", "the reader's next Run: the same (tainted) worker, at once");
  made[0].batch(true);
  pool.run({ sid: "tasks", run: 12, parts: ["ours"] });
  await tick();
  assert.ok(made[0].terminated && made.length === 2 && made[1].sent.at(-1).spec === "ours",
    "a clean part ends the idle tainted worker and takes a new one");
  made[1].batch(true);
  const { made: more, pool: other } = await readersRun({ size: 2, run: 1 });
  more[0].batch(true);
  assert.equal(await other.ask({ section: "sweep", query: "q" }), '{"readout": "q"}');
  assert.equal(more.length, 2, "the ask went to a new, clean worker");
  assert.ok(!more[0].sent.some((m) => m.type === "slots"), "never to the tainted one");
  pool.release();
  other.release();
});

test("messages are heard by shape: others dropped and counted; a part's points filed under the part its worker runs", async () => {
  const { made, posted, pool } = await running("tasks", 13);
  const say = (data) => made[0].onmessage({ data });
  for (const bad of [null, "points", { type: "points", run: "13", batch: "x", done: false },
    { type: "points", run: 13, batch: 7, done: false }, { type: "evil" }, { type: "slots", id: "1" }]) say(bad);
  assert.equal(pool.dropped, 6);
  say({ type: "progress", step: "numpy" }); // its boot's progress: not the pool's, not counted
  assert.equal(pool.dropped, 6);
  say({ type: "points", run: 13, part: 1, batch: "forged", done: false }); // names worker 1's part
  say({ type: "points", run: 99, part: 0, batch: "other run", done: false });
  assert.deepEqual(posted.map((m) => [m.run, m.part, m.text]), [[13, 0, "forged"]], "filed under its own part only");
  pool.release();
});

test("Cancel of a part of the reader's code ends its worker (the code may never read a cancel); the next Run starts anew", async () => {
  const { made, posted, pool } = await readersRun({ run: 14 });
  pool.cancel({ run: 14 });
  assert.ok(made[0].terminated && !made[0].sent.some((m) => m.type === "cancel"), "ended, not asked");
  assert.equal(pool.workers.length, 0);
  pool.run({ sid: "codelab", run: 15, parts: ["fixed"], quiet_s: 10 });
  await tick();
  assert.equal(made.length, 2, "a new worker");
  assert.equal(made[1].sent.at(-1).spec, "fixed");
  made[1].batch(true);
  assert.deepEqual(posted.map((m) => [m.kind, m.run]), [["points", 15]], "nothing said of the cancelled Run");
  pool.release();
});

test("warm: one clean worker up before any ask, which the ask then uses; released if none comes", async () => {
  const { made, spawn } = fakeWorkers();
  const pool = new Pool({ size: 2, spawn, boot: {}, post: () => {}, idleMs: 1e6 });
  await pool.warm();
  assert.equal(made.length, 1);
  await pool.warm();
  assert.equal(made.length, 1, "a second warm takes the worker that is up");
  assert.equal(await pool.ask({ section: "sweep", query: "q" }), '{"readout": "q"}');
  assert.equal(made.length, 1, "the ask went to the warm worker");
  pool.release();

  const idle = fakeWorkers();
  const unasked = new Pool({ size: 1, spawn: idle.spawn, boot: {}, post: () => {}, idleMs: 5 });
  await unasked.warm();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(idle.made[0].terminated && unasked.released === 1, "nothing asked: released once idle");
});

test("warm never rejects: a worker that cannot boot, or no pool at all, lets the Panel worker start", async () => {
  const broken = fakeWorkers({ bootFails: true });
  const pool = new Pool({ size: 1, spawn: broken.spawn, boot: {}, post: () => {}, idleMs: 1e6 });
  await pool.warm();
  const none = new Pool({ size: 0, spawn: () => { throw new Error("no workers"); }, boot: {}, post: () => {} });
  await none.warm();
  const throwing = new Pool({ size: 1, spawn: () => { throw new Error("no workers here"); }, boot: {}, post: () => {} });
  await throwing.warm();
  assert.equal(throwing.size, 0, "a pool that cannot start says so and asks no more");
  pool.release();
});

test("warm for the reader's code takes a tainted worker; a full pool starts none", async () => {
  const { made, spawn } = fakeWorkers();
  const pool = new Pool({ size: 1, spawn, boot: {}, post: () => {}, idleMs: 1e6 });
  pool.run({ sid: "codelab", run: 1, parts: ["yours"], quiet_s: 10 });
  await tick();
  made[0].batch(true); // the reader's code ran there: tainted
  await tick();
  await pool.warm({ reader: true });
  assert.equal(made.length, 1, "the tainted worker will do for the next Run of reader code");
  await pool.warm();
  assert.equal(made.length, 1, "a clean one would exceed the pool's size: none started");
  pool.release();
});

function slowBooting() {
  // fakeWorkers whose boots are answered only when boot() is called: a worker still booting.
  const { made, spawn } = fakeWorkers(), held = [];
  const slow = () => {
    const w = spawn(), post = w.postMessage;
    w.postMessage = (msg) => (msg.type === "boot" ? held.push(() => post(msg)) : post(msg));
    return w;
  };
  return { made, spawn: slow, boot: () => held.splice(0).forEach((go) => go()) };
}

test("a reader's Run cancelled while its worker boots leaves the boot going for the next one", async () => {
  const { made, spawn, boot } = slowBooting();
  const pool = new Pool({ size: 1, spawn, boot: {}, post: () => {}, idleMs: 1e6 });
  pool.run({ sid: "codelab", run: -1, parts: ["first"], quiet_s: 10 });
  pool.cancel({ run: -1 }); // pressed Run again before the worker was up
  pool.run({ sid: "codelab", run: -2, parts: ["second"], quiet_s: 10 });
  assert.ok(!made[0].terminated && made.length === 1, "the booting worker is kept");
  boot();
  await tick();
  assert.deepEqual(made[0].sent.filter((m) => m.type === "part").map((m) => m.spec), ["second"], "only the latest runs");
  assert.ok(!made[0].sent.some((m) => m.type === "cancel"));
  pool.release();
});

test("an ask waiting on a worker that is then sent the reader's code is refused, and the pool can idle", async () => {
  const { made, spawn, boot } = slowBooting();
  const pool = new Pool({ size: 1, spawn, boot: {}, post: () => {}, idleMs: 1e6 });
  const asked = pool.ask({ section: "sweep", query: "q" });
  pool.run({ sid: "codelab", run: -1, parts: ["mine"], quiet_s: 10 });
  boot();
  try {
    await assert.rejects(asked, /runs the reader's code/);
    assert.equal(pool.workers[0].asks.size, 0, "nothing left waiting");
    assert.ok(made[0].sent.some((m) => m.type === "part"));
  } finally {
    pool.release();
  }
});
