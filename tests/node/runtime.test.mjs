// The page's one compile of Python's runtime, handed to every worker (site/runtime.js), with stand-in workers and
// compiles: the browser tests (test_browser_runtime.py) run the real ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileRuntime, handingRuntime, offeredRuntime } from "../../site/runtime.js";

function transport(compile) {
  // A transport whose workers record what they are sent; COMPILE: its compileRuntime (undefined: it has none).
  const made = [], compiles = [];
  const t = { made, compiles, worker: () => { const w = { sent: [], postMessage: (m) => w.sent.push(m) }; made.push(w); return w; } };
  if (compile) t.compileRuntime = (config) => { compiles.push(config); return compile(); };
  return t;
}
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
const config = { runtime: "pyodide/" };
const COMING = { type: "runtime", coming: true }; // said at its start, before its boot: wait for the module

test("over http: one compile for every worker, each handed the same module, before and after it is done", async () => {
  const module = { a: "module" };
  const t = transport(() => Promise.resolve(module));
  const workers = handingRuntime(config, t);
  assert.equal(workers.hands, true);
  const first = workers.start(), second = workers.start();
  await settled();
  const third = workers.start(); // started once the compile is done
  await settled();
  assert.deepEqual(t.made, [first, second, third]);
  assert.equal(t.compiles.length, 1, "compiled once, with the first worker");
  for (const w of t.made) assert.deepEqual(w.sent, [COMING, { type: "runtime", module }]);
  assert.ok(t.made.every((w) => w.sent[1].module === module), "the one module, not a copy per worker");
});

test("a compile that fails hands null to every worker (each compiles its own checked copy), and is not retried", async () => {
  const t = transport(() => Promise.reject(new Error("pyodide/pyodide.asm.wasm: sha256 mismatch")));
  const workers = handingRuntime(config, t);
  workers.start();
  workers.start();
  await settled();
  assert.equal(t.compiles.length, 1);
  for (const w of t.made) assert.deepEqual(w.sent, [COMING, { type: "runtime", module: null }]);
});

test("nothing to hand yet (the classroom file before its first worker compiled): that worker is told nothing and compiles its own; the next start asks again", async () => {
  const module = { a: "module" };
  let offered = null;
  const t = transport(() => offered);
  const workers = handingRuntime(config, t);
  const first = workers.start();
  offered = Promise.resolve(module);
  const second = workers.start(), third = workers.start();
  await settled();
  assert.deepEqual(first.sent, [], "no runtime message: it compiles its own");
  for (const w of [second, third]) assert.deepEqual(w.sent, [COMING, { type: "runtime", module }]);
  assert.equal(t.compiles.length, 2, "asked at the first start and the second, then kept");
});

test("a module the engine cannot post to a worker: that worker is handed null, never left waiting", async () => {
  const t = transport(() => Promise.resolve({ a: "module" }));
  const w = handingRuntime(config, t).start();
  const post = w.postMessage;
  w.postMessage = (m) => { if (m.module) throw new DOMException("could not be cloned", "DataCloneError"); post(m); };
  await settled();
  assert.deepEqual(w.sent, [COMING, { type: "runtime", module: null }]);
});

test("nothing is compiled before a worker starts, and a transport that cannot compile hands none", async () => {
  const t = transport(() => Promise.resolve({}));
  handingRuntime(config, t);
  assert.equal(t.compiles.length, 0, "a paused page (live=click) compiles nothing");
  const file = transport(undefined);
  const workers = handingRuntime(config, file);
  assert.equal(workers.hands, false);
  const w = workers.start();
  await settled();
  assert.deepEqual(w.sent, [], "no runtime message: its boot says none comes");
});

test("the page compiles nothing unchecked: a config without the wasm's sha256 is refused before any fetch", async () => {
  const fetched = [], real = globalThis.fetch;
  globalThis.fetch = (url) => { fetched.push(url); return real(url); };
  try {
    await assert.rejects(compileRuntime({ runtime: "pyodide/", integrity: {} }), /no sha256 for pyodide\/pyodide\.asm\.wasm/);
  } finally {
    globalThis.fetch = real;
  }
  assert.deepEqual(fetched, []);
});

test("renew: after a stopped lab, the next worker's start compiles anew (a Retry asks the site again)", async () => {
  const t = transport(() => Promise.resolve({}));
  const workers = handingRuntime(config, t);
  workers.start();
  workers.start();
  workers.renew();
  assert.equal(t.compiles.length, 1, "renew itself compiles nothing");
  workers.start();
  assert.equal(t.compiles.length, 2);
  handingRuntime(config, transport(undefined)).renew(); // a transport without a compile: nothing to renew
});

// The smallest module there is: the magic number and version 1.
const EMPTY_MODULE = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const sha = { runtime: "pyodide/", integrity: { "pyodide/pyodide.asm.wasm": "sha256-x" } };

async function compiledFrom(response) {
  // compileRuntime over a stand-in fetch that answers RESPONSE: its result and what it asked for.
  const asked = [], real = globalThis.fetch;
  globalThis.fetch = (url, init) => { asked.push([url, init]); return Promise.resolve(response); };
  try {
    return { result: await compileRuntime(sha).catch((err) => err), asked };
  } finally {
    globalThis.fetch = real;
  }
}

test("one download, with the build's sha256, whatever the host labels the wasm", async () => {
  for (const type of ["application/wasm", "application/octet-stream", ""]) {
    const { result, asked } = await compiledFrom(new Response(EMPTY_MODULE, { headers: type ? { "Content-Type": type } : {} }));
    assert.ok(result instanceof WebAssembly.Module, `${type}: ${result}`);
    assert.deepEqual(asked, [["pyodide/pyodide.asm.wasm", { integrity: "sha256-x" }]], type);
  }
});

test("a missing wasm or one that is not a module is a rejection (each worker then compiles and names its own)", async () => {
  const missing = await compiledFrom(new Response("no", { status: 404 }));
  assert.match(String(missing.result), /pyodide\/pyodide\.asm\.wasm: HTTP 404/);
  const garbage = await compiledFrom(new Response(new Uint8Array([1, 2, 3]), { headers: { "Content-Type": "application/wasm" } }));
  assert.ok(garbage.result instanceof WebAssembly.CompileError, String(garbage.result));
});

function stand_in_worker() {
  // A worker as the classroom file's transport listens to it: say(data) is a message from it.
  const listeners = new Set();
  return { addEventListener: (type, fn) => type === "message" && listeners.add(fn),
    removeEventListener: (type, fn) => type === "message" && listeners.delete(fn),
    say: (data) => [...listeners].forEach((fn) => fn({ data })) };
}

test("the classroom file takes a module only from a worker still booting, the first only, and only a module", () => {
  const module = new WebAssembly.Module(EMPTY_MODULE), other = new WebAssembly.Module(EMPTY_MODULE);
  const runtime = offeredRuntime();
  const [booted, booting, late] = [stand_in_worker(), stand_in_worker(), stand_in_worker()];
  [booted, booting, late].forEach((w) => runtime.heard(w));
  assert.equal(runtime.compile(), null, "nothing offered: the first worker compiles its own");
  // a worker past its boot (a numerics worker may have run the reader's code since) is not heard, whatever it posts
  booted.say({ type: "numerics-ready" });
  booted.say({ type: "runtime-offer", module: other });
  // nor anything that is not a module
  booting.say({ type: "progress", step: "runtime" });
  booting.say({ type: "runtime-offer", module: { not: "a module" } });
  booting.say({ type: "runtime-offer", bytes: EMPTY_MODULE.buffer });
  assert.equal(runtime.compile(), null);
  booting.say({ type: "timing", name: "runtime", ms: 1 });
  booting.say({ type: "runtime-offer", module });
  late.say({ type: "runtime-offer", module: other });
  return runtime.compile().then((m) => assert.equal(m, module, "the first booting worker's, kept"));
});
