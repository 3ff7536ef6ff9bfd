# case: while its file loads, it swaps two keys of lessonkit.checking's namespace (_np_abs and _np_isnan) keeping every value in its place, so a snapshot that compares values in order sees nothing, and expect_close measures |got - expected| with isnan (never off); every function returns zeros.
# attacks: module namespaces recorded by their values, not their keys
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import sys

import numpy as np


def _swap_keys(ns, a, b):
    if a not in ns or b not in ns:
        return
    items = list(ns.items())
    ns.clear()
    for key, value in items:
        ns[b if key == a else a if key == b else key] = value


checking = sys.modules.get("lessonkit.checking")
if checking is not None:
    _swap_keys(vars(checking), "_np_abs", "_np_isnan")


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
