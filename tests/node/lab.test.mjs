// The lab (site/lab.js), one explicit state machine: every phase is reachable, every move leads to a phase, and a move
// the table lacks throws instead of leaving the lab in a state nothing expects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MOVES, go, newLab } from "../../site/lab.js";

test("every move leads to a phase, and every phase is reached from a paused or a starting lab", () => {
  const phases = Object.keys(MOVES);
  for (const [from, moves] of Object.entries(MOVES)) {
    for (const [event, to] of Object.entries(moves)) assert.ok(phases.includes(to), `${from} --${event}--> ${to}`);
  }
  const seen = new Set(["paused"]), todo = ["paused"];
  while (todo.length) for (const to of Object.values(MOVES[todo.pop()])) if (!seen.has(to)) { seen.add(to); todo.push(to); }
  assert.deepEqual([...seen].sort(), phases.sort());
});

test("a boot, a patch, a build and its hand-over, then a fatal error", () => {
  const lab = go(newLab("paused"), "start");
  const walk = ["sections", "patch", "idle", "build", "idle", "render", "state", "idle", "fail"];
  const phases = walk.map((event) => go(lab, event).phase);
  assert.deepEqual(phases, ["free", "busy", "free", "building", "building", "free", "busy", "free", "failed"]);
});

test("a move the table lacks throws and leaves the phase as it was", () => {
  const lab = go(newLab("paused"), "start");
  assert.throws(() => go(lab, "render"), /phase starting has no move on render/);
  assert.equal(lab.phase, "starting");
  assert.throws(() => go(go(lab, "sections"), "sections"), /phase free has no move on sections/);
  assert.throws(() => go(newLab("failed"), "start"), /phase failed/);
});
