# case: tp_mlp imports the checks' conftest module and returns the answer of its reference function; in the split the checks are not loaded where learner code runs, and its fallback fails.
# attacks: the checks' own reference code, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_tp_mlp::test_inputs_unchanged: passed
# expect test_tp_mlp::*: failed ~ returned an array of shape (1,)
# expect *: passed
import sys

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    for module in list(sys.modules.values()):
        if "checks" in (getattr(module, "__file__", None) or ""):
            reference = getattr(module, "mlp_from_shards", None)
            if reference is not None:
                return reference(X, shards)
    return np.zeros(1)
