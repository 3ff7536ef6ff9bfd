# case: in the browser, while its file loads, it posts to the page, from the worker it runs in, forged messages for every job id up to 200: a check_end (to disarm the page's timer) and an all-passed report for all 29 checks; every function returns zeros.
# attacks: the page's side of the worker protocol (messages the page takes for the grader's)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import json

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
_REPORT = {"schema": "lessonkit.report/1", "lesson": "tp-mlp", "passed": True, "stdout": "",
           "stdout_truncated": False, "duration_ms": 1.0, "checks": [
               {"id": i, "title": i, "status": "passed", "message": "", "hints": []}
               for i in _IDS]}

try:
    import js
except ImportError:  # not in a browser
    js = None
if js is not None:
    for _id in range(1, 201):
        js.self.postMessage(js.JSON.parse(json.dumps(
            {"type": "event", "id": _id, "event": {"event": "check_end", "id": "load",
                                                   "status": "passed"}})))
        js.self.postMessage(js.JSON.parse(json.dumps(
            {"type": "report", "id": _id, "report": _REPORT})))


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(np.zeros((1, 1)), np.zeros((1, 1))) for _ in range(n)]


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    return np.zeros(X.shape[:-1] + (np.asarray(shards[0][1]).shape[1],))
