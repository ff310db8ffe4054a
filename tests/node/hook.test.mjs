// site/hook.js, window.__wt: read-only (frozen, its names getters of the live objects), holding every name tests/
// and bench/ read of it; and no site module but main.js, which makes it, uses it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { hook } from "../../site/hook.js";
import { root } from "./fixtures.mjs";
import { sourceFiles, uncommented } from "./sources.mjs";

const code = (file) => uncommented(readFileSync(file, "utf8"));

function made() {
  const lab = { status: "booting", crashes: [], restart: () => "restarted" };
  const address = { query: "a=1" };
  return { lab, address, wt: hook({ config: {}, transport: {}, address, page: {}, player: {}, lab }) };
}

test("the hook is frozen: no name can be set, added or removed", () => {
  const { lab, wt } = made();
  assert.ok(Object.isFrozen(wt));
  assert.throws(() => { wt.status = "ready"; }, TypeError); // this module is strict, as the page's script is
  assert.throws(() => { wt.crashes = []; }, TypeError);
  assert.throws(() => { wt.extra = 1; }, TypeError);
  assert.throws(() => { delete wt.player; }, TypeError);
  assert.equal(wt.status, "booting");
  assert.equal(lab.status, "booting");
});

test("the hook reads the lab and the address as they are now", () => {
  const { lab, address, wt } = made();
  const first = wt.crashes;
  Object.assign(lab, { status: "ready", crashes: [1] });
  address.query = "b=2";
  assert.equal(wt.status, "ready");
  assert.deepEqual(wt.crashes, [1]);
  assert.notEqual(wt.crashes, first, "a list the lab replaced is the new one");
  assert.equal(wt.query, "b=2");
  assert.equal(wt.restart(), "restarted");
});

test("every name tests, bench and docs read of window.__wt is on the hook", () => {
  const read = new Set();
  for (const f of [...sourceFiles("tests", ".py"), ...sourceFiles("tests", ".mjs"), ...sourceFiles("bench", ".py"), ...sourceFiles("bench", ".js"), resolve(root, "docs", "DESIGN.md")]) {
    for (const m of readFileSync(f, "utf8").matchAll(/__wt\??\.([A-Za-z_$]\w*)/g)) read.add(m[1]);
  }
  assert.ok(read.has("status") && read.has("pool") && read.has("lab"), [...read].join(" "));
  const { wt } = made();
  assert.deepEqual([...read].filter((name) => !(name in wt)), []);
});

test("no site module but main.js uses window.__wt, and main.js only makes it", () => {
  const users = sourceFiles("site", ".js").filter((f) => /\b__wt\b/.test(code(f))).map((f) => f.slice(root.length + 1));
  assert.deepEqual(users, ["site/main.js"]);
  const uses = [...code(resolve(root, "site", "main.js")).matchAll(/.*\b__wt\b.*/g)].map((m) => m[0].trim());
  assert.deepEqual(uses, ["window.__wt = hook({ config, transport, address, page, player, lab });"]);
});
