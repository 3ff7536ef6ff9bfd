# case: While loading, swaps the code inside the grader's functions (lessonkit's comparisons, pytest's test call) for code that does nothing. Everything it changed is put back before the checks run, so its functions are graded as written (and fail).
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
# stdout ~ [grader] While loading, your file changed
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
