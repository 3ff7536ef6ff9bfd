# case: while its file loads, it finds the grader's Lesson object through the garbage collector and points its checks_dir at a folder of its own holding copies of the checks with each test replaced by one that passes; every function returns zeros.
# attacks: the grader's lesson object (lesson.checks_dir), which says which checks run
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import gc
import os
import tempfile
from pathlib import Path

import numpy as np

# What every forged check file gets at its end: each test replaced by one that passes, with the
# original's signature and marks (functools.update_wrapper), so pytest collects the same checks.
_PASS_ALL = b"""

def _lessonkit_forged():
    import functools
    g = globals()
    for name, value in list(g.items()):
        if name.startswith("test_") and callable(value):
            def passes(*args, **kwargs):
                return None
            functools.update_wrapper(passes, value)
            g[name] = passes


_lessonkit_forged()
"""


def _checks_dir():
    for obj in gc.get_objects():
        folder = getattr(obj, "checks_dir", None) if type(obj).__name__ == "Lesson" else None
        if folder is not None and os.path.isdir(folder):
            return str(folder)
    return None


def _redirect():
    forged = Path(tempfile.mkdtemp(prefix="forged-")) / "checks"
    forged.mkdir()
    for obj in gc.get_objects():
        if type(obj).__name__ != "Lesson" or not os.path.isdir(getattr(obj, "checks_dir", "")):
            continue
        for path in Path(obj.checks_dir).glob("*.py"):
            (forged / path.name).write_bytes(path.read_bytes() + _PASS_ALL)
        object.__setattr__(obj, "checks_dir", forged)
        object.__setattr__(obj, "check_files", [forged / p.name for p in obj.check_files])


_redirect()


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
