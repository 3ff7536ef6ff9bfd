# case: tp_mlp returns zeros and, through the call stack, registers a pytest plugin that turns every result into a pass and replaces the remaining test functions; in the split there is no pytest where learner code runs, and the zeros fail.
# attacks: pytest's plugins, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_tp_mlp::test_inputs_unchanged: passed
# expect test_tp_mlp::*: failed ~ wrong value
# expect *: passed
import sys

import numpy as np

try:
    import pytest
except ImportError:  # no pytest where this runs (the isolated page's learner worker)
    pytest = None

if pytest is not None:
    class AlwaysPass:
        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_makereport(self, item, call):
            report = yield
            report.outcome = "passed"
            call.excinfo = None
            return report

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(self, item):
            try:
                yield
            except BaseException:
                pass
            return None


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    frame = sys._getframe() if pytest is not None else None
    while frame is not None:
        item = frame.f_locals.get("item") or frame.f_locals.get("pyfuncitem")
        if item is not None and hasattr(item, "config"):
            manager = item.config.pluginmanager
            if not manager.is_registered(AlwaysPass):
                manager.register(AlwaysPass(), "always-pass")
            for other in item.session.items:
                other.obj = lambda *args, **kwargs: None
            break
        frame = frame.f_back
    return np.zeros(np.asarray(X).shape[:-1] + (shards[0][1].shape[1],))
