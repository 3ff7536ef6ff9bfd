// A transformer's layers in plain JavaScript, forward and backward, for the widgets that run one
// (tp-attention's heads, tp-transformer's training): LayerNorm and multi-head self-attention.
// DOM-free, so `node --test` checks them (tests/widgets/nn.test.mjs). Matrices are arrays of
// rows. Each forward gives [output, cache]; its backward takes the cache.

import { matMul, addMatrices, transpose, zeros } from "./matrix.js";

/** LayerNorm of every row (population variance, eps inside the root), then × g + b: [Y, cache]. */
export function layerNorm(X, g, b, eps = 1e-5) {
  const rows = [];
  const Y = X.map((row) => {
    const mu = row.reduce((s, v) => s + v, 0) / row.length;
    const inv = 1 / Math.sqrt(row.reduce((s, v) => s + (v - mu) ** 2, 0) / row.length + eps);
    const xhat = row.map((v) => (v - mu) * inv);
    rows.push({ xhat, inv });
    return xhat.map((v, j) => v * g[j] + b[j]);
  });
  return [Y, { rows, g }];
}

/** LayerNorm's backward: [dX, dg, db] for the upstream dY. */
export function layerNormBackward(dY, cache) {
  const D = cache.g.length;
  const dg = new Array(D).fill(0), db = new Array(D).fill(0);
  const dX = dY.map((dy, r) => {
    const { xhat, inv } = cache.rows[r];
    const dxhat = dy.map((v, j) => v * cache.g[j]);
    const m1 = dxhat.reduce((s, v) => s + v, 0) / D;
    const m2 = dxhat.reduce((s, v, j) => s + v * xhat[j], 0) / D;
    dy.forEach((v, j) => { dg[j] += v * xhat[j]; db[j] += v; });
    return dxhat.map((v, j) => inv * (v - m1 - xhat[j] * m2));
  });
  return [dX, dg, db];
}

/**
 * Self-attention of `heads` heads whose Q, K, V columns are Wq, Wk, Wv (each head a contiguous
 * run of width Wq's columns / heads), scores scaled by 1/√(head width) and softmaxed with the row's
 * maximum subtracted (large scores stay finite); with `causal`, token i sees tokens 0…i only.
 * [O (T × width, the heads side by side), cache]; cache.P holds each head's T × T weights
 * (0 where masked).
 */
export function attention(X, Wq, Wk, Wv, heads, causal = true) {
  const T = X.length, width = Wq[0].length, d = width / heads;
  const Q = matMul(X, Wq), K = matMul(X, Wk), V = matMul(X, Wv);
  const O = zeros(T, width), P = [];
  for (let h = 0; h < heads; h++) {
    const s0 = h * d, p = zeros(T, T);
    for (let i = 0; i < T; i++) {
      const seen = causal ? i + 1 : T;
      const s = [];
      let max = -Infinity;
      for (let j = 0; j < seen; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += Q[i][s0 + c] * K[j][s0 + c];
        s.push(dot / Math.sqrt(d));
        max = Math.max(max, s[j]);
      }
      const e = s.map((v) => Math.exp(v - max));
      const sum = e.reduce((a, v) => a + v, 0);
      for (let j = 0; j < seen; j++) {
        p[i][j] = e[j] / sum;
        for (let c = 0; c < d; c++) O[i][s0 + c] += p[i][j] * V[j][s0 + c];
      }
    }
    P.push(p);
  }
  return [O, { X, Q, K, V, P, heads, causal, Wq, Wk, Wv }];
}

/** Attention's backward: [dX, dWq, dWk, dWv] for the upstream dO. */
export function attentionBackward(dO, c) {
  const T = dO.length, width = c.Q[0].length, d = width / c.heads;
  const dQ = zeros(T, width), dK = zeros(T, width), dV = zeros(T, width);
  for (let h = 0; h < c.heads; h++) {
    const s0 = h * d, p = c.P[h];
    for (let i = 0; i < T; i++) {
      const seen = c.causal ? i + 1 : T;
      const dp = [];
      for (let j = 0; j < seen; j++) {
        let dot = 0;
        for (let x = 0; x < d; x++) { dot += dO[i][s0 + x] * c.V[j][s0 + x]; dV[j][s0 + x] += p[i][j] * dO[i][s0 + x]; }
        dp.push(dot);
      }
      const mean = dp.reduce((a, v, j) => a + v * p[i][j], 0);
      for (let j = 0; j < seen; j++) {
        const ds = (p[i][j] * (dp[j] - mean)) / Math.sqrt(d);
        for (let x = 0; x < d; x++) { dQ[i][s0 + x] += ds * c.K[j][s0 + x]; dK[j][s0 + x] += ds * c.Q[i][s0 + x]; }
      }
    }
  }
  const dX = addMatrices(addMatrices(matMul(dQ, transpose(c.Wq)), matMul(dK, transpose(c.Wk))), matMul(dV, transpose(c.Wv)));
  const XT = transpose(c.X);
  return [dX, matMul(XT, dQ), matMul(XT, dK), matMul(XT, dV)];
}
