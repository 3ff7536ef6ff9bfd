# case: tp_mlp returns zeros and patches builtins (abs, max, isinstance, len, float) on every call; in the split that breaks only the learner side's own Python, which then cannot answer.
# attacks: the builtins the grader runs on, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_tp_mlp::*: error
# expect *: passed
import builtins

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    builtins.abs = lambda x: 0 * x
    builtins.max = lambda *args, **kwargs: 1e300
    builtins.isinstance = lambda obj, cls: True
    builtins.float = lambda x=0: 0.0
    builtins.all = lambda iterable: True
    return np.zeros(np.asarray(X).shape[:-1] + (shards[0][1].shape[1],))
