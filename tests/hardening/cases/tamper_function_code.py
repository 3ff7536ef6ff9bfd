# case: While loading, swaps the code inside the grader's functions (lessonkit's comparisons, pytest's test call) for code that does nothing; in the split those are the learner side's copies, so its functions fail.
# attacks: the code of the grader's functions, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
import numpy as np

import lessonkit.checking

try:
    import _pytest.python
except ImportError:  # no pytest where this runs (the isolated page's learner worker)
    _pytest = None


def nothing(*args, **kwargs):
    return True


lessonkit.checking.expect_close.__code__ = nothing.__code__
lessonkit.checking.expect_unchanged.__code__ = nothing.__code__
lessonkit.checking.as_array.__code__ = nothing.__code__
if _pytest is not None:
    _pytest.python.pytest_pyfunc_call.__code__ = nothing.__code__


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
