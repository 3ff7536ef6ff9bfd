// Unit tests for the kit's DOM-free pieces that every widget's verdicts and steps rest on:
// closeTo, allClose, hasShape, geluGrad, zeros, transpose, chunkRows (matrix.js), formatExponent (i18n.js),
// heightFor (plot.js), resizeTexts (grid.js), clampStep (controls.js), and tryMine's run bookkeeping (try-mine.js:
// start, last, resultsFor), with a fake runner in place of the page's Python.
import { test } from "node:test";
import assert from "node:assert/strict";
import { allClose, closeTo, chunkRows, gelu, geluGrad, hasShape, transpose, zeros } from "../../web/src/widgets/matrix.js";
import { clampStep } from "../../web/src/widgets/controls.js";
import { formatExponent } from "../../web/src/widgets/i18n.js";
import { heightFor } from "../../web/src/widgets/plot.js";
import { resizeTexts } from "../../web/src/widgets/grid.js";
import { tryMine } from "../../web/src/widgets/try-mine.js";

test("closeTo is relative to the wanted number, with a floor near zero", () => {
  assert.ok(closeTo(1.682 + 1e-7, 1.682));
  assert.ok(!closeTo(1.682 + 1e-5, 1.682));
  assert.ok(closeTo(1e9 + 100, 1e9));             // relative: 1e-7 of a billion
  assert.ok(closeTo(5e-7, 0));                     // floor 1: absolute near zero
  assert.ok(!closeTo(5e-7, 0, 1e-6, 0));           // floor 0: only exactly zero
  assert.ok(!closeTo("nan", 1) && !closeTo([1], 1) && !closeTo(NaN, NaN));
});

test("allClose is relative to the wanted numbers' largest magnitude, never tighter than rel itself", () => {
  assert.ok(allClose([[1000, 2]], [[1000.004, 2]], 1e-5));           // 4e-3 within 1e-5 of 1000
  assert.ok(!allClose([[1, 2]], [[1, 2.0001]], 1e-5));
  assert.ok(allClose([5e-6, 0], [0, 0], 1e-5) && !allClose([2e-5], [0], 1e-5)); // near zero: absolute rel
  assert.ok(!allClose([NaN], [1], 1e-5));
});

test("hasShape: a learner's result is numbers of exactly the shape asked for", () => {
  assert.ok(hasShape([[1, 2], [3, 4], [5, 6]], [3, 2]) && hasShape([1.5, -2], [2]) && hasShape(7, []));
  assert.ok(!hasShape([[1, 2], [3]], [2, 2]));                  // ragged
  assert.ok(!hasShape([[1, 2]], [2, 2]) && !hasShape([1, 2], [1, 2])); // too few rows; a vector is not a row
  assert.ok(!hasShape([1, "nan"], [2]) && !hasShape(null, [2]));  // NaN comes back as a string
});

test("geluGrad is GeLU's derivative; zeros, transpose and chunkRows lay out matrices", () => {
  for (const x of [-3, -0.5, 0, 0.7, 2.5]) assert.ok(Math.abs(geluGrad(x) - (gelu(x + 1e-6) - gelu(x - 1e-6)) / 2e-6) < 1e-8, `x = ${x}`);
  assert.deepEqual(zeros(2, 3), [[0, 0, 0], [0, 0, 0]]);
  assert.deepEqual(transpose([[1, 2, 3], [4, 5, 6]]), [[1, 4], [2, 5], [3, 6]]);
  assert.deepEqual(chunkRows([[1], [2], [3], [4]], 2), [[[1], [2]], [[3], [4]]]);
});

test("formatExponent writes a rounding difference the language's way; heightFor keeps a plot readable", () => {
  assert.deepEqual([formatExponent("en", 1.7e-16), formatExponent("pl", 1.7e-16), formatExponent("pl", 3.14159e-12, 2), formatExponent("en", 0)],
    ["1.7e-16", "1,7e-16", "3,14e-12", "0"]);
  assert.deepEqual([heightFor(300, 220), heightFor(500, 220), heightFor(640, 200)], [220, 250, 280]);
});

test("resizeTexts keeps what overlaps and fills the new entries", () => {
  const typed = [["1", "x"], ["3", "4"]];
  assert.deepEqual(resizeTexts(typed, 1, 3), [["1", "x", "0"]]);
  assert.deepEqual(resizeTexts(typed, 3, 2, (r, c) => `${r}${c}`), [["1", "x"], ["3", "4"], ["20", "21"]]);
});

test("clampStep keeps a step within 1…last", () => {
  assert.deepEqual([0, 1, 3, 4, 9].map((s) => clampStep(s, 4)), [1, 1, 3, 4, 4]);
});

test("tryMine keeps the last run and gives its results only for the numbers it ran on", async () => {
  let changes = 0;
  const seen = [];
  const mine = tryMine({ run: async (calls) => { seen.push(calls); return { ok: true, results: [[1.682, 2.796]], stdout: "" }; }, t: () => "", onChange: () => changes++ });
  assert.equal(mine.resultsFor("k"), null);
  await mine.start("k", [{ fn: "f", args: [1] }], { reference: 7 });
  assert.deepEqual(seen, [[{ fn: "f", args: [1] }]]);
  assert.equal(changes, 2);                                   // once when it starts, once when it ends
  assert.deepEqual(mine.resultsFor("k"), [[1.682, 2.796]]);
  assert.equal(mine.resultsFor("other numbers"), null);
  assert.equal(mine.last.reference, 7);
  await mine.start(null, []);                                 // unreadable numbers: nothing runs
  assert.equal(seen.length, 1);
});

test("a run that fails keeps its message and gives no results", async () => {
  const mine = tryMine({ run: async () => ({ ok: false, message: "line 3: NameError" }), t: () => "", onChange: () => {} });
  await mine.start("k", []);
  assert.equal(mine.last.status, "error");
  assert.equal(mine.last.message, "line 3: NameError");
  assert.equal(mine.resultsFor("k"), null);
});
