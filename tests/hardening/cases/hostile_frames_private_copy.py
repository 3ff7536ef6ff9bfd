# case: every function walks up the stack to the grader's call() frame and zeroes, in place, both the check's inputs and the grader's private copy of them (so comparing the two finds no change); the expected value is then computed from zeros; every function returns zeros.
# attacks: the check's inputs and the grader's private copy, reached through frames
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import sys

import numpy as np


def _zero(value):
    if isinstance(value, np.ndarray) and value.flags.writeable and value.dtype.kind == "f":
        value[...] = 0.0
    elif isinstance(value, (list, tuple)):
        for item in value:
            _zero(item)


def _zero_the_graders_copies():
    frame = sys._getframe(1)
    while frame is not None:
        names = frame.f_locals
        if "private" in names and "args" in names:
            _zero(names["args"])
            _zero(names["private"])
        frame = frame.f_back


def gelu(x):
    _zero_the_graders_copies()
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _zero_the_graders_copies()
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    _zero_the_graders_copies()
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
