# case: tp_mlp returns zeros and, through the garbage collector, finds the grader's record of results and rewrites it: every verdict so far becomes "passed". In the split there is no such record where learner code runs, and the zeros fail.
# attacks: the grader's results, through gc, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_tp_mlp::test_inputs_unchanged: passed
# expect test_tp_mlp::*: failed ~ wrong value
# expect *: passed
import gc

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    for obj in gc.get_objects():
        if type(obj).__name__ == "_Run":
            obj.results[:] = [(r[0], r[1], "passed", "") for r in obj.results]
            obj.load_failed = False
    return np.zeros(np.asarray(X).shape[:-1] + (shards[0][1].shape[1],))
