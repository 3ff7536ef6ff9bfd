# case: gelu and tp_mlp look through the garbage collector for the checks' own functions' original code objects and rebuild working functions from them, returning the checks' reference answers; shard_mlp returns zeros.
# attacks: the checks' reference functions, rebuilt from code objects the garbage collector finds
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import gc
import types

import numpy as np


def _rebuilt(name):
    """A fresh function from the checks' original code of `name`, or None."""
    for obj in gc.get_objects():
        if (type(obj) is tuple and len(obj) == 2 and isinstance(obj[1], types.CodeType)
                and isinstance(obj[0], types.FunctionType) and obj[1].co_name == name):
            fn = obj[0]
            return types.FunctionType(obj[1], fn.__globals__, name, fn.__defaults__)
    return None


def gelu(x):
    reference = _rebuilt("tanh_gelu")
    if reference is not None:
        return reference(x)
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    reference, act = _rebuilt("mlp_from_shards"), _rebuilt("tanh_gelu")
    if reference is not None and act is not None:
        return reference(X, shards, act=act)
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
