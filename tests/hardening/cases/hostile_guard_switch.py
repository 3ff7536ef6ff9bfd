# case: while its file loads, it flips the guard's list-held switch (lessonkit.guard._learner_active[0] = False), so the audit hook stops recording function-code swaps, then gives lessonkit.checking's expect_close, expect_unchanged and fail do-nothing bodies; every function returns zeros.
# attacks: the guard's own state, reachable from learner code when both share one interpreter
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import sys

import numpy as np


def _close(c, expected, *, rtol=0.0, atol=0.0, mistakes=(), what=None, part=None, labels=None):
    # Runs with lessonkit.checking's globals once it is that function's code.
    return _np_array(expected, dtype=_float64)  # noqa: F821


def _nothing(*args, **kwargs):
    return None


guard = sys.modules.get("lessonkit.guard")
checking = sys.modules.get("lessonkit.checking")
if guard is not None and checking is not None and hasattr(guard, "_learner_active"):
    guard._learner_active[0] = False
    checking.expect_close.__code__ = _close.__code__
    checking.expect_unchanged.__code__ = _nothing.__code__
    checking.fail.__code__ = _nothing.__code__
    guard._learner_active[0] = True


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
