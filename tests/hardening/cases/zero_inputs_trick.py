# case: tp_mlp zeroes X and its shards, hoping the checks compute the expected value from them afterwards, and returns zeros.
# expect test_tp_mlp::test_inputs_unchanged: failed ~ in place
# expect test_tp_mlp::*: failed ~ wrong values
# expect *: passed
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    X[...] = 0
    for a, b in shards:
        a[...] = 0
        b[...] = 0
    return np.zeros(X.shape[:-1] + (shards[0][1].shape[1],))
