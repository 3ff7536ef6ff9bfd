# case: A correct solution whose results are numbers numpy reads, in odd containers: gelu an object array of floats (np.frompyfunc) or a Fraction, shard_mlp nested tuples of Fractions and Decimals, tp_mlp an array.array or an object array of Decimals; all pass, in CPython and Pyodide alike.
# expect *: passed
import array
from decimal import Decimal
from fractions import Fraction

import numpy as np

_gelu_one = np.frompyfunc(
    lambda v: 0.5 * v * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (v + 0.044715 * v**3))), 1, 1)


def gelu(x):
    if np.ndim(x) == 0:
        return Fraction(float(_gelu_one(float(x))))
    return _gelu_one(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(tuple(tuple(Fraction(float(v)) for v in row) for row in A[:, i * w:(i + 1) * w]),
             tuple(tuple(Decimal(float(v)) for v in row) for row in B[i * w:(i + 1) * w]))
            for i in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    Y = sum(np.asarray(gelu(X @ np.asarray(a, dtype=float)), dtype=float) @ np.asarray(b, dtype=float)
            for a, b in shards)
    if Y.ndim == 1:
        return array.array("d", Y)
    out = np.empty(Y.shape, dtype=object)
    out[...] = [[Decimal(float(v)) for v in row] for row in Y]
    return out
