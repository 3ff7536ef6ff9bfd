# case: tp_mlp returns zeros and leaves a background thread running that keeps forcing every report to "passed"; in the split that is the learner side's lessonkit (and in the browser, Python cannot start threads at all, an error).
# attacks: the grader's report, from a thread left running, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# where: child
# expect test_tp_mlp::test_inputs_unchanged: passed|error
# expect test_tp_mlp::*: failed|error
# expect *: passed
import threading

import numpy as np

import lessonkit.report


def force_pass():
    while True:
        lessonkit.report.Report.passed = property(lambda self: True)
        lessonkit.report.CheckResult.status = "passed"


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def tp_mlp(X, shards):
    threading.Thread(target=force_pass, daemon=True).start()
    return np.zeros(np.asarray(X).shape[:-1] + (shards[0][1].shape[1],))
