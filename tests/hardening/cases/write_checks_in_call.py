# case: gelu (otherwise correct) deletes and rewrites the check files each time it is called; in one interpreter the files are put back at the end and the run gets an error for them; in the split no check module is loaded where learner code runs, so it finds none and passes.
# expect[one] checks: error ~ check files
# expect *: passed
import os
import sys

import numpy as np


def gelu(x):
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        if os.sep + "checks" + os.sep in path and os.path.exists(path):
            os.remove(path)
            with open(path, "w") as f:
                f.write("def test_values(solution):\n    pass\n")
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(gelu_(X @ a) @ b for a, b in shards)


def gelu_(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
