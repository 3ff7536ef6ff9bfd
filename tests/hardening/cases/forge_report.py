# case: Prints a forged passing report (JSON and text made with lessonkit's own classes) and the page's success line; the functions are wrong.
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
# stdout ~ All 29 checks passed. Well done!
import numpy as np

from lessonkit.report import CheckResult, Report

fake = Report("tp-mlp", [CheckResult("load", "Your solution.py runs", "passed")])
print(fake.to_json())
print('{"schema": "lessonkit.report/1", "lesson": "tp-mlp", "passed": true, "checks": []}')
print("   PASS  gelu agrees with the tanh formula")
print("All 29 checks passed. Well done!")


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
