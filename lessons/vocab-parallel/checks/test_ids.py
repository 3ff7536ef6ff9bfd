"""Checks of vocab_range(V, rank, n): GPU rank owns ids [rank·V/n, (rank+1)·V/n)."""
import numpy as np

from lessonkit.checking import call, describe, expect_close, fail
from lessonkit.checkmath import gpu_count
from lessonkit.fixtures import cases
from lessonkit.i18n import _


def mistakes(V, rank, n):
    size = V // n
    start, end = rank * size, (rank + 1) * size
    return [
        (_("your end is the last id GPU {rank} owns, {last}; this lesson's end is exclusive, "
           "one past the last id, like a Python slice: ids[start:end].",
           rank=rank, last=end - 1), lambda: (start, end - 1)),
        (_("your range is shifted by one: GPU {rank} starts at rank·V/n = {start}.",
           rank=rank, start=start), lambda: (start + 1, end + 1)),
        (_("your range starts one id too late: GPU {rank}'s first id is rank·V/n = {start}.",
           rank=rank, start=start), lambda: (start + 1, end)),
        (_("your range ends one id too late and overlaps the next GPU's: it should stop at "
           "(rank+1)·V/n = {end}, exclusive.", end=end), lambda: (start, end + 1)),
        (_("your range is GPU {other}'s; count the GPUs from 0, so GPU rank starts at "
           "rank·V/n.", other=rank + 1), lambda: (start + size, end + size)),
    ]


def expect_range(solution, V, rank, n):
    c = call(solution, "vocab_range", V, rank, n)
    got = c.got
    # A 2-entry integer array unpacks like a pair, so it counts as one.
    pair = isinstance(got, (tuple, list)) or isinstance(got, np.ndarray) and got.ndim == 1
    if not pair or len(got) != 2:
        fail(_("{fn} should return a pair (start, end); it returned {got}.\n{inputs}",
               fn=c.text(), got=describe(got), inputs=c.inputs()))
    # Python floats by type (an array's entries are numpy floats whatever it held: its dtype
    # says what the learner returned).
    if any(type(v) is float for v in got) or any(d.startswith("float") for d in c.dtypes):
        fail(_("{fn} returned {got}, with floating-point numbers; start and end are ids, "
               "integers. V / n is a float in Python 3: use V // n.\n{inputs}",
               fn=c.text(), got=describe(got), inputs=c.inputs()))
    size = V // n
    expect_close(c, (rank * size, (rank + 1) * size), rtol=0, atol=0,
                 mistakes=mistakes(V, rank, n))


def test_example(solution):
    """vocab_range splits V = 8 over 2 GPUs as in the lesson: (0, 4) and (4, 8)"""
    for rank in range(2):
        expect_range(solution, 8, rank, 2)


@cases("V,n", [(6, 1), (12, 3), (32, 4), (16, 16), (50304, 8)])
def test_every_rank(solution, V, n):
    """vocab_range gives every GPU its own contiguous V/n ids, end exclusive, in GPU order"""
    for rank in range(n):
        expect_range(solution, V, rank, n)


def test_fresh_sizes(solution, fresh):
    """vocab_range gives every GPU its own ids for vocabulary sizes drawn afresh on every run"""
    n = gpu_count(fresh, 32)
    V = n * int(fresh.integers(1, 4000))
    for rank in range(n):
        expect_range(solution, V, rank, n)
