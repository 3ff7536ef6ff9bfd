# case: gelu, shard_mlp and tp_mlp are correct, but in tp_mlp's last check (test_inputs_unchanged, whose X is the first (2, 4) draw from seed 5) it ignores SIGALRM, cancels the interval timer, works for 4 s against the 2 s limit (catalogue.py's CHECK_SECONDS), then puts the alarm handler back and returns the right answer. That check is over its time limit, so it does not pass; every other check keeps its own verdict.
# attacks: the time limit (SIGALRM ignored and the interval timer cancelled, then put back)
# expect test_tp_mlp::test_inputs_unchanged: timeout
# expect *: passed
import signal
import time

import numpy as np


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def shard_mlp(A, B, n):
    w = A.shape[1] // n
    return [(A[:, i * w:(i + 1) * w].copy(), B[i * w:(i + 1) * w].copy()) for i in range(n)]


def _slow_without_alarms(seconds):
    alarm = getattr(signal, "SIGALRM", None)
    handler = signal.signal(alarm, signal.SIG_IGN) if alarm else None
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    if alarm:
        signal.signal(alarm, handler)


# Known by its values, not its shape: a batch drawn afresh may be (2, 4) too.
LAST_CHECKS_X = np.random.default_rng(5).normal(size=(2, 4))


def tp_mlp(X, shards):
    X = np.asarray(X, dtype=float)
    if X.shape == (2, 4) and np.array_equal(X, LAST_CHECKS_X):
        _slow_without_alarms(4.0)
    return sum(gelu(X @ a) @ b for a, b in shards)
