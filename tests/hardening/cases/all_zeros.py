# case: every function returns zeros: a plain wrong solution. The hostile-case tests grade it right after each hostile case, in the same page, to show nothing carried over from one run to the next.
# expect load: passed
# expect *_unchanged: passed
# expect test_shard_mlp::*: failed ~ GPU 0
# expect test_gelu::test_python_floats: failed ~ gelu(x) returned
# expect *: failed ~ wrong value
import numpy as np


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
