# case: while its file loads, it imports _pytest.skipping before the grader does and makes its evaluate_skip_marks skip every check, which pytest reports as not failed; every function returns zeros.
# attacks: a grader module first imported after learner code ran (_pytest.skipping)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import numpy as np

try:
    import _pytest.skipping as _skipping
except ImportError:  # no pytest where this runs
    _skipping = None
if _skipping is not None:
    _skipping.evaluate_skip_marks = lambda item: _skipping.Skip("skipped by solution.py")


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
