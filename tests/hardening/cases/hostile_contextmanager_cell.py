# case: while its file loads, it replaces the generator function inside the closure cell of the guard's @contextmanager (lessonkit.guard.learner_code), so later learner code runs unguarded; its first call then gives the checks' expect_close, expect_unchanged and fail (in lessonkit.checking and in every loaded check module) passing stand-ins; every function returns zeros.
# attacks: the guard itself, through state no snapshot records (a closure cell)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import sys

import numpy as np


def _close(c, expected, **kwargs):
    return np.asarray(expected, dtype=float)


def _nothing(*args, **kwargs):
    return None


def _unguarded(loading=False):
    yield


def _disarm_guard():
    guard = sys.modules.get("lessonkit.guard")
    helper = getattr(guard, "learner_code", None)
    for cell in getattr(helper, "__closure__", None) or ():
        if callable(cell.cell_contents):
            cell.cell_contents = _unguarded


def _pass_everything():
    for module in list(sys.modules.values()):
        ns = getattr(module, "__dict__", None)
        if not isinstance(ns, dict) or "expect_close" not in ns:
            continue
        if ns.get("__name__") == "lessonkit.checking" or "checks" in str(ns.get("__file__")):
            ns["expect_close"] = _close
            ns["expect_unchanged"] = _nothing
            ns["fail"] = _nothing


_disarm_guard()


def gelu(x):
    _pass_everything()
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _pass_everything()
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    _pass_everything()
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
