"""Checks of shard_mlp(A, B, n): column blocks of A with the matching row blocks of B."""
import numpy as np

from lessonkit import sharding
from lessonkit.checking import call, describe, expect_unchanged, fail
from lessonkit.checkmath import multiple
from lessonkit.fixtures import cases
from lessonkit.i18n import _
from lessonkit.sharding import columns_of, per_gpu, rows_of


def labelled(D, F, rng=None):
    """A and B whose entries say where they came from (A[r, c] = 1000 r + c, B[f, d] =
    1000 f + d + 0.5), so any block shows which columns / rows it holds; with `rng`, plus a
    random fraction below 0.4."""
    return sharding.labelled(D, F, rng=rng), sharding.labelled(F, D, 0.5, rng)


def ranges(F, n):
    w = F // n
    return [list(range(i * w, (i + 1) * w)) for i in range(n)]


def row_split():
    """The classic mistake, named: it breaks the math, not just a shape."""
    return _("You split A by rows; tensor parallelism here splits A by columns, so that each "
             "GPU can apply GeLU to its own columns of XA without talking to the others. "
             "GeLU of a sum is not the sum of GeLUs: see the lesson's counterexample, "
             "[4, 3] + [-9, 3] = [-5, 6], where ReLU after the sum gives [0, 6] and before "
             "it [4, 6].")


def expect_blocks(c, A, B, n):
    D, F = A.shape
    want = ranges(F, n)
    for i, (a, b) in enumerate(per_gpu(c, n, ("A", "B"))):
        w = F // n
        if a.shape != (D, w):
            hint = ""
            if a.ndim == 2 and a.shape[1] == F and n > 1:
                hint = " " + row_split()
            elif a.shape[:1] == (D,) and a.shape[1] != w:
                hint = " " + _("Check the slice bounds: Python slices stop before their end "
                               "index.")
            fail(_("A_{i} (GPU {i}'s block of A) has shape {got}; with A of shape {shape} and "
                   "n = {n} it should be {want}, columns {first}..{last}.", i=i, got=a.shape,
                   shape=A.shape, n=n, want=(D, w), first=w * i, last=w * (i + 1) - 1)
                 + hint + "\n" + c.inputs())
        if b.shape != (w, D):
            hint = (" " + _("B must be split by rows, the rows that meet GPU i's columns of A.")
                    if b.shape == (F, D // n) else "")
            fail(_("B_{i} has shape {got}; it should be {want}, rows {first}..{last} of B.",
                   i=i, got=b.shape, want=(w, D), first=w * i, last=w * (i + 1) - 1)
                 + hint + "\n" + c.inputs())
        cols, rows = columns_of(a), rows_of(b)
        if cols != want[i] or not np.array_equal(a, A[:, want[i]]):
            hint = ""
            if cols == want[n - 1 - i] and n > 1:
                hint = " " + _("The blocks are in reverse order: GPU 0 must get the first block.")
            elif cols == list(range(i, F, n)):
                hint = " " + _("You took every n-th column (A[:, i::n]); each GPU gets one "
                               "contiguous block, A[:, i*F//n:(i+1)*F//n].")
            fail(_("GPU {i} got columns {got} of A; it should get columns {want}.", i=i,
                   got=cols, want=want[i]) + hint + "\n" + c.inputs())
        if rows != want[i] or not np.array_equal(b, B[want[i], :]):
            hint = (" " + _("B_i must hold the same index range of rows as A_i holds columns, "
                            "so that GPU i's hidden units meet their own rows of B.")
                    if rows else "")
            fail(_("GPU {i} got rows {got} of B; it should get rows {want}, the same range as "
                   "its columns of A.", i=i, got=rows, want=want[i]) + hint + "\n" + c.inputs())


@cases("D,F,n", [(2, 4, 2), (3, 12, 4), (4, 16, 8)])
def test_count_and_shapes(solution, D, F, n):
    """shard_mlp returns n pairs (A_i, B_i) of shapes (D, F/n) and (F/n, D)"""
    A, B = labelled(D, F)
    c = call(solution, "shard_mlp", A, B, n)
    for i, (a, b) in enumerate(per_gpu(c, n, ("A", "B"))):
        if a.shape != (D, F // n) or b.shape != (F // n, D):
            expect_blocks(c, A, B, n)  # explains which shape is wrong and why


def test_example_split(solution, example):
    """shard_mlp splits the worked example as in the lesson: GPU 0 gets columns 0–1 of A and rows 0–1 of B"""
    A, B = example.A, example.B
    c = call(solution, "shard_mlp", A, B, 2)
    for i, (a, b) in enumerate(per_gpu(c, 2, ("A", "B"))):
        cols = slice(2 * i, 2 * i + 2)
        if a.shape != (2, 2) or b.shape != (2, 2) or not (
                np.array_equal(a, A[:, cols]) and np.array_equal(b, B[cols, :])):
            hint = " " + row_split() if a.ndim == 2 and a.shape[1] == 4 else ""
            fail(_("GPU {i} should get A_{i} = {want_a} and B_{i} = {want_b}; it got "
                   "A_{i} = {got_a} and B_{i} = {got_b}.", i=i, want_a=describe(A[:, cols]),
                   want_b=describe(B[cols, :]), got_a=describe(a), got_b=describe(b)) + hint)


@cases("D,F,n", [(3, 12, 3), (5, 32, 4), (2, 8, 8)])
def test_contiguous_blocks(solution, D, F, n):
    """GPU i gets the i-th contiguous block of A's columns and the same rows of B, in GPU order"""
    A, B = labelled(D, F)
    expect_blocks(call(solution, "shard_mlp", A, B, n), A, B, n)


def test_one_gpu(solution):
    """with n = 1 the only GPU gets all of A and all of B"""
    A, B = labelled(3, 6)
    expect_blocks(call(solution, "shard_mlp", A, B, 1), A, B, 1)


def test_one_column_each(solution):
    """with n = F each GPU gets exactly one column of A and one row of B"""
    A, B = labelled(2, 6)
    expect_blocks(call(solution, "shard_mlp", A, B, 6), A, B, 6)


def test_fresh_sizes(solution, fresh):
    """GPU i gets the i-th block of A's columns and the same rows of B, for sizes and entries drawn afresh on every run"""
    # 3 to 8 GPUs of 2 to 4 columns each: every classic split differs from the right one.
    n = int(fresh.integers(3, 9))
    D, F = int(fresh.integers(1, 9)), multiple(fresh, n, 2, 5)
    A, B = labelled(D, F, fresh)
    expect_blocks(call(solution, "shard_mlp", A, B, n), A, B, n)


def test_inputs_unchanged(solution):
    """shard_mlp leaves A and B unchanged"""
    A, B = labelled(3, 8)
    c = call(solution, "shard_mlp", A, B, 2)
    expect_unchanged(c)
