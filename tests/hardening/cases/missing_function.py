# case: tp_mlp is missing (renamed by mistake).
# expect load: error ~ does not define tp_mlp(X, shards)
# expect *: error ~ did not load
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w], B[i * w:(i + 1) * w]) for i in range(n)]


def tp_mlp_forward(X, shards):
    return sum(gelu(X @ a) @ b for a, b in shards)
