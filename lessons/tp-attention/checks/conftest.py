"""Shared pieces of the tp-attention checks: the correct math and its classic wrong variants
(used only after the learner's call has returned), the lesson's worked example, and weights
drawn at random or labelled by position."""
from types import SimpleNamespace

import numpy as np
import pytest


def softmax(scores, axis=-1):
    e = np.exp(scores - np.max(scores, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def weights(Q_h, K_h, causal, scale, offset=1, axis=-1, mask_after=False):
    """One head's attention weights. `offset` is the first diagonal hidden by the causal mask
    (1: the keys after the query, the right one); `axis` the softmax axis (-1: over the keys,
    the right one); `mask_after` zeroes the hidden weights after the softmax (wrong)."""
    scores = Q_h @ K_h.T * scale
    T = scores.shape[0]
    hidden = np.triu(np.ones((T, T), dtype=bool), k=offset) if causal else np.zeros((T, T), bool)
    if mask_after:
        return np.where(hidden, 0.0, softmax(scores, axis))
    with np.errstate(invalid="ignore"):
        p = softmax(np.where(hidden, -np.inf, scores), axis)
    # A row with every key hidden (offset 0, token 0) has no weights; the hints that use this
    # compare the other rows only (see `with_first_row`).
    return np.where(np.isnan(p), 0.0, p)


def heads(X, Wq, Wk, Wv, count, causal, scale=None, **how):
    """The concatenated outputs of `count` heads that share the columns of Wq, Wk, Wv equally;
    `scale` replaces 1/√(width of one head); `how` is passed to `weights`."""
    X, Wq, Wk, Wv = (np.asarray(a, dtype=np.float64) for a in (X, Wq, Wk, Wv))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d = Q.shape[1] // count
    factor = 1.0 / np.sqrt(d) if scale is None else scale
    return np.concatenate([weights(Q[:, h * d:(h + 1) * d], K[:, h * d:(h + 1) * d], causal,
                                   factor, **how) @ V[:, h * d:(h + 1) * d]
                           for h in range(count)], axis=1)


def attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True, **how):
    return heads(X, Wq, Wk, Wv, n_heads, causal, **how) @ np.asarray(Wo, dtype=np.float64)


def tp(X, shards, n_heads, causal=True, per_gpu=None, **how):
    """The sum over GPUs of each one's heads times its Wo_i; `per_gpu` replaces the number of
    heads each GPU runs (right: n_heads / len(shards))."""
    count = per_gpu or n_heads // len(shards)
    return sum(heads(X, q, k, v, count, causal, **how) @ np.asarray(o, dtype=np.float64)
               for q, k, v, o in shards)


def partials(X, shards, n_heads, causal=True):
    """The partial outputs without the all-reduce, stacked."""
    return np.stack([tp(X, [s], n_heads // len(shards), causal) for s in shards])


def with_first_row(value, got):
    """`value` with its first row taken from the learner's result: for a mask that hides a
    token from itself, token 0 sees nothing, and what a solution makes of that (NaN, zeros,
    a uniform average) varies; every other row is determined. With one token there is no
    other row, so nothing is taken (any wrong answer would match)."""
    got = np.asarray(got, dtype=np.float64) if isinstance(got, (list, np.ndarray)) else None
    if got is None or got.shape != value.shape or value.shape[0] < 2:
        return value
    value = value.copy()
    value[0] = got[0]
    return value


@pytest.fixture
def ref():
    """The correct functions and the usual wrong ones, to compute expectations and hints.
    All are module-level functions here: lessonkit's guard makes them refuse to run inside
    learner code, so a solution cannot borrow their answers."""
    return SimpleNamespace(attention=attention, heads=heads, tp=tp, partials=partials,
                           with_first_row=with_first_row)


@pytest.fixture
def example():
    """The lesson's worked example: T = 3 tokens, D = 4, 2 heads of width 2, N = 2 GPUs, with
    Wq = Wk = Wv = I (so Q = K = V = X) and a Wo that mixes the two heads' columns."""
    X = np.array([[1.0, 0.0, 0.0, 2.0], [0.0, 2.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    I = np.eye(4)
    Wo = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0],
                   [0.0, 0.0, 1.0, 1.0]])
    shards = [(I[:, :2].copy(), I[:, :2].copy(), I[:, :2].copy(), Wo[:2].copy()),
              (I[:, 2:].copy(), I[:, 2:].copy(), I[:, 2:].copy(), Wo[2:].copy())]
    return SimpleNamespace(X=X, Wq=I, Wk=I.copy(), Wv=I.copy(), Wo=Wo, n_heads=2, shards=shards)


def random_weights(rng, D, count=4, width=None):
    """`count` matrices of shape (D, width or D) whose products with a unit-size X have
    unit-size entries, so the scores are of order 1 and the softmax is far from one-hot."""
    return [rng.normal(0.0, 1.0 / np.sqrt(D), size=(D, width or D)) for _ in range(count)]


def random_shards(rng, D, n):
    """Shards drawn independently, one GPU at a time: no whole weights exist anywhere to be
    remembered, so only a tp_attention that computes from its shards can get the answer."""
    w = D // n
    return [tuple(random_weights(rng, D, 3, w)) + (rng.normal(0.0, 1.0 / np.sqrt(w), (w, D)),)
            for _ in range(n)]


@pytest.fixture
def draw():
    return SimpleNamespace(weights=random_weights, shards=random_shards)
