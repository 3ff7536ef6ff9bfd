// Unit tests for the widgets' DOM-free arithmetic (web/src/widgets/matrix.js).
// Run: node --test tests/widgets/  (tests/widgets/test_widget_math.py runs this under pytest).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  gelu, relu, parseEntry, formatNumber, formatVector, isShownExactly, vecMat,
  divisors, checkMlpShapes, shardMlp, shardRange, tpMlp, rowSplit, compareLearner, shapeOf, flatten,
} from "../../web/src/widgets/matrix.js";

const X = [1, 2];
const A = [[1, 0, -1, 2], [0, 1, 1, -1]];
const B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const x = [1, 2, -1, 3];
const W = [[2, -1], [1, 2], [3, 0], [-2, 1]];
const fmt = (v) => formatVector(v);

test("gelu is the GPT-2 tanh approximation", () => {
  assert.equal(gelu(0), 0);
  assert.equal(formatNumber(gelu(1)), "0.841");
  assert.equal(formatNumber(gelu(2)), "1.955");
  // tanh form, not erf: the exact GeLU(1) is 0.8413447..., the tanh form 0.8411920...
  assert.ok(Math.abs(gelu(1) - 0.841192) < 1e-6);
  assert.equal(formatNumber(gelu(1) + gelu(1)), "1.682");
});

test("gelu stays finite for huge inputs", () => {
  assert.equal(gelu(1e200), 1e200);
  assert.ok(gelu(-1e200) === 0); // -0 is fine: it prints as "0"
  assert.ok(Number.isFinite(gelu(-40)) && Number.isFinite(gelu(40)));
});

test("relu", () => {
  assert.deepEqual([-2, 0, 3].map(relu), [0, 0, 3]);
});

test("worked example: unsplit numbers", () => {
  const r = tpMlp(X, A, B, 2);
  assert.equal(fmt(r.XA), "(1, 2, 1, 0)");
  assert.equal(fmt(r.H), "(0.841, 1.955, 0.841, 0)");
  assert.equal(fmt(r.Y), "(1.682, 2.796)");
});

test("worked example: each GPU's shard and partial output", () => {
  const r = tpMlp(X, A, B, 2);
  assert.deepEqual(r.gpus[0].range, [0, 2]);
  assert.deepEqual(r.gpus[0].A_i, [[1, 0], [0, 1]]);
  assert.deepEqual(r.gpus[0].B_i, [[1, 0], [0, 1]]);
  assert.equal(fmt(r.gpus[0].H_i), "(0.841, 1.955)");
  assert.equal(fmt(r.gpus[0].Y_i), "(0.841, 1.955)");
  assert.deepEqual(r.gpus[1].A_i, [[-1, 2], [1, -1]]);
  assert.deepEqual(r.gpus[1].B_i, [[1, 1], [2, 0]]);
  assert.equal(fmt(r.gpus[1].H_i), "(0.841, 0)");
  assert.equal(fmt(r.gpus[1].Y_i), "(0.841, 0.841)");
  assert.equal(fmt(r.allReduce), "(1.682, 2.796)");
  assert.equal(r.equal, true);
});

test("any N that divides F gives the unsplit result", () => {
  for (const N of [1, 2, 4]) {
    const r = tpMlp(X, A, B, N);
    assert.equal(r.gpus.length, N);
    assert.equal(r.equal, true, `N=${N}`);
    assert.ok(r.maxDiff < 1e-12);
  }
  const r4 = tpMlp(X, A, B, 4);
  assert.deepEqual(r4.gpus.map((g) => g.range), [[0, 1], [1, 2], [2, 3], [3, 4]]);
});

test("random problems: the split always equals the unsplit product", () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 4 - 2;
  for (let trial = 0; trial < 50; trial++) {
    const D = 1 + (trial % 4), F = 8, N = [1, 2, 4, 8][trial % 4];
    const Xr = Array.from({ length: D }, rand);
    const Ar = Array.from({ length: D }, () => Array.from({ length: F }, rand));
    const Br = Array.from({ length: F }, () => Array.from({ length: D }, rand));
    assert.equal(tpMlp(Xr, Ar, Br, N).equal, true);
  }
});

test("shards are contiguous column/row blocks in GPU order", () => {
  const shards = shardMlp(A, B, 2);
  assert.deepEqual(shards[0], [[[1, 0], [0, 1]], [[1, 0], [0, 1]]]);
  assert.deepEqual(shards[1], [[[-1, 2], [1, -1]], [[1, 1], [2, 0]]]);
  assert.deepEqual(shardRange(12, 3, 2), [8, 12]);
});

test("shape and divisibility problems are reported, not thrown", () => {
  assert.deepEqual(checkMlpShapes(X, A, B, 2), []);
  assert.deepEqual(checkMlpShapes(X, A, B, 3), [{ code: "not-divisible", F: 4, N: 3 }]);
  assert.deepEqual(checkMlpShapes([1, 2, 3], A, B, 2).map((p) => p.code), ["a-rows", "b-cols"]);
  assert.deepEqual(checkMlpShapes(X, A, B.slice(0, 3), 2).map((p) => p.code), ["b-rows"]);
  assert.deepEqual(checkMlpShapes(X, [[1, 2], [3]], [[1, 0], [0, 1]], 1).map((p) => p.code), ["ragged"]);
  assert.deepEqual(checkMlpShapes(X, A, B, 0).map((p) => p.code), ["n-invalid"]);
});

test("divisors", () => {
  assert.deepEqual(divisors(4), [1, 2, 4]);
  assert.deepEqual(divisors(6), [1, 2, 3, 6]);
  assert.deepEqual(divisors(7), [1, 7]);
});

test("row split with ReLU: the source's counterexample", () => {
  const r = rowSplit(x, W, "relu", 2);
  assert.deepEqual(r.partials, [[4, 3], [-9, 3]]);
  assert.deepEqual(r.sum, [-5, 6]);
  assert.deepEqual(r.full, [-5, 6]);
  assert.deepEqual(r.after, [0, 6]);
  assert.deepEqual(r.before, [4, 6]);
  assert.deepEqual(r.differs, [true, false]);
  assert.equal(formatVector(r.partials[1], "[]"), "[\u22129, 3]");
});

test("row split with GeLU disagrees too", () => {
  const r = rowSplit(x, W, "gelu", 2);
  assert.equal(formatVector(r.after, "[]"), "[0, 6]");
  assert.equal(formatVector(r.before, "[]"), "[4, 5.993]");
  assert.deepEqual(r.differs, [true, true]);
});

test("row split: changing the last coordinate can make the orders agree", () => {
  // x[3] = 0: partials [4, 3] and [-3, 0]; sum [1, 3]; ReLU before: [4, 3] + [0, 0] = [4, 3].
  assert.deepEqual(rowSplit([1, 2, -1, 0], W, "relu", 2).differs, [true, false]);
  // x[3] = -1: partials [4, 3] and [-1, -1]; sum [3, 2]; ReLU before: [4, 3]: disagree in both.
  assert.deepEqual(rowSplit([1, 2, -1, -1], W, "relu", 2).differs, [true, true]);
  // No negative partial entries: the orders agree.
  assert.deepEqual(rowSplit([1, 2, 1, 0], W, "relu", 2).differs, [false, false]);
});

test("parseEntry reads numbers the way people type them", () => {
  assert.deepEqual(parseEntry(" 2 "), { ok: true, value: 2 });
  assert.deepEqual(parseEntry("\u22121,5"), { ok: true, value: -1.5 });
  assert.deepEqual(parseEntry("-.5"), { ok: true, value: -0.5 });
  assert.deepEqual(parseEntry("1e-3"), { ok: true, value: 0.001 });
  assert.deepEqual(parseEntry(""), { ok: false, reason: "empty" });
  for (const bad of ["abc", "1..2", "--1", "1e", "0x10", "Infinity", "NaN", "1 2"]) {
    assert.equal(parseEntry(bad).reason, "not-a-number", bad);
  }
  assert.deepEqual(parseEntry("1e400"), { ok: false, reason: "too-large" });
});

test("formatNumber: 3 decimals, real minus, never −0", () => {
  assert.equal(formatNumber(1.68238), "1.682");
  assert.equal(formatNumber(4), "4");
  assert.equal(formatNumber(1.5), "1.5");
  assert.equal(formatNumber(-9), "\u22129");
  assert.equal(formatNumber(-0), "0");
  assert.equal(formatNumber(-0.0001), "0");
  assert.equal(formatNumber(gelu(-5)), "0");
  assert.equal(isShownExactly(4), true);
  assert.equal(isShownExactly(gelu(1)), false);
});

test("vecMat", () => {
  assert.deepEqual(vecMat(x, W), [-5, 6]);
});

test("learner comparison", () => {
  const ref = tpMlp(X, A, B, 2);
  const goodShards = shardMlp(A, B, 2);
  assert.equal(compareLearner([goodShards, ref.Y], ref).verdict, "match");
  assert.equal(compareLearner([goodShards, ref.Y], ref).shardProblem, null);
  // float32 rounding is accepted; one row (1×D) is the same answer as a vector.
  assert.equal(compareLearner([goodShards, [ref.Y.map((v) => Math.fround(v))]], ref).verdict, "match");
  assert.equal(compareLearner([goodShards, [1.682, 2.796]], ref).verdict, "mismatch");
  assert.equal(compareLearner([goodShards, [1, 2, 3]], ref).verdict, "bad-shape");
  assert.equal(compareLearner([goodShards, "oops"], ref).verdict, "bad-shape");
  const swapped = [goodShards[1], goodShards[0]];
  assert.deepEqual(compareLearner([swapped, ref.Y], ref).shardProblem, { gpu: 0, part: "A" });
  const badB = [goodShards[0], [goodShards[1][0], [[2, 0], [1, 1]]]];
  assert.deepEqual(compareLearner([badB, ref.Y], ref).shardProblem, { gpu: 1, part: "B" });
  assert.deepEqual(compareLearner([[goodShards[0]], ref.Y], ref).shardProblem, { gpu: null, part: "count" });
});

test("shapeOf and flatten", () => {
  assert.deepEqual(shapeOf([[1, 2], [3, 4]]), [2, 2]);
  assert.equal(shapeOf([[1, 2], [3]]), null);
  assert.deepEqual(flatten([[1, 2], [3]]), [1, 2, 3]);
  assert.equal(flatten([1, "2"]), null);
  assert.equal(flatten([1, null]), null);
});
