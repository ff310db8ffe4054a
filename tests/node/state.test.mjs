// tests/url_cases.json against site/state.js over the page's rules (tests/node/rules.json, what the build emits): the
// same values, to_query and note counts tests/test_url_cases.py asserts for weighttying.state. V8 counts the blocks
// of state.js these cases run (state.js is loaded after the count starts): the last test asks that every one ran,
// so the rules that run in both languages have no branch the shared cases miss.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { files, rules as fixture, root } from "./fixtures.mjs";

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
const stateUrl = pathToFileURL(resolve(root, "site", "state.js")).href;
const { Codec, fill, fmt, quote } = await import(stateUrl);

const rules = fixture();
const cases = JSON.parse(readFileSync(resolve(root, "tests", "url_cases.json"), "utf8"));
const c = new Codec(rules);

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
    const defaults = f.defaults || Object.fromEntries(c.section(f.section).map((ctl) => [ctl.name, ctl.default]));
    assert.deepEqual(fill(f.fills || c.fills(f.section), f.values, defaults, f.changed), f.updates);
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

for (const f of cases.fmt) {
  test(`fmt: ${f.why}`, () => assert.equal(fmt(f.x), f.to));
}

for (const q of cases.quote) {
  test(`quote: ${q.why}`, () => assert.equal(quote(q.text, rules.url_keeps), q.to));
}

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

test("the shared cases run every block of state.js", async () => {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const text = readFileSync(resolve(root, "site", "state.js"), "utf8");
  const line = (offset) => text.slice(0, offset).split("\n").length;
  const missed = result.find((script) => script.url === stateUrl).functions
    .flatMap((f) => f.ranges.filter((r) => r.count === 0).map((r) => `line ${line(r.startOffset)}: ${text.slice(r.startOffset, r.startOffset + 60)}`));
  assert.deepEqual(missed, []);
});

