# case: tp_mlp returns an array of 8 million zeros (64 MB, more than the page's channel holds) instead of the output; gelu and shard_mlp return zeros. An answer too large to carry must end as a failure of that check (or its time limit, if carrying it takes that long), never a pass and never a hang.
# attacks: the size of an answer (the channel between the learner's side and the grader)
# expect load: passed
# expect *_unchanged: passed|failed|error|timeout
# expect test_tp_mlp::*: failed|error|timeout
# expect *: failed|error
import numpy as np


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    return np.zeros(8_000_000)
