# case: shard_mlp ends the process with os._exit(0).
# expect test_shard_mlp::*: error ~ os._exit
# expect *: passed
import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


import os


def shard_mlp(A, B, n):
    os._exit(0)


def _act(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return sum(_act(X @ a) @ b for a, b in shards)
