# case: tp_mlp asks for three arrays of 1.8 GB (more memory than the browser or the CLI allows).
# where: child
# expect test_tp_mlp::*: error ~ MemoryError
# expect *: passed
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    scratch = [np.empty((15_000, 15_000)) for _ in range(3)]
    return scratch[0][0]
