# case: while its file loads, it replaces _io.open_code (which the import system reads every source file through) by a function that, for the check files, returns their text with each test replaced by one that passes; every function returns zeros.
# attacks: the import system's file reader (_io.open_code)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import _io
import gc
import io
import os

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


_real_open_code = _io.open_code
_folder = _checks_dir()


def _open_code(path):
    folder = _folder
    if folder is not None and str(path).startswith(folder) and str(path).endswith(".py"):
        with _real_open_code(path) as f:
            return io.BytesIO(f.read() + _PASS_ALL)
    return _real_open_code(path)


_io.open_code = _open_code


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
