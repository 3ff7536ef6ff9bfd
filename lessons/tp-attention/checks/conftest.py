"""Shared pieces of the tp-attention checks: the correct math and its classic wrong variants
(used only after the learner's call has returned), the lesson's worked example, and weights
drawn at random or labelled by position."""
from types import SimpleNamespace

import numpy as np
import pytest

from lessonkit.checking import describe, expect_close, fail
from lessonkit.checkmath import attention_heads as heads
from lessonkit.checkmath import f64
from lessonkit.fixtures import ref_fixture
from lessonkit.i18n import _


def attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True, **how):
    return heads(X, Wq, Wk, Wv, n_heads, causal, **how) @ f64(Wo)


def tp(X, shards, n_heads, causal=True, per_gpu=None, **how):
    """The sum over GPUs of each one's heads times its Wo_i; `per_gpu` replaces the number of
    heads each GPU runs (right: n_heads / len(shards))."""
    count = per_gpu or n_heads // len(shards)
    return sum(heads(X, q, k, v, count, causal, **how) @ f64(o)
               for q, k, v, o in shards)


def partials(X, shards, n_heads, causal=True):
    """The partial outputs without the all-reduce, stacked."""
    return np.stack([tp(X, [s], n_heads // len(shards), causal) for s in shards])


ref = ref_fixture(globals())


def expect_output(c, expected, mistakes, hides_self=None):
    """expect_close with the lesson's tolerance (relative to the size of the output: float32
    arithmetic, ~1e-6 here, passes), plus the one classic mistake a value cannot name: a mask
    that hides each token from itself leaves token 0 with nothing to attend to, and what a
    solution makes of that (NaN, zeros, an unmasked row) varies. `hides_self` is (hint,
    make_value); its hint is shown when every row after the first matches that value, or, for
    a single token, when the result is NaN."""
    exp = f64(expected)
    rtol = 2e-5
    tol = dict(rtol=rtol, atol=rtol * max(1.0, float(np.max(np.abs(exp)))))
    got = c.got
    if (hides_self is not None and exp.ndim == 2 and isinstance(got, np.ndarray)
            and got.shape == exp.shape):
        hint, make = hides_self
        shown = dict(call=c.text(), inputs=c.inputs(), expected=describe(exp), got=describe(got),
                     hint=hint)
        # One token: no later rows to compare, but its only key is itself, so a mask that
        # hides it leaves no weights at all, which with −∞ scores is NaN everywhere.
        if exp.shape[0] == 1 and not np.isfinite(got).any():
            fail(_("{call} returned NaN for a single token, whose only key is itself.\n"
                   "{inputs}\n  expected: {expected}\n  got:      {got}\nHint: {hint}", **shown))
        if exp.shape[0] > 1:
            alt = make()
            rest = np.abs(got[1:] - alt[1:]) <= 10 * (tol["atol"] + rtol * np.abs(alt[1:]))
            right = np.abs(got - exp) <= tol["atol"] + rtol * np.abs(exp)
            if rest.all() and not right.all():
                fail(_("{call} returned wrong values: every row after the first is what a mask "
                       "that hides each token from itself gives.\n{inputs}\n  expected: "
                       "{expected}\n  got:      {got}\nHint: {hint}", **shown))
    return expect_close(c, exp, **tol, mistakes=mistakes)


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
