"""Checks of reduce_scatter(partials): the sum of the GPUs' partials, each GPU keeping its rows."""
import numpy as np

from lessonkit.checking import call, expect_unchanged
from lessonkit.checkmath import gpu_count
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# Sums of a few numbers: float32 arithmetic passes, any wrong row or missing term does not.
RTOL = 1e-6
TOLERANCE = dict(rtol=RTOL, atol=RTOL)  # rtol is relative to the largest entry of the result


def mistakes(ref, partials):
    n = len(partials)
    total = sum(np.asarray(p, dtype=float) for p in partials)
    return [
        (_("GPU i got row chunk i of its own partial only, without the other GPUs' "
           "contributions. A reduce-scatter first adds up all n partials (the reduce), then "
           "hands out the sum's row chunks (the scatter): chunk i of P_0 + ... + P_(n-1)."),
         lambda: [ref.row_chunks(p, n)[i] for i, p in enumerate(partials)]),
        (_("every GPU got all T rows of the sum: that is an all-reduce. A reduce-scatter "
           "leaves GPU i only its own T/n rows of the sum; the all-gather after it brings the "
           "rows back when they are needed."),
         lambda: [total] * n),
        (_("the chunks are in reverse GPU order: GPU 0 must get the first T/n rows."),
         lambda: ref.row_chunks(total, n)[::-1]),
        (_("the sum was split along the columns (the hidden dimension D); sequence "
           "parallelism splits along the rows, the sequence: np.split(total, n, axis=0)."),
         lambda: np.split(total, n, axis=1)),
    ]


def check(solution, ref, partials):
    c = call(solution, "reduce_scatter", partials)
    ref.compare_chunks(c, ref.reduce_scatter(partials), **TOLERANCE, mistakes=mistakes(ref, partials))


def test_worked_example(solution, ref, example):
    """reduce_scatter reproduces the worked example: GPU 0 gets [[1, 2], [3, 2]], GPU 1 [[4, 3], [3, 3]]"""
    check(solution, ref, example.partials)


@cases("T,D,n", [(5, 3, 1), (6, 4, 2), (12, 5, 4), (8, 16, 8), (32, 8, 8)])
def test_random_partials(solution, ref, T, D, n):
    """reduce_scatter gives GPU i rows i·T/n … (i+1)·T/n − 1 of the sum of all partials"""
    rng = np.random.default_rng(100 * T + 10 * D + n)
    check(solution, ref, [rng.normal(size=(T, D)) for _gpu in range(n)])


def test_inputs_unchanged(solution):
    """reduce_scatter leaves the partials unchanged"""
    rng = np.random.default_rng(3)
    expect_unchanged(call(solution, "reduce_scatter", [rng.normal(size=(4, 3)) for _gpu in range(2)]))


def test_fresh_partials(solution, ref, fresh):
    """reduce_scatter gives GPU i its rows of the sum for partials drawn afresh on every run"""
    n = gpu_count(fresh, 8)
    T, D = n * int(fresh.integers(1, 5)), int(fresh.integers(1, 9))
    check(solution, ref, [fresh.normal(size=(T, D)) for _gpu in range(n)])
