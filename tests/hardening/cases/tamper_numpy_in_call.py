# case: gelu returns zeros and, on every call, patches numpy internals the checks rely on (asarray, array_equal, the reductions); in the split they are the learner side's own numpy, so the zeros fail.
# attacks: numpy as the grader compares with it, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_gelu::test_input_unchanged: passed
# expect test_gelu::*: failed ~ wrong value
# expect *: passed
import sys

import numpy as np


def gelu(x):
    for name, module in list(sys.modules.items()):
        if name.startswith("numpy") and module is not None:
            ns = vars(module)
            if "array_equal" in ns:
                ns["array_equal"] = lambda *a, **k: True
            if "_wrapreduction" in ns:
                ns["_wrapreduction"] = lambda *a, **k: 0.0
            if "asarray" in ns and name != "numpy":
                ns["asarray"] = lambda a, *args, **kwargs: np.zeros(np.shape(a))
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
