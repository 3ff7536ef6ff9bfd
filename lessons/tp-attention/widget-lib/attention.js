// DOM-free arithmetic of the attention-heads widget: multi-head attention on one device and
// split by heads over N simulated GPUs, on plain arrays (matrices are number[][], row-major).

import { allClose, maxAbsDiff, matMul, addMatrices as add, columns as cols, hasShape } from "widget-kit/matrix.js";
import { attention } from "widget-kit/nn.js";

/** GPU i's shard: the columns of its heads in Wq, Wk, Wv and the same rows of Wo. */
export function shardAttention(Wq, Wk, Wv, Wo, N) {
  const w = Wq.length / N;
  return Array.from({ length: N }, (_, i) => ({
    range: [i * w, (i + 1) * w],
    Wq: cols(Wq, i * w, (i + 1) * w), Wk: cols(Wk, i * w, (i + 1) * w), Wv: cols(Wv, i * w, (i + 1) * w),
    Wo: Wo.slice(i * w, (i + 1) * w),
  }));
}

/**
 * The whole picture: the unsplit attention, and the same layer on N GPUs (nHeads/N heads each),
 * their partial outputs and the all-reduce. Returns {unsplit, gpus: [{heads: [{index, P}],
 * Y}], sum, maxDiff, equal}.
 */
export function tpAttention(X, W, nHeads, N, causal) {
  const unsplit = matMul(attention(X, W.q, W.k, W.v, nHeads, causal)[0], W.o);
  const per = nHeads / N;
  const gpus = shardAttention(W.q, W.k, W.v, W.o, N).map((s, i) => {
    const [O, { P }] = attention(X, s.Wq, s.Wk, s.Wv, per, causal);
    return { heads: P.map((p, k) => ({ index: i * per + k, P: p })), Y: matMul(O, s.Wo), shard: s };
  });
  const sum = gpus.map((g) => g.Y).reduce(add);
  const maxDiff = maxAbsDiff(sum.flat(), unsplit.flat());
  return { unsplit, gpus, sum, maxDiff, equal: allClose(sum, unsplit, 1e-9) };
}

/** Four D×D weight matrices drawn from `seed`, entries of size about 1/√D with two decimals,
 * so the scores stay of order 1 and the heat maps show real patterns. */
export function seededWeights(D, seed) {
  let state = (seed * 2654435761) >>> 0 || 1;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const draw = () => {
    const g = uniform() + uniform() + uniform() - 1.5; // about normal, variance 1/4
    return Math.round((2 * g / Math.sqrt(D)) * 100) / 100;
  };
  const matrix = () => Array.from({ length: D }, () => Array.from({ length: D }, draw));
  return { q: matrix(), k: matrix(), v: matrix(), o: matrix() };
}

/**
 * The learner's answer from "Try with my code": results = [shards, out]. Returns
 * {verdict: "match" | "mismatch" | "bad-shape", got, shardProblem: {gpu, part} | null}.
 * A float32 solution passes the checks, so the comparison allows float32 rounding.
 */
export function compareLearnerAttention(results, reference, N) {
  const [shards, out] = results;
  const T = reference.unsplit.length, D = reference.unsplit[0].length;
  let shardProblem = null;
  if (!Array.isArray(shards) || shards.length !== N) shardProblem = { gpu: null, part: "count" };
  else {
    const want = reference.gpus.map((g) => g.shard);
    for (let i = 0; i < N && !shardProblem; i++) {
      const got = shards[i];
      if (!Array.isArray(got) || got.length !== 4) { shardProblem = { gpu: i, part: "tuple" }; break; }
      const parts = [["Wq", D, D / N], ["Wk", D, D / N], ["Wv", D, D / N], ["Wo", D / N, D]];
      parts.forEach(([name, r, c], k) => {
        if (!shardProblem && !(hasShape(got[k], [r, c]) && allClose(got[k], want[i][name], 1e-5))) shardProblem = { gpu: i, part: name };
      });
    }
  }
  if (!hasShape(out, [T, D])) return { verdict: "bad-shape", got: null, shardProblem };
  return { verdict: allClose(out, reference.unsplit, 1e-5) ? "match" : "mismatch", got: out, shardProblem };
}
