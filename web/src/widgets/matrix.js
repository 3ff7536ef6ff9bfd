// The widgets' arithmetic, parsing and number formatting. No DOM here, so `node --test` can
// check every number a widget shows (tests/widgets/matrix.test.mjs).

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/** GPT-2's tanh approximation of GeLU (the one the lesson asks the learner to write). */
export function gelu(x) {
  // For |x| beyond ~1e102 the cube overflows to ±Infinity; tanh(±Infinity) = ±1 keeps the
  // result finite (x or -0), so no special case is needed.
  return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)));
}

/** The derivative of that GeLU (the learner's gelu_grad). */
export function geluGrad(x) {
  const t = Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x);
}

export function relu(x) {
  return x > 0 ? x : 0;
}

export const ACTIVATIONS = { relu, gelu };

// ---------------------------------------------------------------------------------------------
// Parsing what a learner types into one cell.

const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Reads one cell. Accepts the typographic minus (−) and a decimal comma (Polish habit), so
 * "−1,5" is -1.5. Returns {ok: true, value} or {ok: false, reason} with reason one of
 * "empty", "not-a-number", "too-large".
 */
export function parseEntry(text) {
  const s = String(text).trim().replace(/[\u2212\u2013]/g, "-").replace(",", ".");
  if (s === "") return { ok: false, reason: "empty" };
  if (!NUMBER_RE.test(s)) return { ok: false, reason: "not-a-number" };
  const value = Number(s);
  if (!Number.isFinite(value)) return { ok: false, reason: "too-large" };
  return { ok: true, value };
}

/** A number typed either way ("1,64", "1.64", "50 257", "−2"), or NaN when it is not one. */
export function parseNumber(text) {
  const parsed = parseEntry(String(text).replace(/[\s\u202f\u00a0]/g, ""));
  return parsed.ok ? parsed.value : NaN;
}

// ---------------------------------------------------------------------------------------------
// Formatting.

const MINUS = "\u2212";

/**
 * Three decimals, trailing zeros dropped ("0.841", "4", "1.5"), a real minus sign, and never
 * "−0": anything that rounds to zero prints as "0". In `lang`'s way: Polish "0,841".
 */
export function formatNumber(v, lang = "en") {
  if (!Number.isFinite(v)) return String(v);
  let s = v.toFixed(3);
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  if (s === "-0") s = "0";
  return decimalIn(lang, s.replace("-", MINUS));
}

/** A number written with a decimal point, with `lang`'s decimal separator instead. */
export function decimalIn(lang, text) {
  return lang === "pl" ? text.replace(".", ",") : text;
}

/** True when formatNumber shows v exactly (so the page may write "=" rather than "≈"). */
export function isShownExactly(v) {
  return Math.abs(v - Number(v.toFixed(3))) < 1e-12;
}

/**
 * "(1.682, 2.796)" for the worked example's vectors, "[4, 3]" with brackets = "[]". Polish
 * writes decimal commas, so its items are parted by semicolons where any has one:
 * "(1,682; 2,796)".
 */
export function formatVector(v, brackets = "()", lang = "en") {
  const items = v.map((x) => formatNumber(x, lang));
  const comma = lang === "pl" && items.some((x) => x.includes(","));
  return brackets[0] + items.join(comma ? "; " : ", ") + brackets[1];
}

// ---------------------------------------------------------------------------------------------
// Small linear algebra on plain arrays: vectors are number[], matrices number[][] (row-major).

/** x (length R) times M (R×C) -> length C. */
export function vecMat(x, M) {
  const cols = M.length ? M[0].length : 0;
  const out = new Array(cols).fill(0);
  for (let r = 0; r < M.length; r++) {
    for (let c = 0; c < cols; c++) out[c] += x[r] * M[r][c];
  }
  return out;
}

/** M (R×K) times P (K×C): each row of M through vecMat, so every widget gets the same sums. */
export function matMul(M, P) {
  return M.map((row) => vecMat(row, P));
}

/** An R × C matrix of zeros. */
export function zeros(R, C) {
  return Array.from({ length: R }, () => new Array(C).fill(0));
}

export function transpose(M) {
  return M[0].map((_, c) => M.map((row) => row[c]));
}

/** Row chunk i of M for each of n GPUs (n divides M's rows): the layout of sequence parallelism. */
export function chunkRows(M, n) {
  const size = M.length / n;
  return Array.from({ length: n }, (_, i) => M.slice(i * size, (i + 1) * size));
}

export function addMatrices(P, Q) {
  return P.map((row, r) => addVectors(row, Q[r]));
}

export function columns(M, start, end) {
  return M.map((row) => row.slice(start, end));
}

export function rows(M, start, end) {
  return M.slice(start, end).map((row) => row.slice());
}

export function addVectors(a, b) {
  return a.map((v, i) => v + b[i]);
}

export function sumVectors(vs, length) {
  return vs.reduce(addVectors, new Array(length).fill(0));
}

export function maxAbsDiff(a, b) {
  return a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
}

/**
 * Whether `got` is `want` (vectors or matrices of one shape) to within `rel` of want's largest
 * magnitude, never less than `rel` itself: 1e-5 lets a learner's float32 through, 1e-9 only
 * rounding. A NaN is never close.
 */
export function allClose(got, want, rel) {
  const w = want.flat();
  return maxAbsDiff(got.flat(), w) <= rel * Math.max(1, ...w.map(Math.abs));
}

/** Equal up to float rounding, scaled to the numbers' size. */
export function nearlyEqual(a, b) {
  if (a.length !== b.length) return false;
  const scale = Math.max(1, ...a.map(Math.abs), ...b.map(Math.abs));
  return maxAbsDiff(a, b) <= 1e-9 * scale;
}

export function divisors(n) {
  const out = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The tensor-parallel MLP: Y = GeLU(XA)B with A split by columns and B by rows over N GPUs.

/**
 * The problems that stop the computation, as [{code, ...details}]; empty when X (length D),
 * A (D×F), B (F×D) and N fit together.
 */
export function checkMlpShapes(X, A, B, N) {
  const problems = [];
  const D = X.length;
  const F = A.length ? A[0].length : 0;
  if (A.length !== D) problems.push({ code: "a-rows", expected: D, got: A.length });
  if (A.some((row) => row.length !== F)) problems.push({ code: "ragged", matrix: "A" });
  if (B.length !== F) problems.push({ code: "b-rows", expected: F, got: B.length });
  if (B.some((row) => row.length !== D)) problems.push({ code: "b-cols", expected: D });
  if (!Number.isInteger(N) || N < 1) problems.push({ code: "n-invalid", N });
  else if (F % N !== 0) problems.push({ code: "not-divisible", F, N });
  return problems;
}

/** The indices s … e−1 as a learner reads them: "3" for one, "0–3" for several. */
export function indexRange(s, e) {
  return e - s === 1 ? `${s}` : `${s}–${e - 1}`;
}

/** GPU i's half-open column range of A (and row range of B): [iF/N, (i+1)F/N). */
export function shardRange(F, N, i) {
  return [(i * F) / N, ((i + 1) * F) / N];
}

/** The reference shards, in the same layout as the learner's shard_mlp: [[A_i, B_i], ...]. */
export function shardMlp(A, B, N) {
  const F = A[0].length;
  return Array.from({ length: N }, (_, i) => {
    const [s, e] = shardRange(F, N, i);
    return [columns(A, s, e), rows(B, s, e)];
  });
}

/**
 * Everything the worked-example widget shows. Call only when checkMlpShapes found nothing.
 * Returns {XA, H, Y, gpus: [{range, A_i, B_i, H_i, Y_i}], allReduce, maxDiff, equal}.
 */
export function tpMlp(X, A, B, N) {
  const XA = vecMat(X, A);
  const H = XA.map(gelu);
  const Y = vecMat(H, B);
  const F = XA.length;
  const gpus = shardMlp(A, B, N).map(([A_i, B_i], i) => {
    // Each GPU sees only its own shard: H_i comes from X A_i, never from the full XA.
    const H_i = vecMat(X, A_i).map(gelu);
    return { range: shardRange(F, N, i), A_i, B_i, H_i, Y_i: vecMat(H_i, B_i) };
  });
  const allReduce = sumVectors(gpus.map((g) => g.Y_i), X.length);
  return { XA, H, Y, gpus, allReduce, maxDiff: maxAbsDiff(allReduce, Y), equal: nearlyEqual(allReduce, Y) };
}

// ---------------------------------------------------------------------------------------------
// The row-split counterexample: y = act(xW) with W split by rows over two GPUs.

/**
 * x (length R), W (R×C), the activation's name, and `split`, the first row of GPU B.
 * Returns the two partial products, their sum, the unsplit xW, the activation applied after
 * the sum and before it (on each GPU, then summed), and which output coordinates disagree.
 */
export function rowSplit(x, W, activation, split) {
  const act = ACTIVATIONS[activation];
  const partials = [
    vecMat(x.slice(0, split), W.slice(0, split)),
    vecMat(x.slice(split), W.slice(split)),
  ];
  const sum = addVectors(partials[0], partials[1]);
  const full = vecMat(x, W);
  const after = sum.map(act);
  const before = addVectors(partials[0].map(act), partials[1].map(act));
  const differs = after.map((v, i) => !nearlyEqual([v], [before[i]]));
  return { partials, sum, full, after, before, differs };
}

// ---------------------------------------------------------------------------------------------
// The learner's answer, as it comes back from the worker (JSON: nested lists of numbers).

/** The numbers of a nested list, or null when anything in it is not a finite number. */
export function flatten(value) {
  const out = [];
  const walk = (v) => {
    if (Array.isArray(v)) return v.every(walk);
    if (typeof v === "number" && Number.isFinite(v)) {
      out.push(v);
      return true;
    }
    return false;
  };
  return walk(value) ? out : null;
}

/** The shape of a regular nested list ([2] for a vector, [1, 2] for one row), else null. */
export function shapeOf(value) {
  if (!Array.isArray(value)) return typeof value === "number" ? [] : null;
  if (value.length === 0) return [0];
  const inner = value.map(shapeOf);
  if (inner.some((s) => s === null || s.join() !== inner[0].join())) return null;
  return [value.length, ...inner[0]];
}

/**
 * Whether the learner's `value` is a nested list of numbers of exactly this `shape` ([T] a
 * vector, [T, D] a matrix, [] one number). NaN and infinities come back from the worker as
 * strings, so they are not numbers here.
 */
export function hasShape(value, shape) {
  if (!shape.length) return typeof value === "number";
  return Array.isArray(value) && value.length === shape[0] && value.every((v) => hasShape(v, shape.slice(1)));
}

/**
 * Compares the learner's tp_mlp result and shard_mlp output with the reference.
 * Returns {verdict: "match" | "mismatch" | "bad-shape", got, shardProblem} where got is the
 * learner's Y as a flat vector (or null), and shardProblem names the first GPU whose shard
 * differs ({gpu, part: "A" | "B" | "count"}) or is null.
 */
export function compareLearner(results, reference) {
  const [shards, Y] = results;
  const shape = shapeOf(Y);
  const flat = flatten(Y);
  const D = reference.Y.length;
  // tp_mlp(X) with a 1-D X should give a 1-D Y; a single row (1×D) is the same numbers.
  const shapeOk = shape && flat && flat.length === D && (shape.length === 1 || (shape.length === 2 && shape[0] === 1));
  const shardProblem = findShardProblem(shards, reference.gpus);
  if (!shapeOk) return { verdict: "bad-shape", got: flat, shape, shardProblem };
  // The learner may compute in float32; the checks accept that, so the widget does too.
  return { verdict: allClose(flat, reference.Y, 1e-5) ? "match" : "mismatch", got: flat, shape, shardProblem };
}

function findShardProblem(shards, gpus) {
  if (!Array.isArray(shards) || shards.length !== gpus.length) return { gpu: null, part: "count" };
  for (let i = 0; i < gpus.length; i++) {
    const pair = shards[i];
    if (!Array.isArray(pair) || pair.length !== 2) return { gpu: i, part: "pair" };
    for (const [part, got, want] of [["A", pair[0], gpus[i].A_i], ["B", pair[1], gpus[i].B_i]]) {
      const g = flatten(got);
      const w = want.flat();
      if (!g || (shapeOf(got) || []).join() !== [want.length, want[0].length].join() || !allClose(g, w, 1e-5)) {
        return { gpu: i, part };
      }
    }
  }
  return null;
}

/**
 * Whether the learner's `got` is the number `want`: within `rel` of it, relative to |want| but
 * never to less than `floor` (floor 1: near zero, an absolute 1e-6 passes). Anything that is
 * not a number (a string "nan", a list) is not.
 */
export function closeTo(got, want, rel = 1e-6, floor = 1) {
  return typeof got === "number" && Math.abs(got - want) <= rel * Math.max(floor, Math.abs(want));
}
