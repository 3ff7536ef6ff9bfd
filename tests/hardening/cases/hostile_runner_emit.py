# case: while its file loads, it finds the grader's run object (lessonkit.runner._Run) through the garbage collector and wraps its emit function; at every check_end, which the grader sends outside any learner code, the wrapper rewrites every verdict recorded so far to "passed"; every function returns zeros.
# attacks: the runner's own emit, a grader callback learner code can replace
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import gc

import numpy as np


def _wrap(run):
    sent = run.emit

    def emit(event):
        sent(event)
        if isinstance(event, dict) and event.get("event") == "check_end":
            run.results[:] = [(r[0], r[1], "passed", "") for r in run.results]
            run.load_failed = False
            run.halted = None

    run.emit = emit


for _obj in gc.get_objects():
    if type(_obj).__name__ == "_Run" and hasattr(_obj, "emit") and hasattr(_obj, "results"):
        _wrap(_obj)
del _obj


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
