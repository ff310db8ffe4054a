// site/readout.js's pure functions under `node --test`, against cases CPython wrote (tests/node/readout.json, or the
// file tests/test_readout_js.py writes and passes in WT_READOUT_CASES), read by the rules CPython wrote with them
// (render.readout_rules, the page config's "readout"): render.num's formatting, and render/'s figures (their data
// and each drawn cell, bar, dot or point) mapped back to the cursor, the text the readout shows and its highlight.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import test from "node:test";

import { cursorAt, describe, fit, g, mark, place, shown, start, step, toScreen, toUser } from "../../site/readout.js";
import { root } from "./fixtures.mjs";

const cases = JSON.parse(readFileSync(process.env.WT_READOUT_CASES || resolve(root, "tests", "node", "readout.json"), "utf8"));
const { rules } = cases;
const ROUNDED = 0.06;  // render/ writes coordinates to 0.1 units
const NEAR = 0.5;  // and a figure's data holds its numbers to rules.digits significant figures

test("g and shown write numbers as render.num and render.shown do", () => {
  for (const [x, digits, text] of cases.g) assert.equal(g(x, digits), text, `g(${x}, ${digits})`);
  for (const [v, text] of cases.shown) assert.equal(shown(v, rules), text, `shown(${JSON.stringify(v)})`);
});

test("every drawn cell, bar, dot and point maps to its cursor, the value CPython plotted and a highlight holding it", () => {
  for (const { fig, points } of cases.figures) {
    for (const { at, item, cell, dot, cur, texts } of points) {
      const got = cursorAt(fig, at[0], at[1]);
      assert.deepEqual(got, cur, `${fig.kind} at ${at}`);
      const said = describe(fig, got, rules);
      for (const t of texts) assert.ok(said.includes(t), `${fig.kind} ${JSON.stringify(cur)}: "${said}" lacks "${t}"`);
      const { rect: r, dots } = mark(fig, got, rules), where = `${fig.kind} mark ${JSON.stringify(r)} vs ${item}`;
      const [x, y, w, h] = item;
      assert.ok(r.x - NEAR <= x && x + w <= r.x + r.w + NEAR, where);
      assert.ok(r.y - NEAR <= y && y + h <= r.y + r.h + NEAR, where);
      if (cell) {  // a heatmap's highlight is its cell
        for (const [a, b] of [[r.x, x], [r.y, y], [r.w, w], [r.h, h]]) assert.ok(Math.abs(a - b) <= 2 * ROUNDED, where);
      }
      if (dot) assert.ok(dots.some(([dx, dy]) => Math.abs(dx - dot[0]) <= NEAR && Math.abs(dy - dot[1]) <= NEAR),
                         `${fig.kind} dots ${JSON.stringify(dots)} lack ${dot}`);
    }
  }
});

const heat = { kind: "heatmap", box: [40, 10, 470, 220], x: "σ", xs: [1, 2, 3], y: "inScale", ys: [10, 20],
               z: "v", zs: [[1, 2, 3], [4, 5, "overflow (inf)"]] };
const curve = { kind: "lines", box: [40, 10, 470, 220], x: "step", xs: [0, 5, 10, 15], lo: 0, hi: 3,
                series: [["a", [3, 2, 1, 0]], ["b", [0, 1]]] };

test("off the plot box there is no cursor", () => {
  assert.equal(cursorAt(heat, 39, 100), null);
  assert.equal(cursorAt(heat, 100, 221), null);
  assert.equal(cursorAt(curve, 471, 100), null);
});

test("keys move the cursor within the figure and other keys are left to the page", () => {
  assert.deepEqual(start(heat), { i: 1, j: 1 });
  assert.deepEqual(step(heat, { i: 1, j: 2 }, "ArrowRight"), { i: 1, j: 2 });
  assert.deepEqual(step(heat, { i: 1, j: 2 }, "ArrowDown"), { i: 0, j: 2 });
  assert.deepEqual(step(heat, { i: 1, j: 2 }, "Home"), { i: 1, j: 0 });
  assert.deepEqual(step(curve, { i: 0, j: 0 }, "ArrowLeft"), { i: 0, j: 0 });
  assert.deepEqual(step(curve, { i: 0, j: 0 }, "End"), { i: 3, j: 0 });
  assert.equal(step(curve, { i: 0, j: 0 }, "ArrowUp"), null);
  assert.equal(step(heat, { i: 0, j: 0 }, "a"), null);
});

test("a cursor carried to a redrawn, smaller figure stays on it", () => {
  assert.deepEqual(fit(heat, { i: 7, j: -1 }), { i: 1, j: 0 });
  assert.deepEqual(fit(curve, { i: 9, j: 4 }), { i: 3, j: 0 });
});

test("a series shorter than the axis reads 'none' there, a non-finite cell reads as render.num names it", () => {
  assert.equal(describe(curve, { i: 3, j: 0 }, rules), "step 15: a 0, b none");
  assert.equal(describe(heat, { i: 1, j: 2 }, rules), "σ = 3, inScale = 20: v overflow (inf)");
  assert.equal(mark(curve, { i: 3, j: 0 }, rules).dots.length, 1);
});

test("a flat value range puts a point at the plot's middle height, as render._scale does", () => {
  // render/'s charts always widen their range (render/axes.py _frame), so no figure of CPython's reaches this
  const flat = { ...curve, lo: 2, hi: 2, series: [["a", [2, 2, 2, 2]]] };
  assert.deepEqual(mark(flat, { i: 1, j: 0 }, rules).dots, [[40 + 430 / 3, 115]]);
});

test("screen and viewBox coordinates are inverse", () => {
  const m = { a: 0.75, d: 0.75, e: 12, f: -300 };
  const r = toScreen(m, { x: 40, y: 10, w: 10, h: 20 });
  assert.deepEqual(toUser(m, r.left, r.top), [40, 10]);
  assert.deepEqual(toUser(m, r.right, r.bottom), [50, 30]);
});

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test("the tooltip never covers what it reports and stays in the viewport, on a phone too", () => {
  for (const view of [{ width: 360, height: 640 }, { width: 1280, height: 900 }]) {
    for (const tip of [{ width: 150, height: 40 }, { width: 340, height: 60 }]) {
      for (let x = 0; x < view.width - 20; x += 17) {
        for (let y = 0; y < view.height - 20; y += 23) {
          for (const kind of ["heatmap", "lines", "bars"]) {
            const anchor = { left: x, top: y, right: x + 20, bottom: y + (kind === "bars" ? 5 : 20) };
            const p = place(anchor, tip, view, kind);
            const box = { left: p.left, top: p.top, right: p.left + tip.width, bottom: p.top + tip.height };
            assert.ok(box.left >= 0 && box.right <= view.width && box.top >= 0 && box.bottom <= view.height,
                      `${kind} ${JSON.stringify([anchor, box, view])}`);
            assert.ok(!overlaps(box, anchor), `${kind} covers ${JSON.stringify([anchor, box, view])}`);
          }
        }
      }
    }
  }
});

test("a heatmap's tooltip goes above its cell when there is room, a curve's beside its points", () => {
  const view = { width: 1280, height: 900 }, tip = { width: 150, height: 40 };
  assert.equal(place({ left: 500, top: 400, right: 520, bottom: 420 }, tip, view, "heatmap").side, "above");
  assert.equal(place({ left: 500, top: 20, right: 520, bottom: 40 }, tip, view, "heatmap").side, "below");
  assert.equal(place({ left: 500, top: 400, right: 510, bottom: 500 }, tip, view, "lines").side, "right");
  assert.equal(place({ left: 1200, top: 400, right: 1210, bottom: 500 }, tip, view, "lines").side, "left");
});
