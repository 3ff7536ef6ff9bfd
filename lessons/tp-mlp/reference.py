"""Model solution of the tensor-parallel MLP lesson.

The page offers it as model-solution.py after a pass or after repeated failed runs; the
grading worker never sees it."""
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + np.tanh(u))


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    width = A.shape[1] // n
    return [(A[:, i * width:(i + 1) * width].copy(), B[i * width:(i + 1) * width, :].copy())
            for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    partials = [gelu(X @ A_i) @ B_i for A_i, B_i in shards]  # one per GPU, no communication
    return sum(partials)  # the all-reduce
