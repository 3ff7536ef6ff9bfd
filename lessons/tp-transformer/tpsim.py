"""tpsim: n simulated GPUs and the single-GPU pieces of a transformer block.

SimDist(n) stands for a tensor-parallel group of n GPUs. Rank i's data is item i of a list;
every collective takes one array per rank and gives one array back to each rank (each its own
copy), and counts itself in .counts, as PyTorch's CommDebugMode counts real collectives.

The rest is local math one GPU does on its own: LayerNorm, GPT-2's GeLU, and causal attention
over whole heads, each with its backward.
"""
from collections import Counter

import numpy as np


class SimDist:
    """A group of n simulated GPUs (ranks 0 ... n-1)."""

    def __init__(self, n):
        if int(n) != n or n < 1:
            raise ValueError(f"SimDist needs a whole number of GPUs n >= 1, not {n!r}")
        self.n = int(n)
        self.counts = Counter()

    def reset(self):
        """Forget the counts (a new measurement starts)."""
        self.counts = Counter()

    def all_reduce(self, xs):
        """n same-shape arrays (or numbers) in; every rank gets their elementwise sum."""
        arrays = self._inputs("all_reduce", xs)
        total = arrays[0].copy()
        for a in arrays[1:]:
            total = total + a
        self.counts["all_reduce"] += 1
        return [total.copy() for _ in range(self.n)]

    def all_gather(self, xs):
        """n row chunks in; every rank gets them stacked in rank order along axis 0."""
        arrays = self._inputs("all_gather", xs, rows=True)
        whole = np.concatenate(arrays, axis=0)
        self.counts["all_gather"] += 1
        return [whole.copy() for _ in range(self.n)]

    def reduce_scatter(self, xs):
        """n same-shape (R, ...) arrays in; rank i gets rows [i*R/n, (i+1)*R/n) of their sum."""
        arrays = self._inputs("reduce_scatter", xs, rows=True)
        rows = arrays[0].shape[0]
        if rows % self.n:
            raise ValueError(f"reduce_scatter: {rows} rows cannot be split evenly over "
                             f"n = {self.n} ranks")
        total = arrays[0].copy()
        for a in arrays[1:]:
            total = total + a
        step = rows // self.n
        self.counts["reduce_scatter"] += 1
        return [total[i * step:(i + 1) * step].copy() for i in range(self.n)]

    def _inputs(self, op, xs, rows=False):
        # Checked before anything is counted: a refused call is not a collective.
        if not isinstance(xs, (list, tuple)) or len(xs) != self.n:
            got = f"{len(xs)} items" if isinstance(xs, (list, tuple)) else type(xs).__name__
            raise ValueError(f"{op}: needs a list of n = {self.n} arrays, one per rank; got {got}")
        arrays = [np.asarray(x) for x in xs]
        if rows and any(a.ndim == 0 for a in arrays):
            raise ValueError(f"{op}: needs arrays with rows, not numbers")
        same = (lambda a: a.shape[1:] == arrays[0].shape[1:]) if op == "all_gather" else \
            (lambda a: a.shape == arrays[0].shape)
        if not all(same(a) for a in arrays):
            raise ValueError(f"{op}: the ranks' arrays differ in shape: "
                             f"{[a.shape for a in arrays]}")
        return arrays


def layernorm_forward(x, g, b, eps=1e-5):
    """LayerNorm over the last axis (population variance). Returns (y, cache)."""
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    inv = 1.0 / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + eps)
    xhat = xc * inv
    return xhat * g + b, (xhat, inv, g)


def layernorm_backward(dy, cache):
    """(dx, dg, db) for the LayerNorm whose forward returned `cache`."""
    xhat, inv, g = cache
    lead = tuple(range(dy.ndim - 1))
    dg = (dy * xhat).sum(axis=lead)
    db = dy.sum(axis=lead)
    dxhat = dy * g
    dx = inv * (dxhat - dxhat.mean(axis=-1, keepdims=True)
                - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True))
    return dx, dg, db


_C = np.sqrt(2.0 / np.pi)


def gelu(x):
    """GPT-2's GeLU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + np.tanh(_C * (x + 0.044715 * x**3)))


def gelu_grad(x):
    """The derivative of gelu at x."""
    u = _C * (x + 0.044715 * x**3)
    th = np.tanh(u)
    return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * _C * (1.0 + 3 * 0.044715 * x**2)


def heads_forward(x, Wq, Wk, Wv, n_local_heads):
    """Causal attention over k = n_local_heads whole heads.

    x: (T, D); Wq, Wk, Wv: (D, k*d_head), head h in columns h*d_head ... (h+1)*d_head - 1.
    Scores are scaled by 1/sqrt(d_head), d_head = Wq.shape[1] // n_local_heads.
    Returns (O, cache): O (T, k*d_head), the heads' outputs side by side, before Wo. The cache
    holds what heads_backward needs except x, which is passed to it again.
    """
    T = x.shape[0]
    k = n_local_heads
    dh = Wq.shape[1] // k
    Q, K, V = x @ Wq, x @ Wk, x @ Wv
    mask = np.triu(np.ones((T, T), dtype=bool), 1)
    O = np.empty_like(Q)
    probs = []
    for h in range(k):
        cols = slice(h * dh, (h + 1) * dh)
        s = Q[:, cols] @ K[:, cols].T / np.sqrt(dh)
        s = np.where(mask, -np.inf, s)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
        O[:, cols] = p @ V[:, cols]
        probs.append(p)
    return O, (Q, K, V, probs, Wq, Wk, Wv, k)


def heads_backward(dO, x, cache):
    """(dx, dWq, dWk, dWv) for heads_forward(x, ...) whose cache is `cache`."""
    Q, K, V, probs, Wq, Wk, Wv, k = cache
    dh = Q.shape[1] // k
    dQ, dK, dV = np.zeros_like(Q), np.zeros_like(K), np.zeros_like(V)
    for h in range(k):
        cols = slice(h * dh, (h + 1) * dh)
        p = probs[h]
        dV[:, cols] = p.T @ dO[:, cols]
        dp = dO[:, cols] @ V[:, cols].T
        ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) / np.sqrt(dh)
        dQ[:, cols] = ds @ K[:, cols]
        dK[:, cols] = ds.T @ Q[:, cols]
    dx = dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T
    return dx, x.T @ dQ, x.T @ dK, x.T @ dV
