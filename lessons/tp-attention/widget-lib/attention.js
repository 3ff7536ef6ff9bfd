// DOM-free arithmetic of the attention-heads widget: multi-head attention on one device and
// split by heads over N simulated GPUs, on plain arrays (matrices are number[][], row-major).

import { maxAbsDiff, matMul, addMatrices as add, columns as cols } from "widget-kit/matrix.js";

/** Each row's softmax, masked entries (null) getting weight 0; the row maximum is subtracted
 * first so that large scores cannot overflow. */
export function softmaxRows(S) {
  return S.map((row) => {
    const kept = row.filter((v) => v !== null);
    const top = Math.max(...kept);
    const e = row.map((v) => (v === null ? 0 : Math.exp(v - top)));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  });
}

/** One head: its weights P (T×T) and output O = P V_h (T×d_head). With `causal`, token t
 * attends to tokens 0 … t only. */
export function head(Qh, Kh, Vh, causal) {
  const scale = 1 / Math.sqrt(Qh[0].length);
  const S = Qh.map((q, t) => Kh.map((k, s) => (causal && s > t ? null : scale * q.reduce((a, v, j) => a + v * k[j], 0))));
  const P = softmaxRows(S);
  return { P, O: matMul(P, Vh) };
}

/** The heads of one device (or GPU) whose Q, K, V columns are Wq, Wk, Wv: `count` heads, each
 * of width Wq's columns / count. Returns {heads: [{P, O}], concat (T × width)}. */
function runHeads(X, Wq, Wk, Wv, count, causal) {
  const Q = matMul(X, Wq), K = matMul(X, Wk), V = matMul(X, Wv);
  const d = Q[0].length / count;
  const heads = [];
  for (let h = 0; h < count; h++) heads.push(head(cols(Q, h * d, (h + 1) * d), cols(K, h * d, (h + 1) * d), cols(V, h * d, (h + 1) * d), causal));
  const concat = X.map((_, t) => heads.flatMap((hd) => hd.O[t]));
  return { heads, concat };
}

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
 * their partial outputs and the all-reduce. Returns {unsplit, gpus: [{heads: [{index, P, O}],
 * Y}], sum, maxDiff, equal}.
 */
export function tpAttention(X, W, nHeads, N, causal) {
  const unsplit = matMul(runHeads(X, W.q, W.k, W.v, nHeads, causal).concat, W.o);
  const per = nHeads / N;
  const gpus = shardAttention(W.q, W.k, W.v, W.o, N).map((s, i) => {
    const { heads, concat } = runHeads(X, s.Wq, s.Wk, s.Wv, per, causal);
    return { heads: heads.map((hd, k) => ({ index: i * per + k, ...hd })), Y: matMul(concat, s.Wo), shard: s };
  });
  const sum = gpus.map((g) => g.Y).reduce(add);
  const maxDiff = maxAbsDiff(sum.flat(), unsplit.flat());
  return { unsplit, gpus, sum, maxDiff, equal: maxDiff <= 1e-9 * Math.max(1, ...unsplit.flat().map(Math.abs)) };
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
  const isMatrix = (M, r, c) => Array.isArray(M) && M.length === r && M.every((row) => Array.isArray(row) && row.length === c && row.every((v) => typeof v === "number" && Number.isFinite(v)));
  const close = (a, b) => maxAbsDiff(a.flat(), b.flat()) <= 1e-5 * Math.max(1, ...b.flat().map(Math.abs));
  let shardProblem = null;
  if (!Array.isArray(shards) || shards.length !== N) shardProblem = { gpu: null, part: "count" };
  else {
    const want = reference.gpus.map((g) => g.shard);
    for (let i = 0; i < N && !shardProblem; i++) {
      const got = shards[i];
      if (!Array.isArray(got) || got.length !== 4) { shardProblem = { gpu: i, part: "tuple" }; break; }
      const parts = [["Wq", D, D / N], ["Wk", D, D / N], ["Wv", D, D / N], ["Wo", D / N, D]];
      parts.forEach(([name, r, c], k) => {
        if (!shardProblem && !(isMatrix(got[k], r, c) && close(got[k], want[i][name]))) shardProblem = { gpu: i, part: name };
      });
    }
  }
  if (!isMatrix(out, T, D)) return { verdict: "bad-shape", got: null, shardProblem };
  return { verdict: close(out, reference.unsplit) ? "match" : "mismatch", got: out, shardProblem };
}
