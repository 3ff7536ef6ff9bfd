# catches: test_tp_mlp::test_worked_example, test_tp_mlp::test_random_batches[*], test_tp_mlp::test_single_token, test_tp_mlp::test_uses_only_its_shards
# The all-reduce as np.sum(partials) without an axis: every entry added into one number.
import numpy as np
def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i*w:(i+1)*w], B[i*w:(i+1)*w]) for i in range(n)]
def tp_mlp(X, shards):
    partials = [gelu(X @ a) @ b for a, b in shards]
    return np.sum(partials)
