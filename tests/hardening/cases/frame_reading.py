# case: Looks for the expected answer in the grader's frames and objects (sys._getframe, inspect, gc) and returns anything it finds; otherwise zeros. tp_mlp looks for the checks' own reference function in their frames. In the split there are no grader frames to find, and the zeros fail.
# attacks: the grader's frames and objects, where learner code shares the grader's interpreter (the page without isolation, which protects no verdict from code written to cheat: docs/threat-model.md)
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
import gc
import inspect
import sys

import numpy as np

NAMES = ("expected", "exp", "want", "wanted", "answer", "reference", "target")


def find_expected(shape):
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    frames += [info.frame for info in inspect.stack()]
    for frame in frames:
        for name in NAMES:
            value = frame.f_locals.get(name)
            if value is not None and np.shape(value) == shape:
                return np.array(value, dtype=float)
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            for name in NAMES:
                value = obj.get(name)
                if isinstance(value, np.ndarray) and value.shape == shape:
                    return np.array(value, dtype=float)
    return np.zeros(shape)


def gelu(x):
    return find_expected(np.shape(x))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    frame = sys._getframe(1)
    while frame is not None:
        ref = frame.f_locals.get("ref")
        if ref is not None and hasattr(ref, "mlp"):
            return ref.mlp(X, shards)
        frame = frame.f_back
    return find_expected(np.asarray(X).shape[:-1] + (shards[0][1].shape[1],))
