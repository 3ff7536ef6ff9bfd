# catches: test_gelu::test_python_floats, test_gelu::test_values[negative], test_gelu::test_values[positive], test_gelu::test_shape[*]
# 0.044715 rounded to 0.0447.
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.0447 * x**3)
    return 0.5 * x * (1.0 + np.tanh(u))


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    width = A.shape[1] // n
    return [(A[:, i * width:(i + 1) * width], B[i * width:(i + 1) * width, :]) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ A_i) @ B_i for A_i, B_i in shards)
