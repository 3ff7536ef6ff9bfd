# case: Its first gelu call writes a forged answer holding complex(10**400, 0) to the channel the command line's grader reads (the descriptor from sys.argv, the request's number from the garbage collector), its first shard_mlp call one nested 100,000 lists deep, each then ending the process; the grader's decoding overflows or recurses: the learner's unreadable answer, located at that check.
# attacks: the grader's decoding of answers (OverflowError, RecursionError)
# where: child
# expect test_gelu::test_python_floats: error ~ could not read
# expect test_shard_mlp::test_count_and_shapes[D=2*: error ~ could not read
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import gc
import json
import os
import sys

import numpy as np


def _forge(flag, got):
    """Once per grading run (the flag file lives in the scratch folder, which outlives a
    process): answer the running request with `got`, raw JSON, and end."""
    if os.path.exists(flag) or "--serve" not in sys.argv:
        return
    open(flag, "w").close()
    seq = max(o["seq"] for o in gc.get_objects()
              if type(o) is dict and o.get("op") == "call" and type(o.get("seq")) is int)
    fd_out = int(sys.argv[sys.argv.index("--serve") + 2])
    line = ('{"seq": %d, "kind": "returned", "got": %s, "after": [], "params": [], '
            '"dtypes": [], "stdout": "", "stdout_truncated": false}\n' % (seq, got))
    os.write(fd_out, line.encode())
    os._exit(0)


def gelu(x):
    _forge("forged-overflow", '{"complex": [%d, 0]}' % 10**400)
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    _forge("forged-nesting", "[" * 100_000 + "]" * 100_000)
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    return np.zeros(np.asarray(X).shape)
