# case: While its file loads, it looks for the model solution (reference.py) where the command line's learner process could reach it: beside the engine on sys.path (../lessons/tp-mlp), in the lesson folder named on the grader's command line (/proc/<parent>/cmdline) or its working folder (/proc/<parent>/cwd), and in the lesson copy beside its scratch folder; found, it runs it and returns its answers; else zeros.
# attacks: the model solution, read from the learner process
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import glob
import os
import sys

import numpy as np


def _candidates():
    for entry in sys.path:
        yield os.path.join(entry, "..", "lessons", "tp-mlp", "reference.py")
    parent = f"/proc/{os.getppid()}"
    try:
        with open(f"{parent}/cmdline", "rb") as f:
            for arg in f.read().split(b"\0"):
                yield os.path.join(arg.decode(errors="replace"), "reference.py")
    except OSError:
        pass
    for root in (f"{parent}/cwd", os.path.dirname(os.getcwd())):
        yield from glob.glob(os.path.join(root, "**", "reference.py"), recursive=True)


def _reference():
    for path in _candidates():
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except OSError:
            continue
        found = {}
        exec(compile(source, path, "exec"), found)
        if "tp_mlp" in found:
            return found
    return None


_REF = _reference()


def gelu(x):
    if _REF:
        return _REF["gelu"](x)
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    if _REF:
        return _REF["shard_mlp"](A, B, n)
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    if _REF:
        return _REF["tp_mlp"](X, shards)
    return np.zeros(np.asarray(X).shape)
