# case: A correct solution that prints 20,000 lines while loading (a hundred times the 200 kept) and 1,000 in every gelu call: the output is cut and the verdict is a pass.
# expect *: passed
# stdout ~ [output cut: only the first 200 lines
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)


for i in range(20_000):
    print("line", i)

_gelu = gelu


def gelu(x):
    for i in range(1000):
        print("gelu says", i)
    return _gelu(x)
