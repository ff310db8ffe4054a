// tests/url_cases.json against site/state.js over the page's rules (tests/node/rules.json, what the build emits): the
// same values, to_query and note counts tests/test_url_cases.py asserts for weighttying.state.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { codec, fill, fmt, quote } from "../../site/state.js";
import { files, rules as fixture, root } from "./fixtures.mjs";

const rules = fixture();
const cases = JSON.parse(readFileSync(resolve(root, "tests", "url_cases.json"), "utf8"));
const c = codec(rules);

function nonDefault(values) {
  return Object.fromEntries(Object.entries(values).filter(([k, v]) => !Object.is(v, c.byKey.get(k).default)));
}

for (const q of cases.queries) {
  test(`query: ${q.why}`, () => {
    const { values, notes } = c.parseQuery(q.query);
    assert.deepEqual(nonDefault(values), q.values);
    assert.equal(c.toQuery(values), q.to_query);
    assert.equal(notes.length, q.notes, notes.join("\n"));
    const again = c.parseQuery(c.toQuery(values));
    assert.equal(c.toQuery(again.values), q.to_query, "what is written reads back the same");
    assert.equal(again.notes.length, 0);
  });
}

for (const f of cases.fills) {
  test(`fill: ${f.why}`, () => {
    const defaults = Object.fromEntries(c.section(f.section).map((ctl) => [ctl.name, ctl.default]));
    assert.deepEqual(fill(rules.fills[f.section], f.values, defaults, f.changed), f.updates);
  });
}

// the notes' words are the same; a bad value is quoted as each language quotes it (repr, JSON)
const quotes = (note) => note && note.replaceAll('"', "'");
for (const v of cases.values) {
  test(`value: ${v.why}`, () => {
    const { value, note } = c.read(v.control, v.raw);
    assert.deepEqual({ value, note: quotes(note) }, { value: v.value, note: quotes(v.note) });
  });
}

test("fmt writes floats as Python's repr does", () => {
  const cases = [[0.25, "0.25"], [1e-5, "1e-05"], [1.5e-7, "1.5e-07"], [1e16, "1e+16"], [1.5e16, "1.5e+16"],
    [123456789012345.6, "123456789012345.6"], [1e21, "1e+21"], [0.0001, "0.0001"], [-2.5e-5, "-2.5e-05"],
    [5, "5"], [true, "1"], [false, "0"], ["fine", "fine"]];
  for (const [x, want] of cases) assert.equal(fmt(x), want, String(x));
});

test("quote escapes as urllib.parse.quote(text, safe=',.-+') does", () => {
  assert.equal(quote("a,b.c-d+e_f~g"), "a,b.c-d+e_f~g");
  assert.equal(quote("x y/z!*'()é"), "x%20y%2Fz%21%2A%27%28%29%C3%A9");
});

test("a value read from a number box is clamped into the control's bounds", () => {
  const V = c.byKey.get("tying.V");
  assert.deepEqual(c.read(V, " 1 ").value, V.lo);
  assert.equal(c.read(V, "abc").value, null);
  assert.match(c.read(V, "abc").note, /^tying\.V=.* is not a whole number; kept /);
});

for (const f of files()) {
  test(`a file: ${f.why}`, () => {
    // state.decoded's characters (Python counts code points) or its words, from the same bytes
    const one = Uint8Array.from(f.hex.match(/../g) || [], (h) => parseInt(h, 16));
    const bytes = new Uint8Array(one.length * f.times);
    for (let i = 0; i < f.times; i += 1) bytes.set(one, i * one.length);
    const { text, problem } = c.decoded(bytes, f.limit);
    assert.deepEqual({ chars: text === null ? null : [...text].length, problem }, { chars: f.chars, problem: f.problem });
  });
}
