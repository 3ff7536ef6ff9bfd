# catches: test_shard_mlp::test_count_and_shapes[*], test_shard_mlp::test_example_split, test_shard_mlp::test_contiguous_blocks[*], test_shard_mlp::test_one_column_each, test_tp_mlp::test_worked_example, test_tp_mlp::test_random_batches[T=3 D=4 F=8 n=2], test_tp_mlp::test_random_batches[T=1 D=8 F=16 n=4], test_tp_mlp::test_random_batches[T=16 D=64 F=256 n=8], test_tp_mlp::test_random_batches[T=16 D=64 F=256 n=2], test_tp_mlp::test_single_token, test_tp_mlp::test_uses_only_its_shards, test_tp_mlp::test_inputs_unchanged
# A split by rows (and X with it): each GPU applies GeLU to a partial sum, so GeLU(a)+GeLU(b) replaces GeLU(a+b).
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1.0 + np.tanh(u))


def shard_mlp(A, B, n):
    A, B = np.asarray(A), np.asarray(B)
    rows = A.shape[0] // n
    return [(A[i * rows:(i + 1) * rows, :], B) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    rows = shards[0][0].shape[0]
    return sum(gelu(X[..., i * rows:(i + 1) * rows] @ A_i) @ B_i for i, (A_i, B_i) in enumerate(shards))
