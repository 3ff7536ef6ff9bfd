# case: shard_mlp returns one pair too few.
# expect test_shard_mlp::test_inputs_unchanged: passed
# expect test_shard_mlp::*: failed ~ ; with n =
# expect *: passed
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n - 1)]


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
