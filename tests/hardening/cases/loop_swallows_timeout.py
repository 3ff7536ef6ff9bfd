# case: gelu loops forever for 3-D input and swallows every exception it can, in a bare except.
# where: child
# expect test_gelu::test_shape[3-D]: timeout ~ still running
# expect test_gelu::test_input_unchanged: timeout ~ Skipped: gelu ran out of time above
# expect test_gelu::test_fresh_values: timeout ~ Skipped: gelu ran out of time above
# expect *: passed
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    while x.ndim == 3:
        try:
            while True:
                pass
        except:  # noqa: E722
            pass
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
