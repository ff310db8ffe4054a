// One worker's record (site/lab.js's newLab) has one owner per field: its phase is lab.js's (go), its Worker boot.js's,
// and each part's record of the worker (lab.watch, lab.schedule, ...) is made and written by that part alone; the
// others ask it. No site module writes a field it does not own, and every name tests and bench read of
// window.__wt.lab is one the record has.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { newLab } from "../../site/lab.js";
import { Scheduler } from "../../site/schedule.js";
import { LiveSections } from "../../site/handover.js";
import { Watch } from "../../site/watch.js";
import { root } from "./fixtures.mjs";
import { sourceFiles, uncommented } from "./sources.mjs";

// field of the record -> the one site module that writes it and what it holds
const OWNERS = { phase: "lab.js", worker: "boot.js", watch: "watch.js", schedule: "schedule.js",
  handover: "handover.js", scripts: "scripts.js" };

// A lab is the name every part gives it (lab, state.lab); what follows is the field and the path into it.
const LAB = String.raw`(?<![\w$])lab\.(\w+)(?:\.\w+|\[[^\]]*\])*`;
const STEP = String.raw`\s*(?:[-+*/%|&]?=(?!=)|\+\+|--)`;
const CHANGE = String.raw`\.(?:push|pop|shift|unshift|splice|sort|reverse|fill|add|delete|clear|set)\(`;
const WRITES = [
  new RegExp(LAB + STEP, "g"), // an assignment or a step
  new RegExp(String.raw`(?:\+\+|--|\bdelete\s+)${LAB}`, "g"),
  new RegExp(LAB + CHANGE, "g"), // a call that changes a list, set or map
  // Object.assign into the record (field "*": any) or into one of its fields
  /Object\.assign\(\s*(?:go\(\s*)?(?:(?:this\.)?state\.)?lab\b(?:\.(\w+))?/g,
];
const DESTRUCTURED = /(?<![\w$\])])\[([^[\]=;]*)\]\s*=(?!=)/g; // [lab.a, lab.b] = ...
// A local name for a field or for what it holds: const { schedule } = lab; const beat = lab.watch;
// const { live } = lab.handover. A write into what such a name holds is a write into that field.
const ALIAS = /(?:\{([^{}]*)\}|(?<![\w$.])([\w$]+))\s*=\s*(?<![\w$.])lab(?:\.(\w+))?(?![\w$.([])/g;

function aliases(text) {
  // local name -> the lab field it holds, or holds part of
  const names = {};
  for (const [, members, name, field] of text.matchAll(ALIAS)) {
    if (name && field) names[name] = field;
    for (const member of (members || "").split(",").map((m) => m.trim()).filter((m) => /^[\w$]/.test(m))) {
      const [key, local = key] = member.split(/\s*[:=]\s*/).slice(0, 2);
      names[member.includes(":") ? local : key] = field || key;
    }
  }
  return names;
}

function labWrites(text) {
  // Each write into a lab record's fields in TEXT (JS, comments out): [field, the write].
  const found = WRITES.flatMap((re) => [...text.matchAll(re)].map((m) => [m[1] || "*", m[0].trim()]));
  for (const m of text.matchAll(DESTRUCTURED)) {
    for (const field of m[1].matchAll(new RegExp(LAB, "g"))) found.push([field[1], m[0].trim()]);
  }
  for (const [name, field] of Object.entries(aliases(text))) {
    const held = String.raw`(?<![\w$.])${name.replace(/\$/g, "\\$")}`, path = String.raw`(?:\.\w+|\[[^\]]*\])`;
    const through = new RegExp(`${held}${path}+${STEP}|${held}${path}*${CHANGE}|Object\\.assign\\(\\s*${held}\\b`, "g");
    for (const m of text.matchAll(through)) found.push([field, m[0].trim()]);
  }
  return found;
}

const misplaced = (file, text) => labWrites(uncommented(text)).filter(([field]) => OWNERS[field] !== file)
  .map(([field, write]) => `${file}: ${write} (${field} is ${OWNERS[field] || "no module"}'s)`);

test("the owners are the record's fields, no more, no fewer", () => {
  assert.deepEqual(Object.keys(OWNERS).sort(), Object.keys(newLab("paused")).sort());
});

test("the write finder finds writes into a lab, and not reads", () => {
  const writes = ["lab.watch.pingAt = 0;", "lab.schedule.queue.push(x);", "lab.handover.docs[sid] = d;",
    "lab.handover.patching += 1;", "[lab.schedule.synced, lab.schedule.moved] = [q, m];", "state.lab.worker = w;",
    "Object.assign(go(lab, 'sections'), { base });", "delete lab.scripts;", "++lab.watch.pingN;",
    "Object.assign(lab.handover, { shown });"].join(" ");
  assert.deepEqual(labWrites(writes).map(([field]) => field).sort(), ["*", "handover", "handover", "handover",
    "schedule", "schedule", "schedule", "scripts", "watch", "watch", "worker"]);
  const reads = ["if (lab.phase === 'free' && lab.schedule.queue.length <= 2 && lab.watch.pingN !== n) x = 1;",
    "const doc = lab.handover.docs[sid]; codelab.x = 1; player.lab = 2; const lab = go(newLab('paused'), 'start');",
    "row[lab.phase] = 3; lab.worker.postMessage(m); const { queue } = lab.schedule; if (queue.length) y = queue[0];"]
    .join(" ");
  assert.deepEqual(labWrites(reads), []);
});

test("a write planted outside its owner is caught, and the owner's own is not", () => {
  const planted = "lab.watch.pingAt = 0;\nlab.schedule.building = null; // a comment: lab.handover.live = 1;";
  assert.deepEqual(misplaced("messages.js", planted), ["messages.js: lab.watch.pingAt = (watch is watch.js's)",
    "messages.js: lab.schedule.building = (schedule is schedule.js's)"]);
  assert.deepEqual(misplaced("watch.js", "lab.watch.pingAt = 0;"), []);
  assert.deepEqual(misplaced("boot.js", "lab.heartbeat = setInterval(tick, 50);"),
    ["boot.js: lab.heartbeat = (heartbeat is no module's)"]);
  const aliased = "const { watch } = lab, beat = lab.watch; watch.pingAt = 0; beat.pingN += 1;\n" +
    "const { live, docs: documents } = lab.handover; live.add(sid); documents[sid] = d; if (live.has(s)) beat.heard;";
  assert.deepEqual(misplaced("schedule.js", aliased), ["schedule.js: watch.pingAt = (watch is watch.js's)",
    "schedule.js: beat.pingN += (watch is watch.js's)", "schedule.js: live.add( (handover is handover.js's)",
    "schedule.js: documents[sid] = (handover is handover.js's)"]);
});

const site = resolve(root, "site");
const modules = readdirSync(site).filter((f) => f.endsWith(".js"));

test("no site module writes a field of the lab record it does not own, and each owner writes its own", () => {
  assert.deepEqual(modules.flatMap((f) => misplaced(f, readFileSync(resolve(site, f), "utf8"))), []);
  for (const [field, owner] of Object.entries(OWNERS)) {
    const own = labWrites(uncommented(readFileSync(resolve(site, owner), "utf8"))).map(([written]) => written);
    assert.ok(own.includes(field), `${owner} owns lab.${field} but never writes it: the table is out of date`);
  }
});

function started() {
  // A lab whose parts have made their records (begin), as boot.js's start has them do.
  const lab = newLab("starting"), had = globalThis.navigator;
  lab.worker = { postMessage: () => {} };
  Scheduler.prototype.begin.call(null, lab);
  LiveSections.prototype.begin.call(null, lab);
  Object.defineProperty(globalThis, "navigator", { value: {}, configurable: true }); // no Web Locks here
  try {
    Watch.prototype.begin.call({ heartbeat: () => {} }, lab);
  } finally {
    Object.defineProperty(globalThis, "navigator", { value: had, configurable: true });
    clearInterval(lab.watch.heartbeat);
  }
  return lab;
}

test("every name tests and bench read of window.__wt.lab is one a started lab has", () => {
  const lab = started(), missing = [];
  let reads = 0;
  for (const f of [...sourceFiles("tests", ".py"), ...sourceFiles("bench", ".py"), ...sourceFiles("bench", ".js")]) {
    for (const [read, field, inner] of readFileSync(f, "utf8").matchAll(/__wt\??\.lab\??\.(\w+)(?:\??\.(\w+))?/g)) {
      reads += 1;
      const record = lab[field];
      if (!(field in lab) || (inner && record && typeof record === "object" && !(inner in record))) missing.push(read);
    }
  }
  assert.ok(reads >= 4, `only ${reads} reads of __wt.lab found: the pattern is out of date`);
  assert.deepEqual(missing, []);
});
