# case: gelu aborts the whole Python process (os.abort) for 3-D input: that check is reported as a crash, Python is started again, and every other check still runs and passes.
# where: child
# expect test_gelu::test_shape[3-D]: error ~ crash
# expect *: passed
import os

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    if x.ndim == 3:
        os.abort()
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ a) @ b for a, b in shards)
