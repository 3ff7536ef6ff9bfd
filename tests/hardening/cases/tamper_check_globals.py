# case: gelu returns zeros and, from inside the call, replaces the helpers and tolerances in the loaded check modules; in the split no check module is loaded where learner code runs, and the zeros fail.
# attacks: the check modules' globals, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_gelu::test_input_unchanged: passed
# expect test_gelu::*: failed ~ wrong value
# expect *: passed
import sys

import numpy as np


def gelu(x):
    for module in list(sys.modules.values()):
        ns = getattr(module, "__dict__", {})
        if "expect_close" in ns and "checks" in (ns.get("__file__") or ""):
            ns["expect_close"] = lambda *args, **kwargs: None
            ns["expect_unchanged"] = lambda *args, **kwargs: None
            ns["fail"] = lambda *args, **kwargs: None
            ns["RTOL"] = ns["ATOL"] = 1e300
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
