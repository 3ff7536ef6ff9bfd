# case: gelu returns zeros and installs a trace function that rewrites the grader's local variables (the exception a failed check raised) to make it pass; in the split it traces only the learner side.
# attacks: the grader's frames, through sys.settrace, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect test_gelu::test_input_unchanged: passed
# expect test_gelu::*: failed ~ wrong value
# expect *: passed
import sys

import numpy as np


def tracer(frame, event, arg):
    if event in ("call", "line", "return"):
        for name in ("exc", "excinfo", "status"):
            if name in frame.f_locals:
                frame.f_locals[name] = None
    return tracer


def gelu(x):
    sys.settrace(tracer)
    sys.setprofile(tracer)
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
