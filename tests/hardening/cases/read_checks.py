# case: Reads the hidden checks (a static site ships them; the command line's learner process finds only empty files of their names) and prints their first line, but its functions are wrong.
# expect load: passed
# expect test_*::test_input*_unchanged: passed
# expect *: failed
# stdout[one] ~ Checks of gelu
import glob
import os

import numpy as np

for root in (os.getcwd(), os.path.dirname(os.getcwd()), "/home/pyodide"):
    for path in sorted(glob.glob(os.path.join(root, "**", "checks", "test_gelu.py"),
                                 recursive=True)):
        with open(path) as f:
            print(f.readline().strip())


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
