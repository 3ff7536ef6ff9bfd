# case: A correct solution that writes 20,000 lines straight to the process's stdout and stderr (os.write, sys.__stderr__), around Python's print: still capped, still a pass, and the output stays the learner's.
# expect *: passed
import os
import sys

import numpy as np

for i in range(10_000):
    os.write(1, b"raw stdout line\n")
    sys.__stderr__.write("raw stderr line\n")
sys.__stderr__.flush()


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu(X @ a) @ b for a, b in shards)
