# catches: test_gelu::test_python_floats, test_gelu::test_values[*], test_gelu::test_large_magnitudes, test_gelu::test_shape[*], test_tp_mlp::test_worked_example, test_tp_mlp::test_random_batches[*], test_tp_mlp::test_single_token, test_tp_mlp::test_uses_only_its_shards
# Computes GeLU in float16, which keeps about 3 significant digits.
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=np.float16)
    u = np.float16(np.sqrt(2.0 / np.pi)) * (x + np.float16(0.044715) * x**3)
    return np.float16(0.5) * x * (np.float16(1.0) + np.tanh(u))


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    width = A.shape[1] // n
    return [(A[:, i * width:(i + 1) * width], B[i * width:(i + 1) * width, :]) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ A_i) @ B_i for A_i, B_i in shards)
