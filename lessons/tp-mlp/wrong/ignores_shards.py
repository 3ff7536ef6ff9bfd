# catches: test_tp_mlp::*
# tp_mlp remembers A and B from shard_mlp and never looks at the shards it is given.
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + np.tanh(u))


_weights = {}


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    _weights["A"], _weights["B"] = A, B
    width = A.shape[1] // n
    return [(A[:, i * width:(i + 1) * width], B[i * width:(i + 1) * width, :]) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return gelu(X @ _weights["A"]) @ _weights["B"]
