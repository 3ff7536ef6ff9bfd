# case: While loading, patches numpy's comparison and testing functions to say "equal"; the functions return zeros. In the split that is the learner side's numpy, so its functions fail.
# attacks: numpy's comparisons, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
import numpy as np
import numpy.testing


def yes(*args, **kwargs):
    return True


def quiet(*args, **kwargs):
    return None


np.allclose = np.array_equal = np.array_equiv = yes
np.isclose = lambda a, b, *args, **kwargs: np.ones(np.shape(a), dtype=bool)
np.testing.assert_allclose = np.testing.assert_array_equal = quiet
np.testing.assert_array_almost_equal = np.testing.assert_equal = quiet
np.abs = np.absolute = lambda x, *args, **kwargs: np.zeros(np.shape(x))
np.max = np.amax = lambda *args, **kwargs: 0.0


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
