// The fg-flow widget's arithmetic, without DOM: the tensor-parallel MLP's forward and backward
// pass for one token on N simulated GPUs, with the backward all-reduce done right or wrong.

import { gelu, geluGrad, shardRange, sumVectors, maxAbsDiff, vecMat, addMatrices } from "widget-kit/matrix.js";

/** What the backward all-reduce (f's) does: right, and the classic ways to get it wrong. */
export const MODES = ["sum", "average", "none", "weights"];

const matVec = (M, x) => M.map((row) => row.reduce((s, v, c) => s + v * x[c], 0));
const outer = (a, b) => a.map((u) => b.map((v) => u * v));
const flat = (M) => M.flat();

/** Largest |difference| between two matrices of one shape. */
export function maxMatrixDiff(P, Q) {
  return maxAbsDiff(flat(P), flat(Q));
}

/** One token through Y = GeLU(XA)B and back, unsplit: the truth to compare against. */
export function unsplit(X, dY, A, B) {
  const Z = vecMat(X, A);
  const H = Z.map(gelu);
  const dZ = matVec(B, dY).map((v, j) => v * geluGrad(Z[j]));
  return { Z, H, Y: vecMat(H, B), dZ, dX: matVec(A, dZ), dA: outer(X, dZ), dB: outer(H, dY) };
}

/**
 * GPU i holds columns shardRange(F, N, i) of A and the same rows of B. Each GPU runs its own
 * forward (Z_i, H_i, Y_i) and backward (dH_i, dZ_i, dX_i, dA_i, dB_i); g's all-reduce adds
 * the Y_i, and `mode` says what f's backward all-reduce does with the dX_i:
 * "sum" (right), "average", "none" (each GPU keeps its own dX_i; GPU 0's is passed on), or
 * "weights" (dX summed, and dA, dB all-reduced too, which they must not be).
 * Returns the GPUs, Y, dX as passed on, the weight gradients each GPU keeps, the unsplit
 * truth, and which results are right.
 */
export function fgFlow(X, dY, A, B, N, mode) {
  const F = A[0].length;
  const gpus = Array.from({ length: N }, (_, i) => {
    const [s, e] = shardRange(F, N, i);
    const A_i = A.map((row) => row.slice(s, e));
    const B_i = B.slice(s, e);
    const Z = vecMat(X, A_i);
    const H = Z.map(gelu);
    const dH = matVec(B_i, dY);
    const dZ = dH.map((v, j) => v * geluGrad(Z[j]));
    return {
      range: [s, e], A_i, B_i, Z, H, Y: vecMat(H, B_i), dH, dZ,
      dX: matVec(A_i, dZ), dA: outer(X, dZ), dB: outer(H, dY),
    };
  });
  const D = X.length;
  const Y = sumVectors(gpus.map((g) => g.Y), D);
  const total = sumVectors(gpus.map((g) => g.dX), D);
  const dX = mode === "average" ? total.map((v) => v / N) : mode === "none" ? gpus[0].dX : total;
  let kept = gpus.map((g) => ({ dA: g.dA, dB: g.dB }));
  if (mode === "weights") {
    // Only possible when every GPU's block has the same shape, which equal shards guarantee.
    const sum = kept.reduce((acc, k) => ({ dA: addMatrices(acc.dA, k.dA), dB: addMatrices(acc.dB, k.dB) }));
    kept = gpus.map(() => sum);
  }
  const truth = unsplit(X, dY, A, B);
  const scale = Math.max(1, ...truth.dX.map(Math.abs), ...flat(truth.dA).map(Math.abs), ...flat(truth.dB).map(Math.abs));
  const close = (d) => d <= 1e-9 * scale;
  const keptOk = kept.map((k, i) => {
    const [s, e] = gpus[i].range;
    return close(maxMatrixDiff(k.dA, truth.dA.map((row) => row.slice(s, e))))
      && close(maxMatrixDiff(k.dB, truth.dB.slice(s, e)));
  });
  return {
    gpus, Y, dX, kept, truth,
    yOk: close(maxAbsDiff(Y, truth.Y)),
    dXOk: close(maxAbsDiff(dX, truth.dX)),
    dXDiff: maxAbsDiff(dX, truth.dX),
    keptOk,
  };
}
