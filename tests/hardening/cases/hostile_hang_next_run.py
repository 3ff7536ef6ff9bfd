# case: while its file loads, it gives json's shared default encoder an encode method of its own that counts grading runs (the load check's start event) and, from the next run on, loops forever before that event leaves: a next Run in the same Python would hang with no event and no timer. This run's functions return zeros.
# attacks: the next grading run in the same interpreter (no timer is armed before the first event)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import json

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


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
