# case: every function puts a weakref callback on the copy of its argument it was handed; the callback fires when the grader drops that copy, after the call returned, and zeroes the check's own inputs in its frame, so the expected value is computed from zeros; every function returns zeros.
# attacks: learner code that runs later, inside the grader's frames (a weakref callback)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import sys
import weakref

import numpy as np

_pending = []


def _zero(value):
    if isinstance(value, np.ndarray) and value.flags.writeable and value.dtype.kind == "f":
        value[...] = 0.0
    elif isinstance(value, (list, tuple)):
        for item in value:
            _zero(item)


def _fired(ref):
    if ref in _pending:
        _pending.remove(ref)
    frame = sys._getframe()
    while frame is not None:
        if "checks" in frame.f_code.co_filename:
            for name, value in frame.f_locals.items():
                if name in ("x", "X", "shards", "A", "B", "args"):
                    _zero(value)
        frame = frame.f_back


def _watch(value):
    try:
        _pending.append(weakref.ref(value, _fired))
    except TypeError:
        pass


def gelu(x):
    _watch(x)
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _watch(A)
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    _watch(X)
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
