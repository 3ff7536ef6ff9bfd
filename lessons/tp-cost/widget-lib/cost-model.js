// The lesson's alpha-beta cost model in JavaScript, the same formulas as reference.py (the
// lesson's tests run both on the same numbers), and the numbers of Megatron-LM's appendix D.2.

export const GB = 1e9; // GB/s means 10⁹ bytes per second

/** Bytes each GPU sends in a ring all-reduce of sizeBytes over n GPUs. */
export function ringAllreduceBytes(sizeBytes, n) {
  return (2 * (n - 1) / n) * sizeBytes;
}

/** Seconds of that all-reduce: 2(n−1) latencies plus the ring's bytes at busGBps. */
export function allreduceSeconds(sizeBytes, n, busGBps, latencyS = 0) {
  if (n === 1) return 0;
  return 2 * (n - 1) * latencyS + ringAllreduceBytes(sizeBytes, n) / (busGBps * GB);
}

/** Forward FLOPs of one transformer layer. */
export function layerFlops(b, s, h) {
  return 24 * b * s * h * h + 4 * b * s * s * h;
}

/** One layer's training step on t GPUs: 3 forwards split t ways, then 4 all-reduces. */
export function tpLayerSeconds(b, s, h, t, gpuFlops, busGBps, latencyS = 0, bytesPerElem = 2) {
  return (3 * layerFlops(b, s, h)) / (t * gpuFlops) + 4 * allreduceSeconds(b * s * h * bytesPerElem, t, busGBps, latencyS);
}

/** The bandwidth a group of t GPUs all-reduces at: intra-server while it fits in one. */
export function busFor(t, { gpusPerNode, intraGBps, interGBps }) {
  return t <= gpusPerNode ? intraGBps : interGBps;
}

export const DEGREES = [1, 2, 4, 8, 16, 32, 64];

/**
 * The curve for one configuration {b, s, h, gpuFlops, intraGBps, interGBps, gpusPerNode,
 * latencyS}: for each t in DEGREES its bandwidth, step seconds, speedup and efficiency, and
 * the best t (shortest step; ties to the smaller t).
 */
export function scaling(cfg) {
  const one = tpLayerSeconds(cfg.b, cfg.s, cfg.h, 1, cfg.gpuFlops, busFor(1, cfg), cfg.latencyS);
  const rows = DEGREES.map((t) => {
    const bus = busFor(t, cfg);
    const seconds = tpLayerSeconds(cfg.b, cfg.s, cfg.h, t, cfg.gpuFlops, bus, cfg.latencyS);
    return { t, bus, seconds, speedup: one / seconds, efficiency: one / seconds / t };
  });
  let best = rows[0];
  for (const row of rows) if (row.seconds < best.seconds) best = row;
  return { rows, best };
}

// Megatron-LM (Shoeybi et al. 2019): Table 1's 1.2B model (h = 1536, s = 1024) at batch 8, a
// V100 at the 39 TFLOP/s the paper's one-GPU baseline sustains, DGX-2H servers of 16 GPUs with
// 300 GB/s NVSwitch inside and 100 GB/s of InfiniBand per server between (6.25 GB/s per GPU).
export const D2_CONFIG = { b: 8, s: 1024, h: 1536, gpuFlops: 39e12, intraGBps: 300, interGBps: 6.25, gpusPerNode: 16, latencyS: 0 };

// Appendix D.2, Table 8: measured strong-scaling speedups of that model.
export const D2_MEASURED = [
  { t: 1, speedup: 1.0 },
  { t: 2, speedup: 1.64 },
  { t: 4, speedup: 2.34 },
  { t: 8, speedup: 2.98 },
];
