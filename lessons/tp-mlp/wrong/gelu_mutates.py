# catches: test_gelu::test_input_unchanged
# gelu computes in place, overwriting the array it was given.
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    x *= 0.5 * (1.0 + np.tanh(u))
    return x


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    width = A.shape[1] // n
    return [(A[:, i * width:(i + 1) * width], B[i * width:(i + 1) * width, :]) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ A_i) @ B_i for A_i, B_i in shards)
