# catches: test_shard_mlp::test_count_and_shapes[*], test_shard_mlp::test_example_split, test_shard_mlp::test_contiguous_blocks[*], test_shard_mlp::test_one_column_each
# Off by one: each block takes one column / row too many, overlapping the next.
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + np.tanh(u))


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    width = A.shape[1] // n
    return [(A[:, i * width:(i + 1) * width + 1], B[i * width:(i + 1) * width + 1, :]) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ A_i) @ B_i for A_i, B_i in shards)
