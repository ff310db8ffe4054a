// Which link a page is opened off the grid by (site/early.js's offGrid over the page's rules and each section's
// grid, as config.playback carries them), and when that makes the lab boot a numerics worker before the Panel
// worker (site/boot.js's numericsFirst).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Codec } from "../../site/state.js";
import { offGrid } from "../../site/early.js";
import { CLAMPED_CORES, FEW_CORES, numericsFirst } from "../../site/boot.js";
import { playback, rules } from "./fixtures.mjs";

const codec = new Codec(rules());
const { grids } = playback();
// the sweep answers early (its results follow every control); the tasks wait for a Run (weighttying.early.answers)
const config = { sweep: { ...grids.sweep, early: true }, tasks: { ...grids.tasks, early: false } };
const off = (query) => offGrid(config, codec, query);

test("a link off an early section's grid, and only such a link, is off the grid", () => {
  assert.deepEqual(off(""), [], "the defaults are on every grid");
  assert.deepEqual(off("sweep.sigma=0.01&sweep.band=0.2"), [], "grid values");
  assert.deepEqual(off("?sweep.sigma=0.0123"), ["sweep"], "a typed value between two of the grid's");
  assert.deepEqual(off("sweep.sigma=abc"), [], "a value the rules refuse is the default");
  assert.deepEqual(off("tasks.lr=0.0123"), [], "the tasks answer only after a Run: no early answer to boot for");
  assert.deepEqual(off("sweep.sigma=0.0123&tasks.lr=0.0123"), ["sweep"]);
});

test("the Panel worker waits for a numerics worker only off the grid, on few cores, with a pool", () => {
  const first = (said) => numericsFirst({ firstNeeds: ["sweep"], memory: 8, poolSize: 1, ...said });
  assert.equal(first({ cores: FEW_CORES }), true);
  assert.equal(first({ cores: 1 }), true);
  assert.equal(first({ cores: undefined }), true, "a browser that does not say: few");
  assert.equal(first({ cores: FEW_CORES + 1 }), false, "enough cores for both at once");
  assert.equal(first({ cores: CLAMPED_CORES, memory: undefined }), true, "WebKit's 4 (no memory said) may be 2 cores");
  assert.equal(first({ cores: 2 * CLAMPED_CORES, memory: undefined }), false, "WebKit's 8: at least 8");
  assert.equal(first({ cores: CLAMPED_CORES }), false, "Chromium's 4 is 4 (it says its memory too)");
  assert.equal(first({ cores: 1, firstNeeds: [] }), false, "on the grid the playback answers: Panel at once");
  assert.equal(first({ cores: 1, poolSize: 0 }), false, "no pool (it failed, or none allowed)");
});
