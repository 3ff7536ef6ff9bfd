# case: gelu, shard_mlp and tp_mlp are correct, except that in tp_mlp's last check (test_inputs_unchanged, whose X is the first (2, 4) draw from seed 5) it sends a fake check_end through the grader's run object (found through the garbage collector) to disarm the host's timer, ignores SIGALRM, cancels the interval timer and loops forever. That check times out, attributed to it; every other check keeps its own verdict.
# attacks: the host's time limit (a forged check_end event; the alarm signal ignored)
# expect test_tp_mlp::test_inputs_unchanged: timeout
# expect *: passed
import gc
import signal

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _disarm_and_loop():
    for obj in gc.get_objects():
        if type(obj).__name__ == "_Run" and getattr(obj, "current", None):
            obj.emit({"event": "check_end", "id": obj.current[0], "status": "passed"})
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    while True:
        pass


# Known by its values, not its shape: a batch drawn afresh may be (2, 4) too.
LAST_CHECKS_X = np.random.default_rng(5).normal(size=(2, 4))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    if X.shape == (2, 4) and np.array_equal(X, LAST_CHECKS_X):
        _disarm_and_loop()
    return sum(gelu(X @ a) @ b for a, b in shards)
