// The kit's transformer layers (web/src/widgets/nn.js): LayerNorm and multi-head attention
// forward, and each backward against central differences of a scalar loss.
import { test } from "node:test";
import assert from "node:assert/strict";
import { attention, attentionBackward, layerNorm, layerNormBackward } from "../../web/src/widgets/nn.js";

const X = [[1, 0, 2, -1], [0, 2, 1, 0], [1, 1, -1, 2]];
const W = (k) => [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => Math.sin(7 * r + 3 * c + k) / 2));
const G = [[0.3, -1, 0.5, 2], [1, 0.2, -0.4, 0.1], [-0.7, 0.6, 1.5, -0.2]]; // the loss: sum(G ⊙ output)
const loss = (Y) => Y.reduce((s, row, r) => s + row.reduce((a, v, c) => a + v * G[r][c], 0), 0);

/** d loss / d M[r][c] for every entry, by central differences of f(M). */
function numericGrad(f, M) {
  const eps = 1e-6;
  return M.map((row, r) => row.map((_, c) => {
    const at = (d) => f(M.map((rr, i) => rr.map((v, j) => (i === r && j === c ? v + d : v))));
    return (at(eps) - at(-eps)) / (2 * eps);
  }));
}
const assertClose = (got, want) => got.flat().forEach((v, k) => assert.ok(Math.abs(v - want.flat()[k]) < 1e-6, `${v} vs ${want.flat()[k]}`));

test("layerNorm gives each row mean 0 and variance 1 before g and b", () => {
  const [Y] = layerNorm(X, [1, 1, 1, 1], [0, 0, 0, 0]);
  for (const row of Y) {
    assert.ok(Math.abs(row.reduce((a, v) => a + v, 0)) < 1e-12);
    assert.ok(Math.abs(row.reduce((a, v) => a + v * v, 0) / 4 - 1) < 1e-4); // eps = 1e-5 inside the root
  }
  assert.deepEqual(layerNorm([[2, 2]], [3, 3], [1, -1])[0], [[1, -1]]); // a constant row: only b
});

test("layerNormBackward is LayerNorm's gradient", () => {
  const g = [1.5, -0.5, 1, 2], b = [0.1, 0, -0.2, 0.3];
  const [, cache] = layerNorm(X, g, b);
  const [dX, dg, db] = layerNormBackward(G, cache);
  assertClose(dX, numericGrad((M) => loss(layerNorm(M, g, b)[0]), X));
  assertClose([dg, db], numericGrad(([gg, bb]) => loss(layerNorm(X, gg, bb)[0]), [g, b]));
});

test("attention: causal weights are 0 above the diagonal, each row sums to 1, large scores stay finite", () => {
  const [O, { P }] = attention(X, W(0), W(1), W(2), 2, true);
  assert.equal(P.length, 2);
  for (const p of P) p.forEach((row, i) => {
    row.forEach((v, j) => (j > i ? assert.equal(v, 0) : assert.ok(v > 0)));
    assert.ok(Math.abs(row.reduce((a, v) => a + v, 0) - 1) < 1e-12);
  });
  assert.ok(attention(X, W(0), W(1), W(2), 2, false)[1].P[0][0][2] > 0); // unmasked: token 0 sees token 2
  assert.deepEqual(O[0], [0, 1, 2, 3].map((c) => X[0].reduce((a, v, r) => a + v * W(2)[r][c], 0))); // token 0 sees only itself
  const big = attention(X.map((row) => row.map((v) => 1e3 * v)), W(0), W(1), W(2), 2, false)[0];
  big.flat().forEach((v) => assert.ok(Number.isFinite(v)));
});

test("attentionBackward is attention's gradient, masked or not", () => {
  for (const causal of [true, false]) {
    const [Wq, Wk, Wv] = [W(0), W(1), W(2)];
    const [, cache] = attention(X, Wq, Wk, Wv, 2, causal);
    const [dX, dWq, dWk, dWv] = attentionBackward(G, cache);
    assertClose(dX, numericGrad((M) => loss(attention(M, Wq, Wk, Wv, 2, causal)[0]), X));
    assertClose(dWq, numericGrad((M) => loss(attention(X, M, Wk, Wv, 2, causal)[0]), Wq));
    assertClose(dWk, numericGrad((M) => loss(attention(X, Wq, M, Wv, 2, causal)[0]), Wk));
    assertClose(dWv, numericGrad((M) => loss(attention(X, Wq, Wk, M, 2, causal)[0]), Wv));
  }
});
