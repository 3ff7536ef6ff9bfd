# case: its first call replaces numpy.zeros and numpy.zeros_like by functions that compute the right answer from their caller's arguments (x, or X and shards), so a wrong solution graded later in the same Python, one that returns np.zeros, would pass. This run's functions return zeros made with the original numpy.zeros.
# attacks: the next grading run's learner code, through a learner interpreter kept between runs
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import sys

import numpy as np

_zeros, _zeros_like = np.zeros, np.zeros_like


def _gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def _answer(shape_or_like, *args, **kwargs):
    names = sys._getframe(2).f_locals  # the caller of np.zeros or np.zeros_like
    if "shards" in names and "X" in names:
        X = np.asarray(names["X"], dtype=float)
        return sum(_gelu(X @ np.asarray(a)) @ np.asarray(b) for a, b in names["shards"])
    if "x" in names:
        return _gelu(names["x"])
    return None


def helpful_zeros(shape, *args, **kwargs):
    answer = _answer(shape)
    return answer if answer is not None else _zeros(shape, *args, **kwargs)


def helpful_zeros_like(like, *args, **kwargs):
    answer = _answer(like)
    return answer if answer is not None else _zeros_like(like, *args, **kwargs)


def _poison():
    np.zeros, np.zeros_like = helpful_zeros, helpful_zeros_like


def gelu(x):
    _poison()
    return _zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _poison()
    return [(_zeros((1, 1)), _zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    _poison()
    X = np.asarray(X, dtype=float)
    return _zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
