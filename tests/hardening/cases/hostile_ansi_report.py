# case: Prints ANSI escapes that clear the terminal and draw a fake all-PASS report in green (and a carriage return, a bidirectional override); the functions are wrong.
# attacks: the command line's terminal report (escape sequences in learner output)
# expect load: passed
# expect *_unchanged: passed|failed|error
# expect *: failed|error
import numpy as np

print("\x1b[2J\x1b[H\x1b[32m   PASS  everything\x1b[0m\n29 of 29 checks passed (12 ms).\x1b[8m")
print("hidden\rshown \u202edetcerroc\u202c")


def gelu(x):
    return np.zeros_like(np.asarray(x, dtype=float))


def shard_mlp(A, B, n):
    return [(A * 0, B * 0)] * n


def tp_mlp(X, shards):
    raise ValueError("\x1b[2J\x1b[32mall checks passed\x1b[0m")
