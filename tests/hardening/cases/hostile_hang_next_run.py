# case: it poisons the next grading run in the same interpreter two ways: json's shared default encoder gets an encode method that loops forever at the next run's first event (the load check's start, before any timer is armed), and, from its first call on, lessonkit.learner.compile_source loops forever, so the next load of any file in a kept learner side never ends. This run's functions return zeros.
# attacks: the next grading run in an interpreter kept between runs (no timer before its first event)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import json
import sys

import numpy as np

_encoder = json._default_encoder
_real_encode = type(_encoder).encode
_runs = [0]


def _encode(value):
    if isinstance(value, dict) and value.get("event") == "check_start" and value.get("id") == "load":
        _runs[0] += 1
        while _runs[0] > 1:
            pass
    return _real_encode(_encoder, value)


_encoder.encode = _encode


def _never_compiles(source):
    while True:
        pass


def _poison_next_load():
    learner = sys.modules.get("lessonkit.learner")
    if learner is not None and hasattr(learner, "compile_source"):
        learner.compile_source = _never_compiles


def gelu(x):
    _poison_next_load()
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _poison_next_load()
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    _poison_next_load()
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
