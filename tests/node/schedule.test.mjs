// The build scheduler (site/schedule.js) (nextBuild): which section Python builds next, once the reader is idle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nextBuild } from "../../site/schedule.js";

const layout = { a: [0, 0], b: [0, 300], c: [900, 0], d: [2500, 0] }; // sid -> [px from the view, px of it seen]
const base = { near: new Set(["a", "b", "c"]), distance: (s) => layout[s][0], seen: (s) => layout[s][1], quietMs: 1000, idleMs: 600 };

test("nothing is built while the reader is active: it waits out the rest of the pause", () => {
  assert.deepEqual(nextBuild({ ...base, unbuilt: ["a", "b"], quietMs: 250 }), { wait: 350 });
});

test("of two sections in view, the one filling more of it; then the nearest", () => {
  assert.deepEqual(nextBuild({ ...base, unbuilt: ["a", "b", "c", "d"] }), { sid: "b" });
  assert.deepEqual(nextBuild({ ...base, unbuilt: ["d", "c"] }), { sid: "c" });
});

test("none near: the first in page order; all built: nothing", () => {
  assert.deepEqual(nextBuild({ ...base, unbuilt: ["d", "c"], near: new Set() }), { sid: "d" });
  assert.deepEqual(nextBuild({ ...base, unbuilt: [] }), {});
  assert.deepEqual(nextBuild({ ...base, unbuilt: [], quietMs: 0 }), {}, "nothing to wait for");
});
