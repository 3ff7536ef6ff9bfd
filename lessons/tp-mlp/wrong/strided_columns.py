# catches: test_shard_mlp::test_example_split, test_shard_mlp::test_contiguous_blocks[D=3 F=12 n=3], test_shard_mlp::test_contiguous_blocks[D=5 F=32 n=4]
# Interleaved: GPU i takes every n-th column (A[:, i::n]) instead of a contiguous block.
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + np.tanh(u))


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    return [(A[:, i::n], B[i::n, :]) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ A_i) @ B_i for A_i, B_i in shards)
