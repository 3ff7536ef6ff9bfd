"""Checks of all_gather(chunks): the GPUs' row chunks stacked back into the whole sequence."""
import numpy as np

from lessonkit.checking import call, expect_close, expect_unchanged
from lessonkit.checkmath import gpu_count
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# The rows come back as they went in; float32 copies (off by ~1e-7) pass.
RTOL = 1e-6


def mistakes(chunks):
    chunks = [np.asarray(c, dtype=float) for c in chunks]
    D = chunks[0].shape[1]
    return [
        (_("the chunks are stacked in reverse GPU order: GPU 0's rows come first, then GPU "
           "1's, and so on, so that row r of the result is row r of the sequence."),
         lambda: np.concatenate(chunks[::-1], axis=0)),
        (_("the chunks are interleaved row by row (row 0 of every GPU, then row 1 of every "
           "GPU, ...); each GPU holds a contiguous block of the sequence: stack the blocks "
           "whole, one after the other (np.concatenate(chunks, axis=0))."),
         lambda: np.stack(chunks, axis=1).reshape(-1, D)),
        (_("the chunks are joined side by side, along the columns; an all-gather of "
           "sequence chunks joins them along the rows (axis 0)."),
         lambda: np.concatenate(chunks, axis=1)),
        (_("you returned the chunks stacked along a new axis (a list of n arrays, or "
           "np.stack); the result is one (T, D) array: np.concatenate(chunks, axis=0)."),
         lambda: np.stack(chunks)),
    ]


def check(solution, ref, chunks):
    c = call(solution, "all_gather", chunks)
    expect_close(c, ref.all_gather(chunks), rtol=RTOL, atol=RTOL, mistakes=mistakes(chunks))


def test_worked_example(solution, ref, example):
    """all_gather reproduces the worked example: [[1, 2], [3, 2]] and [[4, 3], [3, 3]] give the 4 × 2 sum back"""
    check(solution, ref, example.chunks)


@cases("T,D,n", [(5, 3, 1), (6, 4, 2), (8, 5, 4), (8, 6, 8), (32, 3, 8)])
def test_random_chunks(solution, ref, T, D, n):
    """all_gather stacks the chunks in GPU order: rows i·T/n … (i+1)·T/n − 1 come from GPU i"""
    rows = T // n
    rng = np.random.default_rng(100 * rows + 10 * D + n)
    check(solution, ref, [rng.normal(size=(rows, D)) for _gpu in range(n)])


def test_inputs_unchanged(solution):
    """all_gather leaves the chunks unchanged"""
    rng = np.random.default_rng(4)
    expect_unchanged(call(solution, "all_gather", [rng.normal(size=(2, 3)) for _gpu in range(3)]))


def test_fresh_chunks(solution, ref, fresh):
    """all_gather stacks the chunks in GPU order for chunks drawn afresh on every run"""
    n, rows, D = gpu_count(fresh, 8), int(fresh.integers(1, 5)), int(fresh.integers(1, 9))
    check(solution, ref, [fresh.normal(size=(rows, D)) for _gpu in range(n)])
