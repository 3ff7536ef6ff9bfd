# case: in its first call, gelu writes 96 MiB with no line end to every pipe and standard stream its process holds (the learner's own channel to the grader among them), then loops forever; shard_mlp and tp_mlp return zeros. The grader must neither fill its memory nor wait past the limit: that check times out, and grading goes on.
# attacks: the grader's reading of the learner's answers (an answer with no end)
# expect load: passed
# expect test_gelu::*: timeout|error
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import os

import numpy as np

_CHUNK = b"x" * 65536


def _descriptors():
    try:
        return sorted(int(name) for name in os.listdir("/proc/self/fd"))
    except OSError:
        return [1, 2]


def _flood():
    targets = [fd for fd in _descriptors() if fd in (1, 2) or fd > 2]
    for _ in range(1536):
        for fd in list(targets):
            try:
                os.write(fd, _CHUNK)
            except OSError:
                targets.remove(fd)
    while True:
        pass


def gelu(x):
    _flood()


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
