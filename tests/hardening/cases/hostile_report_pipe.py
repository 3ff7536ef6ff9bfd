# case: while its file loads, it finds the pipe the command line's grading process reports on (and its token, in a closure found through the garbage collector), writes a forged all-passed report there, then dup2()s /dev/null over the pipe so the real report goes nowhere; every function returns zeros.
# attacks: the command line's report channel (a pipe in the same process as learner code)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import gc
import json
import os

import numpy as np

_IDS = ["load"] + [f"test_gelu::{t}" for t in (
    "test_python_floats", "test_values[negative]", "test_values[near zero]",
    "test_values[positive]", "test_large_magnitudes", "test_shape[1-D]", "test_shape[2-D]",
    "test_shape[3-D]", "test_input_unchanged")] + [f"test_shard_mlp::{t}" for t in (
    "test_count_and_shapes[D=2 F=4 n=2]", "test_count_and_shapes[D=3 F=12 n=4]",
    "test_count_and_shapes[D=4 F=16 n=8]", "test_example_split",
    "test_contiguous_blocks[D=3 F=12 n=3]", "test_contiguous_blocks[D=5 F=32 n=4]",
    "test_contiguous_blocks[D=2 F=8 n=8]", "test_one_gpu", "test_one_column_each",
    "test_inputs_unchanged")] + [f"test_tp_mlp::{t}" for t in (
    "test_worked_example", "test_random_batches[T=3 D=4 F=8 n=2]",
    "test_random_batches[T=1 D=8 F=16 n=4]", "test_random_batches[T=16 D=64 F=256 n=8]",
    "test_random_batches[T=7 D=32 F=128 n=1]", "test_random_batches[T=16 D=64 F=256 n=2]",
    "test_single_token", "test_uses_only_its_shards", "test_inputs_unchanged")]
_FORGED = {"report": {"lesson": "tp-mlp", "stdout": "", "checks": [
    {"id": i, "title": i, "status": "passed", "message": "", "hints": []} for i in _IDS]}}


def _report_channel():
    """(descriptor, token) of the grader's report pipe, from its send() closure."""
    for obj in gc.get_objects():
        code = getattr(obj, "__code__", None)
        if code is None or not {"channel", "token"} <= set(code.co_freevars):
            continue
        cells = dict(zip(code.co_freevars, obj.__closure__))
        return cells["channel"].cell_contents, cells["token"].cell_contents
    return None, None


def _pipes():
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return []
    fds = []
    for name in names:
        fd = int(name)
        try:
            if fd > 2 and os.path.realpath(f"/proc/self/fd/{fd}").startswith("pipe:"):
                fds.append(fd)
        except OSError:
            pass
    return fds


def _forge():
    channel, token = _report_channel()
    targets = [channel] if channel is not None else _pipes()
    line = json.dumps(_FORGED)
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in targets:
        try:
            os.write(fd, ((token + " " if token else "") + line + "\n").encode())
            os.dup2(devnull, fd)
        except OSError:
            pass
    os.close(devnull)


_forge()


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
