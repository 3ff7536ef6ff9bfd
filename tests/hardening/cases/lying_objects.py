# case: Returns objects that lie: an ndarray subclass of zeros whose ==, ufuncs and array functions say "equal"; a list whose len() lies; an object whose __array__ and __float__ change their answer once the checks start comparing.
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
import numpy as np


class Agreeable(np.ndarray):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return np.zeros(np.broadcast(*[np.asarray(i) for i in inputs]).shape)

    def __array_function__(self, func, types, args, kwargs):
        return True


class Shifty:
    """Looks like zeros while the call runs; afterwards, pretends to be whatever is asked."""

    calls = 0

    def __init__(self, shape):
        self.shape = shape

    def __array__(self, dtype=None, copy=None):
        Shifty.calls += 1
        return np.zeros(self.shape) if Shifty.calls < 2 else np.full(self.shape, np.nan)

    def __float__(self):
        return 0.0

    def __eq__(self, other):
        return True


class Long(list):
    def __len__(self):
        return 1000


def gelu(x):
    return np.zeros(np.shape(x)).view(Agreeable)


def shard_mlp(A, B, n):
    return Long([Shifty((2, 2))] * 2)


def tp_mlp(X, shards):
    return Shifty(np.asarray(X).shape[:-1] + (shards[0][1].shape[1],))
