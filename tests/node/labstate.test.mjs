// The live lab's state (site/labstate.js) has one owner: every name the hook shows of it is a getter without a setter
// (a write from outside throws), its methods are the only writers, and no other site module writes into what it
// holds (its lists, timings and counters), which a field's getter alone cannot stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { LabState } from "../../site/labstate.js";
import { LAB } from "../../site/hook.js";
import { root } from "./fixtures.mjs";
import { uncommented } from "./sources.mjs";

const shown = Object.entries(Object.getOwnPropertyDescriptors(LabState.prototype)).filter(([, d]) => d.get).map(([name]) => name);

test("every name the hook shows is one of the state's getters, and none can be set from outside", () => {
  assert.deepEqual(LAB.filter((name) => !shown.includes(name)), []);
  const state = new LabState();
  for (const name of shown) {
    assert.equal(Object.getOwnPropertyDescriptor(LabState.prototype, name).set, undefined, name);
    assert.throws(() => { state[name] = 1; }, TypeError, name); // this module is strict, as the parts' classes are
  }
  assert.equal(state.status, "booting");
});

test("its methods write it: status, timings, counters, crashes, the current lab", () => {
  const state = new LabState(), lab = { phase: "starting" }, worker = {};
  state.setStatus("ready", "Live", 1);
  assert.deepEqual([state.status, state.label, state.progress], ["ready", "Live", 1]);
  state.setStatus("failed", "Failed");
  assert.equal(state.progress, 1, "the progress stays when not given");
  state.begin();
  state.embedded("sweep", 30);
  state.embedded("paper", 12);
  state.wentLive("sweep", 99);
  assert.deepEqual(state.timings, { live: { sweep: 99 }, "embed:sweep": 30, "embed:paper": 12, embed: 42 });
  state.queueSeen(3);
  state.queueSeen(2);
  assert.equal(state.queueHighWater, 3);
  state.use(lab, worker);
  assert.ok(state.lab === lab && state.worker === worker);
  state.workerEnded();
  assert.ok(state.lab === lab && state.worker === null, "the lab stays current, its worker gone");
  state.crash({ reason: "r", at: 1, noticedAfterMs: 0 });
  const before = state.crashes;
  state.forgetCrashes();
  assert.ok(before.length === 1 && state.crashes.length === 0, "a list handed out keeps what it said");
  state.pong();
  assert.equal(state.heartbeat.pongs, 1);
});

test("ready: a new promise each time, settled by the state; equipped once", async () => {
  const state = new LabState();
  state.promiseReady();
  const first = state.ready;
  state.isReady();
  await first;
  state.promiseReady();
  assert.notEqual(state.ready, first);
  state.failed(new Error("stopped"));
  await assert.rejects(state.ready, /stopped/);
  const parts = { pool: {}, early: {}, restart: () => "restarted", playerMoved: () => {} };
  state.equip(parts);
  assert.ok(state.pool === parts.pool && state.restart() === "restarted");
  assert.throws(() => state.equip(parts), /equipped once/);
});

const code = (file) => uncommented(readFileSync(file, "utf8"));
// A write into one of the state's fields or what it holds, through the name every part gives it (state, this.state):
// an assignment, or a call that changes a list, set or map.
const field = `(?<=^|[^\\w$.]|this\\.)state\\.(${shown.join("|")})\\b((?:\\.\\w+|\\[[^\\]]*\\])*)`;
const writes = new RegExp(`${field}\\s*(?:[-+*/|&]?=(?!=)|\\+\\+|--)|${field}\\.(?:push|pop|shift|unshift|splice|add|delete|clear|set|sort)\\(|Object\\.assign\\(\\s*(?:this\\.)?state\\b`, "gm");

test("the write finder finds writes, and not reads or a player's state", () => {
  const found = (text) => [...text.matchAll(writes)].map((m) => m[0].trim());
  assert.equal(found("state.timings.live[sid] = now; this.state.crashes.push(c); state.notes = [];" +
    "Object.assign(state, {}); state.patchesSent += 1;").length, 5);
  assert.deepEqual(found("if (state.status === 'x') player.state[sid] = 1; const t = state.timings.live[sid];"), []);
});

test("no site module but labstate.js writes the lab's state", () => {
  const site = resolve(root, "site");
  const found = readdirSync(site).filter((f) => f.endsWith(".js") && f !== "labstate.js")
    .flatMap((f) => [...code(resolve(site, f)).matchAll(writes)].map((m) => `${f}: ${m[0].trim()}`));
  assert.deepEqual(found, []);
});
