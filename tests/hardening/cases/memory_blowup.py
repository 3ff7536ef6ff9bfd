# case: shard_mlp keeps allocating until memory runs out (only where a memory limit exists: the CLI's child process and the browser).
# where: child
# expect test_shard_mlp::*: error ~ memory
# expect *: passed
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    hoard = []
    while True:
        hoard.append(np.empty(2**25))


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
