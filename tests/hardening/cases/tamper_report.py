# case: While loading, imports lessonkit and rewrites its report and check helpers so that everything reads "passed"; the functions return zeros. In the split that is the learner side's lessonkit, so its functions fail.
# attacks: lessonkit's report and checks, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
import numpy as np

import lessonkit
import lessonkit.checking
import lessonkit.report

try:
    import lessonkit.runner
except ImportError:  # it needs pytest, absent in the isolated page's learner worker
    pass

lessonkit.report.Report.passed = property(lambda self: True)
lessonkit.report.CheckResult.__post_init__ = lambda self: setattr(self, "status", "passed")
lessonkit.checking.expect_close = lambda *args, **kwargs: None
lessonkit.checking.expect_unchanged = lambda *args, **kwargs: None
lessonkit.checking.fail = lambda *args, **kwargs: None
if hasattr(lessonkit, "runner"):
    lessonkit.runner._Plugin.verdict = lambda self, *args: ("passed", "")


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
