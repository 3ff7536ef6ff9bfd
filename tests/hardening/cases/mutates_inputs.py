# case: the functions change their inputs in place (and still return the right values).
# expect test_gelu::test_input_unchanged: failed ~ changed its argument `x` in place
# expect test_shard_mlp::test_inputs_unchanged: failed ~ changed its argument `A` in place
# expect test_tp_mlp::test_inputs_unchanged: failed ~ changed its argument `X` in place
# expect *: passed
import numpy as np


def gelu(x):
    if isinstance(x, np.ndarray):
        u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
        x *= 0.5 * (1.0 + np.tanh(u))
        return x
    x = float(x)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    out = [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]
    A[...] = 0
    return out


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    Y = sum(_act(np.asarray(X, dtype=float) @ a) @ b for a, b in shards)
    X[...] = 0
    for a, b in shards:
        a[...] = 0
    return Y
