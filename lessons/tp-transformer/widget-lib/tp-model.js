// A tiny pre-LN transformer block stack on n simulated GPUs, in plain JavaScript, for the
// widgets: the same math as the lesson (shards, f and g, sequence parallelism, SGD), with every
// collective counted. Matrices are arrays of rows.

import { matMul as matmul, addMatrices as add, columns as cols, rows as rowsOf, chunkRows as chunks, transpose as T_, gelu, geluGrad } from "widget-kit/matrix.js";
import { attention, attentionBackward, layerNorm, layerNormBackward } from "widget-kit/nn.js";

const scale = (A, s) => A.map((row) => row.map((v) => v * s));
const copy = (M) => (Array.isArray(M[0]) ? M.map((row) => row.slice()) : M.slice());

const LN = ["ln1_g", "ln1_b", "ln2_g", "ln2_b"];

/** Rank i's shard: contiguous heads of Wq, Wk, Wv (columns) and Wo (rows), blocks of A and B. */
export function shardBlock(p, n, heads) {
  const D = p.Wq.length, F = p.A[0].length, w = (D / heads) * (heads / n), f = F / n;
  return Array.from({ length: n }, (_, i) => ({
    ...Object.fromEntries(LN.map((k) => [k, p[k].slice()])),
    Wq: cols(p.Wq, i * w, (i + 1) * w), Wk: cols(p.Wk, i * w, (i + 1) * w), Wv: cols(p.Wv, i * w, (i + 1) * w),
    Wo: rowsOf(p.Wo, i * w, (i + 1) * w), A: cols(p.A, i * f, (i + 1) * f), B: rowsOf(p.B, i * f, (i + 1) * f),
  }));
}

/** One block on shards.length ranks: X per rank (whole copies, or row chunks with sp).
 *  Returns {Z, backward(dZ) -> {dX, grads}}; `counts` collects the collectives. */
export function blockForward(X, shards, heads, sp, counts) {
  const n = shards.length, k = heads / n;
  const count = (op) => { counts[op] = (counts[op] ?? 0) + 1; };
  const sum = (parts) => parts.slice(1).reduce(add, parts[0]);
  const g = (parts) => { count(sp ? "reduce_scatter" : "all_reduce"); const s = sum(parts); return sp ? chunks(s, n) : parts.map(() => copy(s)); };
  const f = (xs) => { if (!sp) return xs; count("all_gather"); const whole = [].concat(...xs); return xs.map(() => copy(whole)); };
  const ln1 = X.map((x, i) => layerNorm(x, shards[i].ln1_g, shards[i].ln1_b));
  const H = f(ln1.map(([y]) => y));
  const att = H.map((h, i) => attention(h, shards[i].Wq, shards[i].Wk, shards[i].Wv, k));
  const Y = g(att.map(([O], i) => matmul(O, shards[i].Wo))).map((a, i) => add(X[i], a));
  const ln2 = Y.map((y, i) => layerNorm(y, shards[i].ln2_g, shards[i].ln2_b));
  const H2 = f(ln2.map(([y]) => y));
  const U = H2.map((h, i) => matmul(h, shards[i].A));
  const G = U.map((u) => u.map((row) => row.map(gelu)));
  const Z = g(G.map((gg, i) => matmul(gg, shards[i].B))).map((m, i) => add(Y[i], m));

  function backward(dZ) {
    // g's backward: identity (all-gather with sp); f's backward: all-reduce (reduce-scatter).
    const gB = (d) => f(d);
    const fB = (parts) => g(parts);
    const grads = shards.map(() => ({}));
    const dZf = gB(dZ);
    const H2b = sp ? f(ln2.map(([y]) => y)) : H2;  // with sp the LayerNorm rows are gathered again
    const dH2 = fB(shards.map((s, i) => {
      grads[i].B = matmul(T_(G[i]), dZf[i]);
      const dU = matmul(dZf[i], T_(s.B)).map((row, r) => row.map((v, c) => v * geluGrad(U[i][r][c])));
      grads[i].A = matmul(T_(H2b[i]), dU);
      return matmul(dU, T_(s.A));
    }));
    const dY = dH2.map((d, i) => { const [dx, dg, db] = layerNormBackward(d, ln2[i][1]); grads[i].ln2_g = dg; grads[i].ln2_b = db; return add(dZ[i], dx); });
    const dYf = gB(dY);
    if (sp) f(ln1.map(([y]) => y));
    const dH = fB(shards.map((s, i) => {
      grads[i].Wo = matmul(T_(att[i][0]), dYf[i]);
      const [dh, dq, dk, dv] = attentionBackward(matmul(dYf[i], T_(s.Wo)), att[i][1]);
      Object.assign(grads[i], { Wq: dq, Wk: dk, Wv: dv });
      return dh;
    }));
    const dX = dH.map((d, i) => { const [dx, dg, db] = layerNormBackward(d, ln1[i][1]); grads[i].ln1_g = dg; grads[i].ln1_b = db; return add(dY[i], dx); });
    if (sp) {
      count("all_reduce");
      for (const key of LN) {
        const total = grads.map((gr) => gr[key]).reduce((a, b) => a.map((v, j) => v + b[j]));
        grads.forEach((gr) => { gr[key] = total.slice(); });
      }
    }
    return { dX, grads };
  }
  return { Z, backward };
}

/** SGD on blocks sharded over n ranks: {losses, counts}. n = 1 is one device. */
export function train(blocks, X, target, n, heads, steps, lr, sp) {
  const counts = {};
  const shards = blocks.map((p) => shardBlock(p, n, heads));
  const T = X.length, D = X[0].length;
  const layout = (M) => (sp ? chunks(M, n) : Array.from({ length: n }, () => copy(M)));
  const Xs = layout(X), ts = layout(target);
  const losses = [];
  for (let step = 0; step < steps; step++) {
    let Z = Xs;
    const runs = shards.map((s) => { const run = blockForward(Z, s, heads, sp, counts); Z = run.Z; return run; });
    const parts = Z.map((z, i) => z.reduce((a, row, r) => a + row.reduce((b, v, c) => b + 0.5 * (v - ts[i][r][c]) ** 2, 0), 0) / (T * D));
    if (sp) counts.all_reduce = (counts.all_reduce ?? 0) + 1;
    losses.push(sp ? parts.reduce((a, v) => a + v, 0) : parts[0]);
    let dZ = Z.map((z, i) => scale(add(z, scale(ts[i], -1)), 1 / (T * D)));
    for (let b = runs.length - 1; b >= 0; b--) {
      const { dX, grads } = runs[b].backward(dZ);
      dZ = dX;
      shards[b].forEach((s, i) => {
        for (const key of Object.keys(s)) {
          const gk = grads[i][key];
          s[key] = Array.isArray(s[key][0]) ? s[key].map((row, r) => row.map((v, c) => v - lr * gk[r][c])) : s[key].map((v, j) => v - lr * gk[j]);
        }
      });
    }
  }
  return { losses, counts };
}

/** A deterministic random problem: L blocks of width D (weights ~ N(0, 0.25/fan_in)), X, target. */
export function randomProblem(seed, { L = 2, T = 4, D = 4, F = 8 } = {}) {
  let s = seed >>> 0 || 1;
  const uniform = () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  const mat = (r, c, sd) => Array.from({ length: r }, () => Array.from({ length: c }, () => sd * normal()));
  const vec = (m, sd) => Array.from({ length: D }, () => m + sd * normal());
  const blocks = Array.from({ length: L }, () => ({
    ln1_g: vec(1, 0.2), ln1_b: vec(0, 0.2), Wq: mat(D, D, 0.5 / Math.sqrt(D)), Wk: mat(D, D, 0.5 / Math.sqrt(D)),
    Wv: mat(D, D, 0.5 / Math.sqrt(D)), Wo: mat(D, D, 0.5 / Math.sqrt(D)), ln2_g: vec(1, 0.2), ln2_b: vec(0, 0.2),
    A: mat(D, F, 0.5 / Math.sqrt(D)), B: mat(F, D, 0.5 / Math.sqrt(F)),
  }));
  return { blocks, X: mat(T, D, 1), target: mat(T, D, 1) };
}

/** A count of collectives as PyTorch's CommDebugMode prints it: "{all_reduce: 2}", in the order `ops`. */
export const countText = (c, ops = Object.keys(c)) => "{" + ops.filter((op) => c[op]).map((op) => `${op}: ${c[op]}`).join(", ") + "}";

/** Collectives for PyTorch's test model (L layers, embeddings, output layer). */
export function pytorchCounts(L, sp) {
  // test_tp_examples.py's Transformer: token and position embeddings (row-wise), separate
  // wq/wk/wv (column-wise), wo and w2 row-wise, the output layer column-wise.
  return sp ? { forward: { reduce_scatter: 2 * L + 2, all_gather: 2 * L + 2 }, backward: { reduce_scatter: 2 * L + 1, all_gather: 2 * L + 2 } }
    : { forward: { all_reduce: 2 * L + 2, all_gather: 1 }, backward: { all_reduce: 4 * L + 1 } };
}
