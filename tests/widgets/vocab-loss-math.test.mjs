// The numbers the vocab-parallel widget shows (lessons/vocab-parallel/widget-lib/vocab-loss-math.js):
// the lesson's worked example, step by step, and the classic local-max mistake.
import test from "node:test";
import assert from "node:assert/strict";

import { vocabParallelLoss, vocabRange, ownerOf, parseTarget } from "../../lessons/vocab-parallel/widget-lib/vocab-loss-math.js";

const Z = [[1, 3, 0, 2, 4, 1, 0, 2], [0, 5, 1, 2, 1, 0, 2, 1]];
const round3 = (values) => values.map((v) => Math.round(v * 1000) / 1000);

test("the worked example: m = (4, 5), s ≈ (1.775, 1.168), target logits (3, 2), losses ≈ (1.574, 3.155)", () => {
  const r = vocabParallelLoss(Z, [1, 6], 2);
  assert.deepEqual(r.gpus.map((g) => g.localMax), [[3, 5], [4, 2]]);
  assert.deepEqual(r.m, [4, 5]);
  assert.deepEqual(r.gpus.map((g) => round3(g.localSum)), [[0.571, 1.075], [1.203, 0.093]]);
  assert.deepEqual(round3(r.s), [1.775, 1.168]);
  assert.deepEqual(r.gpus.map((g) => g.targetPart), [[3, 0], [0, 2]]);
  assert.deepEqual(round3(r.loss), [1.574, 3.155]);
  assert.deepEqual(round3(r.fullLoss), [1.574, 3.155]);
});

test("any GPU count gives the full-row loss; the local-max switch does not", () => {
  for (const n of [1, 2, 4, 8]) {
    const r = vocabParallelLoss(Z, [1, 6], n);
    r.loss.forEach((v, t) => assert.ok(Math.abs(v - r.fullLoss[t]) < 1e-12, `n = ${n}`));
  }
  assert.deepEqual(round3(vocabParallelLoss(Z, [1, 6], 2, { localMaxOnly: true }).loss), [2.014, 4.08]);
  assert.deepEqual(round3(vocabParallelLoss(Z, [1, 6], 1, { localMaxOnly: true }).loss), [1.574, 3.155]);
});

test("logits of magnitude 1e3 stay finite", () => {
  const r = vocabParallelLoss([[1000, -1000, 999, 0]], [2], 2);
  assert.ok(Number.isFinite(r.loss[0]) && Math.abs(r.loss[0] - r.fullLoss[0]) < 1e-9);
});

test("ranges, owners and targets as typed", () => {
  assert.deepEqual(vocabRange(8, 1, 2), { start: 4, end: 8 });
  assert.deepEqual([0, 3, 4, 7].map((v) => ownerOf(v, 8, 4)), [0, 1, 2, 3]);
  assert.deepEqual(parseTarget(" 6 ", 8), { ok: true, value: 6 });
  assert.deepEqual(["", "8", "1.5", "-1", "x"].map((s) => parseTarget(s, 8).reason), ["empty", "range", "range", "range", "range"]);
});
