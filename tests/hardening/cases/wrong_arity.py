# case: shard_mlp takes two parameters instead of three.
# expect load: error ~ shard_mlp must accept 3 argument(s)
# expect *: error ~ did not load
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B):
    return [(A, B)]


def tp_mlp(X, shards):
    return sum(gelu(X @ a) @ b for a, b in shards)
