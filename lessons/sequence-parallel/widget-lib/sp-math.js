// The lesson's arithmetic in JavaScript, DOM-free: the sequence-parallel MLP block stage by stage
// and the paper's activation-memory formula. Both widgets import it; Node tests can too.

import { gelu, matMul as matmul, addMatrices as addM, chunkRows } from "widget-kit/matrix.js";
import { layerNorm } from "widget-kit/nn.js";

export const GIB = 2 ** 30;

/**
 * The sequence-parallel MLP block on n GPUs, every stage kept for display. X is T × D, A is D × F,
 * B is F × D; T and F are divisible by n. Returns {gpus: [{X, Z_own, Z, A, B, P, chunk, out}],
 * outputs, unsplit, maxDiff}.
 */
export function spMlpBlock(X, gamma, beta, A, B, n) {
  const F = A[0].length;
  const w = F / n;
  const Xc = chunkRows(X, n);
  const Zown = Xc.map((Xi) => layerNorm(Xi, gamma, beta)[0]); // on each GPU: its own rows only
  const Z = Zown.flat(); // the all-gather: every GPU now holds all T normalised rows
  const gpus = Xc.map((Xi, i) => {
    const Ai = A.map((row) => row.slice(i * w, (i + 1) * w));
    const Bi = B.slice(i * w, (i + 1) * w);
    const P = matmul(matmul(Z, Ai).map((row) => row.map(gelu)), Bi);
    return { X: Xi, Z_own: Zown[i], Z, A: Ai, B: Bi, P };
  });
  const sum = gpus.map((g) => g.P).reduce(addM);
  chunkRows(sum, n).forEach((chunk, i) => {
    gpus[i].chunk = chunk; // the reduce-scatter
    gpus[i].out = addM(chunk, Xc[i]); // the residual, once, where the rows live
  });
  const unsplit = addM(X, matmul(matmul(layerNorm(X, gamma, beta)[0], A).map((row) => row.map(gelu)), B));
  const outputs = gpus.map((g) => g.out);
  const flat = outputs.flat();
  const maxDiff = Math.max(0, ...flat.flatMap((row, r) => row.map((v, c) => Math.abs(v - unsplit[r][c]))));
  return { gpus, outputs, unsplit, maxDiff };
}

/** Bytes of activations per layer per GPU (fp16), Korthikanti et al. (2022). */
export function activationBytes(s, b, h, a, t = 1, sp = false, recompute = "none") {
  if (recompute !== "none" && recompute !== "selective") throw new Error(`recompute ${recompute}`);
  let perToken = sp ? 34 / t : 10 + 24 / t;
  if (recompute === "none") perToken += (5 * a * s) / (h * t);
  return s * b * h * perToken;
}

/** The five configurations the lesson compares, in order. */
export const CONFIGS = [
  { key: "one", t: 1, sp: false, recompute: "none" },
  { key: "tp", sp: false, recompute: "none" },
  { key: "tp-sp", sp: true, recompute: "none" },
  { key: "tp-sel", sp: false, recompute: "selective" },
  { key: "tp-sp-sel", sp: true, recompute: "selective" },
];

/**
 * Bytes each GPU sends per layer for the block's communication, in fp16 (2 bytes a value), with
 * ring collectives: an all-reduce of a T × h activation sends 2(t−1)/t of it; a reduce-scatter
 * and an all-gather send (t−1)/t each. Forward: two of them per layer (attention and MLP).
 */
export function commBytes(s, b, h, t, sp) {
  const payload = 2 * s * b * h;
  const share = (t - 1) / t;
  const perBlock = sp ? { reduceScatter: share * payload, allGather: share * payload } : { allReduce: 2 * share * payload };
  const total = 2 * Object.values(perBlock).reduce((x, y) => x + y, 0);
  return { perBlock, total };
}
