// The vocabulary-parallel cross-entropy step by step, DOM-free (the widget shows these numbers).
// z: T rows of V logits; targets: T ids; n GPUs, GPU i owning ids [i·V/n, (i+1)·V/n).

/** {start, end} of GPU i, end exclusive. */
export function vocabRange(V, i, n) {
  const size = V / n;
  return { start: i * size, end: (i + 1) * size };
}

/** The GPU that owns id v. */
export const ownerOf = (v, V, n) => Math.floor(v / (V / n));

/**
 * Every intermediate of the three all-reduces. `localMaxOnly`: the classic mistake, each GPU
 * sums exp(z − its own max) and the sums are added without rescaling.
 * Returns {gpus: [{start, end, localMax[t], localSum[t], targetPart[t]}], m[t], s[t],
 *          zTarget[t], loss[t], fullLoss[t]}.
 */
export function vocabParallelLoss(z, targets, n, { localMaxOnly = false } = {}) {
  const V = z[0].length;
  const gpus = Array.from({ length: n }, (_, i) => {
    const { start, end } = vocabRange(V, i, n);
    const slice = z.map((row) => row.slice(start, end));
    return { start, end, slice, localMax: slice.map((row) => Math.max(...row)) };
  });
  const m = z.map((_, t) => Math.max(...gpus.map((g) => g.localMax[t])));          // all-reduce MAX
  for (const g of gpus) {
    g.localSum = g.slice.map((row, t) => {
      const ref = localMaxOnly ? g.localMax[t] : m[t];
      return row.reduce((acc, v) => acc + Math.exp(v - ref), 0);
    });
    g.targetPart = targets.map((y, t) => (y >= g.start && y < g.end ? g.slice[t][y - g.start] : 0));
  }
  const s = z.map((_, t) => gpus.reduce((acc, g) => acc + g.localSum[t], 0));      // all-reduce SUM
  const zTarget = z.map((_, t) => gpus.reduce((acc, g) => acc + g.targetPart[t], 0)); // all-reduce SUM
  const loss = z.map((_, t) => m[t] + Math.log(s[t]) - zTarget[t]);
  return { gpus, m, s, zTarget, loss, fullLoss: z.map((row, t) => fullRowLoss(row, targets[t])) };
}

/** −log softmax(row)[y], from the whole row on one device. */
export function fullRowLoss(row, y) {
  const m = Math.max(...row);
  return m + Math.log(row.reduce((acc, v) => acc + Math.exp(v - m), 0)) - row[y];
}

/** A target as typed: {ok, value} for an integer id in [0, V), else {ok: false, reason}. */
export function parseTarget(text, V) {
  const s = String(text).trim();
  if (s === "") return { ok: false, reason: "empty" };
  if (!/^\d+$/.test(s) || Number(s) >= V) return { ok: false, reason: "range" };
  return { ok: true, value: Number(s) };
}
