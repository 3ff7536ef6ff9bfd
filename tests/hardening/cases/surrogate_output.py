# case: A correct solution that prints a lone surrogate ("\ud800", which no UTF-8 can hold) and a NUL: still a pass, and the report (text or --json, whatever PYTHONIOENCODING says) is printed whole.
# expect *: passed
# stdout ~ lone
import numpy as np

print("lone \ud800 surrogate and a NUL \x00 here")


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    return sum(gelu(np.asarray(X, dtype=float) @ a) @ b for a, b in shards)
