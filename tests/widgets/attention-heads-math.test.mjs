// The numbers the tp-attention widget shows (lessons/tp-attention/widget-lib/attention.js): the
// lesson's worked example, the split against the unsplit layer for every GPU count, and the
// learner comparison behind "Try with my code".
import test from "node:test";
import assert from "node:assert/strict";

import { tpAttention, seededWeights, shardAttention, compareLearnerAttention } from "../../lessons/tp-attention/widget-lib/attention.js";

const X = [[1, 0, 0, 2], [0, 2, 1, 0], [1, 1, 1, 1]];
const I = [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => (r === c ? 1 : 0)));
const Wo = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]];
const EXAMPLE = { q: I, k: I, v: I, o: Wo };
const round3 = (M) => M.map((row) => row.map((v) => Math.round(v * 1000) / 1000 + 0));

test("the worked example: partials and their sum as in the lesson, token 0 sees only itself", () => {
  const r = tpAttention(X, EXAMPLE, 2, 2, true);
  assert.deepEqual(round3(r.gpus[0].Y), [[1, 0, 1, 0], [0.056, 1.888, 0.056, 1.888], [0.599, 1.203, 0.599, 1.203]]);
  assert.deepEqual(round3(r.gpus[1].Y), [[0, 0, 2, 2], [0.67, 0.67, 0.66, 0.66], [0.599, 0.599, 1.203, 1.203]]);
  assert.deepEqual(round3(r.sum), [[1, 0, 3, 2], [0.726, 2.558, 0.716, 2.549], [1.198, 1.802, 1.802, 2.407]]);
  assert.deepEqual(round3(r.gpus[0].heads[0].P), [[1, 0, 0], [0.056, 0.944, 0], [0.198, 0.401, 0.401]]);
  assert.ok(r.equal);
});

test("without the mask every token attends to every token", () => {
  const r = tpAttention(X, EXAMPLE, 2, 2, false);
  assert.deepEqual(round3(r.unsplit)[0], [1.034, 1.029, 2.525, 2.519]);
  assert.ok(r.gpus[0].heads[0].P[0][2] > 0);
});

test("every divisor of n_heads splits to the unsplit output; heads go to GPUs in contiguous runs", () => {
  const W = seededWeights(8, 3);
  const X8 = [[1, 0, 2, 0, 1, -1, 0, 1], [0, 1, 0, 2, -1, 1, 1, 0], [1, 1, -1, 0, 0, 2, -1, 1], [2, -1, 0, 1, 1, 0, 2, -1]];
  for (const H of [1, 2, 4, 8]) {
    for (const N of [1, 2, 4, 8].filter((n) => H % n === 0)) {
      const r = tpAttention(X8, W, H, N, true);
      assert.ok(r.maxDiff < 1e-12, `H = ${H}, N = ${N}`);
      assert.deepEqual(r.gpus.map((g) => g.heads.map((hd) => hd.index)),
        Array.from({ length: N }, (_, i) => Array.from({ length: H / N }, (_, k) => i * (H / N) + k)));
    }
  }
});

test("the learner comparison names a wrong shard and accepts float32 rounding", () => {
  const W = seededWeights(8, 1);
  const X8 = [[1, 0, 2, 0, 1, -1, 0, 1], [0, 1, 0, 2, -1, 1, 1, 0], [1, 1, -1, 0, 0, 2, -1, 1], [2, -1, 0, 1, 1, 0, 2, -1]];
  const ref = tpAttention(X8, W, 4, 2, true);
  const shards = shardAttention(W.q, W.k, W.v, W.o, 2).map((s) => [s.Wq, s.Wk, s.Wv, s.Wo]);
  const f32 = ref.unsplit.map((row) => row.map((v) => Math.fround(v)));
  assert.deepEqual(compareLearnerAttention([shards, f32], ref, 2), { verdict: "match", got: f32, shardProblem: null });
  const byColumns = shards.map(([q, k, v]) => [q, k, v, W.o.map((row) => row.slice(0, 4))]);
  assert.deepEqual(compareLearnerAttention([byColumns, ref.unsplit], ref, 2).shardProblem, { gpu: 0, part: "Wo" });
  const strided = [0, 1].map((i) => [W.q, W.k, W.v].map((M) => M.map((row) => [0, 1, 4, 5].map((c) => row[c + 2 * i]))).concat([W.o.slice(0, 4)]));
  assert.deepEqual(compareLearnerAttention([strided, ref.unsplit], ref, 2).shardProblem, { gpu: 0, part: "Wq" });
  assert.equal(compareLearnerAttention([shards, [[1, 2]]], ref, 2).verdict, "bad-shape");
});
