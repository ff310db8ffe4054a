// site/player.js's pure parts over the build's own playback tables and state rules (tests/node/fixtures.mjs): the
// answer a table gives for a section's default state is the prerendered page's (what the reader sees before any
// control moves), an off-grid value shows the nearest grid point and says so, and a choice showing its own fill
// reads as the choice. Each kind's input form is one the player draws, and its value is taken at the kind's event.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FORMS, asRead, fragment, lookup, nearest, takes } from "../../site/player.js";
import { Codec } from "../../site/state.js";
import { playback, rules as fixture } from "./fixtures.mjs";

const rules = new Codec(fixture());
const { grids, tables, prerendered } = playback();
const table = (sid) => grids[sid]; // lookup reads a table's grid alone
const defaults = (sid) => Object.fromEntries(rules.section(sid).map((c) => [c.name, c.default]));

test("every grid is a section's, and every section has one", () => {
  assert.deepEqual(Object.keys(grids), rules.sections.filter((s) => s !== "page"));
});

test("a whole table answers its section's default state with the prerendered page's fragments", () => {
  assert.ok(Object.keys(tables).length >= 2);
  for (const [sid, t] of Object.entries(tables)) {
    assert.ok(t.keys.length >= 2, `${sid}: a table over more than one key checks the row-major order`);
    const { at, approx } = lookup(t, defaults(sid), rules.section(sid));
    assert.deepEqual(approx, [], sid);
    for (const slot of t.slots) {
      assert.equal(t.fragments[fragment(t, slot, at)], prerendered[sid][slot], `${sid}/${slot}: the default's fragment is not the prerendered one`);
    }
  }
});

test("off the default, a slot shows the fragment of its own grid point", () => {
  // every point of a slot's keys is a fragment of the table (row-major: the last key moves fastest)
  for (const [sid, t] of Object.entries(tables)) {
    for (const slot of t.slots) {
      const { keys, index } = t.at[slot], sizes = keys.map((k) => t.values[t.keys.indexOf(k)].length);
      assert.equal(index.length, sizes.reduce((a, b) => a * b, 1), `${sid}/${slot}`);
      if (!keys.length) continue;
      const last = keys.at(-1), at = Object.fromEntries(keys.map((k) => [k, 0]));
      at[last] = 1;
      assert.equal(fragment(t, slot, at), String(index[1]), `${sid}/${slot}: the last key moves fastest`);
    }
  }
});

test("a value off the grid shows the nearest grid value, in log space for a log control", () => {
  const t = table("sweep");
  const st = { ...defaults("sweep"), sigma: 0.3, band: 0.123 };
  const { at, approx } = lookup(t, st, rules.section("sweep"));
  const sigmas = t.values[t.keys.indexOf("sigma")];
  assert.equal(sigmas[at.sigma], 0.316);
  // each named as the reader reads the control (its label: σ, where the key is sigma)
  const label = (name) => rules.section("sweep").find((c) => c.name === name).label;
  assert.equal(label("sigma"), "σ");
  assert.deepEqual(approx.map(([k, wanted]) => [k, wanted]), [[label("sigma"), 0.3], [label("band"), 0.123]]);
  assert.equal(nearest([1, 10, 100], 30, true), 1, "30 is nearer 10 than 100 in log space");
  assert.equal(nearest([1, 10, 100], 60, false), 2);
});

test("a control the table does not cover is approximate unless at its default", () => {
  const uncovered = (s, x) => !table(s).keys.includes(x.name) && rules.kind(x).url === "number";
  const sid = Object.keys(grids).find((s) => rules.section(s).some((c) => uncovered(s, c)));
  const c = rules.section(sid).find((x) => uncovered(sid, x));
  const off = { ...defaults(sid), [c.name]: c.default === c.hi ? c.lo : c.hi };
  assert.deepEqual(lookup(table(sid), off, rules.section(sid)).approx, [[c.label, off[c.name], c.default]]);
});

test("a preset showing its own numbers reads as the preset alone, as the tables and the URL hold it", () => {
  const fills = rules.fills("savings"), d = defaults("savings");
  const [name, fields] = Object.entries(fills.preset.by).find(([n]) => n !== d.preset);
  assert.deepEqual(asRead(fills, { ...d, preset: name, ...fields }, d), { ...d, preset: name });
  const edited = { ...d, preset: name, ...fields, layers: fields.layers + 1 };
  assert.deepEqual(asRead(fills, edited, d), edited, "numbers of its own are kept");
  assert.deepEqual(lookup(table("savings"), asRead(fills, { ...d, preset: name, ...fields }, d), rules.section("savings")).approx, []);
});

test("the player draws every input form the kinds name, and puts a value back only into a form a link holds", () => {
  const kinds = Object.values(fixture().kinds);
  assert.deepEqual(new Set(Object.keys(FORMS)), new Set(kinds.map((k) => k.input)));
  for (const k of kinds) assert.equal("put" in FORMS[k.input], !!k.url, `${k.input}: put back ${k.url ? "needed" : "never"}`);
});

test("a control's value is taken at its kind's event (state.Kind.event), a slider's while it moves", () => {
  const kinds = Object.values(fixture().kinds), events = ["input", "change"];
  assert.deepEqual(new Set(kinds.map((k) => k.event)), new Set(events), "the rules name both events");
  for (const k of kinds) {
    for (const type of events) {
      const box = { type: k.input === "number" ? "number" : k.input };
      assert.equal(takes(k, box, { type }), type === k.event, `${k.input} box, ${type}`);
      assert.equal(takes(k, { type: "range" }, { type }), type === "input", `a slider, ${type}`);
    }
  }
});
