// A numerics worker's boot steps as the page records them (site/boot.js's watchBoots, shown as __wt.pool.boots):
// what bench/bootorder.py reads of where a numerics worker's cold boot goes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { watchBoots } from "../../site/boot.js";

test("each worker's timing messages and when it was up, by shape; its other words ignored", () => {
  const boots = [], worker = new EventTarget();
  assert.equal(watchBoots(worker, boots), worker);
  const say = (data) => worker.dispatchEvent(Object.assign(new Event("message"), { data }));
  say({ type: "timing", name: "runtime", ms: 1500 });
  say({ type: "timing", name: "packages", ms: "800" }); // not a number: not a step
  say({ type: "progress", step: "runtime" });
  say(null);
  say({ type: "numerics-ready" });
  const up = boots[0].ready;
  say({ type: "numerics-ready" }); // said twice: the first counts
  assert.deepEqual(Object.keys(boots[0]).sort(), ["ready", "runtime", "spawned"]);
  assert.equal(boots[0].runtime, 1500);
  assert.ok(boots[0].spawned <= up && boots[0].ready === up);
  watchBoots(new EventTarget(), boots);
  assert.equal(boots.length, 2, "one record per worker, in the order they were made");
});
