"""Checks of shard_attention(Wq, Wk, Wv, Wo, n_heads, n): whole heads per GPU, contiguous and in
order, as columns of Wq, Wk, Wv and the same rows of Wo."""
import numpy as np
import pytest

from lessonkit import sharding
from lessonkit.checking import call, describe, expect_unchanged, fail
from lessonkit.checkmath import multiple
from lessonkit.i18n import _
from lessonkit.sharding import columns_of, per_gpu, rows_of

NAMES = ("Wq", "Wk", "Wv", "Wo")
TAGS = (0.125, 0.25, 0.375, 0.5)  # tells the four matrices apart


def labelled(D, rng=None):
    """Wq, Wk, Wv, Wo whose entries say where they came from (lessonkit.sharding.labelled, each
    with its own tag); with `rng`, plus a random fraction below 0.4."""
    return [sharding.labelled(D, D, tag, rng) for tag in TAGS]


def heads_text(columns, d_head):
    """'heads 2–3' for whole heads in order, else None."""
    if not columns or len(columns) % d_head or columns[0] % d_head:
        return None
    first, count = columns[0] // d_head, len(columns) // d_head
    if columns != list(range(first * d_head, (first + count) * d_head)):
        return None
    return _("head {h}", h=first) if count == 1 else _("heads {a}–{b}", a=first,
                                                         b=first + count - 1)


def expect_heads(c, D, n_heads, n, weights=None):
    """GPU i holds heads i·n_heads/n … (i+1)·n_heads/n − 1: those columns of the labelled
    Wq, Wk, Wv and the same rows of Wo (`weights`, labelled(D) unless given)."""
    d_head, width = D // n_heads, D // n
    weights = weights or labelled(D)
    for i, shard in enumerate(per_gpu(c, n, NAMES)):
        want = list(range(i * width, (i + 1) * width))
        owned = heads_text(want, d_head)
        for name, block, full in zip(NAMES[:3], shard[:3], weights[:3]):
            if block.shape != (D, width):
                hint = ""
                if block.shape == (width, D):
                    hint = _(" That is a block of rows; {name} is split by columns, one column "
                             "per entry of a head's queries, keys or values.", name=name)
                fail(_("{name}_{i} (GPU {i}'s block of {name}) has shape {shape}; with D = {D} "
                       "and n = {n} it should be {want}: the columns of {owned}.{hint}\n"
                       "{inputs}", name=name, i=i, shape=block.shape, D=D, n=n,
                       want=(D, width), owned=owned, hint=hint, inputs=c.inputs()))
            cols = columns_of(block)
            if cols != want or not np.array_equal(block, full[:, want]):
                fail(_("GPU {i} got columns {cols} of {name}; it should get columns {want} "
                       "({owned}).{hint}\n{inputs}", i=i, cols=cols, name=name, want=want,
                       owned=owned, hint=column_hint(cols, i, n, n_heads, d_head, width),
                       inputs=c.inputs()))
        block = shard[3]
        if block.shape != (width, D):
            hint = ""
            if block.shape == (D, width):
                hint = _(" That is a block of columns. Wo is split by rows: row j of Wo "
                         "multiplies entry j of the concatenated head outputs, so GPU i needs "
                         "the rows of its own heads, and its product with them is a full "
                         "(T, D) partial output for the all-reduce to add up.")
            fail(_("Wo_{i} (GPU {i}'s block of Wo) has shape {shape}; it should be {want}: the "
                   "rows of {owned}.{hint}\n{inputs}", i=i, shape=block.shape, want=(width, D),
                   owned=owned, hint=hint, inputs=c.inputs()))
        rows = rows_of(block)
        if rows != want or not np.array_equal(block, weights[3][want, :]):
            fail(_("GPU {i} got rows {rows} of Wo; it should get rows {want}, the same range "
                   "as its columns of Wq, Wk and Wv ({owned}).\n{inputs}", i=i, rows=rows,
                   want=want, owned=owned, inputs=c.inputs()))


def column_hint(cols, i, n, n_heads, d_head, width):
    per_gpu = n_heads // n
    strided_heads = [h * d_head + k for h in range(i, n_heads, n) for k in range(d_head)]
    if n > 1 and cols == strided_heads:
        return _(" You dealt the heads out in turn (GPU i gets heads i, i + n, …). Each GPU "
                 "gets one contiguous run of {per_gpu} heads: GPU i holds heads "
                 "i·{per_gpu} … i·{per_gpu} + {last}.", per_gpu=per_gpu, last=per_gpu - 1)
    if n > 1 and cols == list(range(i, n * width, n)):
        return _(" You took every n-th column (W[:, i::n]), which cuts heads apart. Each GPU "
                 "gets whole heads: the contiguous columns i·D/n … (i+1)·D/n − 1.")
    if n > 1 and cols == list(range((n - 1 - i) * width, (n - i) * width)):
        return _(" The blocks are in reverse order: GPU 0 must get the first heads.")
    return ""


@pytest.mark.parametrize("D,n_heads,n", [(4, 2, 2), (12, 6, 3), (16, 8, 2)],
                         ids=["D=4 2 heads n=2", "D=12 6 heads n=3", "D=16 8 heads n=2"])
def test_count_and_shapes(solution, D, n_heads, n):
    """shard_attention returns n tuples: Wq_i, Wk_i, Wv_i of shape (D, D/n) and Wo_i of shape (D/n, D)"""
    c = call(solution, "shard_attention", *labelled(D), n_heads, n)
    for shard in per_gpu(c, n, NAMES):
        if [m.shape for m in shard] != [(D, D // n)] * 3 + [(D // n, D)]:
            expect_heads(c, D, n_heads, n)  # explains which shape is wrong and why


def test_example_split(solution, example):
    """shard_attention splits the worked example as in the lesson: GPU 0 gets head 0, GPU 1 head 1"""
    e = example
    c = call(solution, "shard_attention", e.Wq, e.Wk, e.Wv, e.Wo, e.n_heads, 2)
    for i, (got, want) in enumerate(zip(per_gpu(c, 2, NAMES), e.shards)):
        if not all(a.shape == b.shape and np.array_equal(a, b) for a, b in zip(got, want)):
            fail(_("GPU {i} should get Wq_{i} = Wk_{i} = Wv_{i} = {qkv} (columns {a}–{b} of "
                   "the identity) and Wo_{i} = {o}; it got Wq_{i} = {q}, Wk_{i} = {k}, "
                   "Wv_{i} = {v} and Wo_{i} = {got_o}.", i=i, qkv=describe(want[0]),
                   a=2 * i, b=2 * i + 1, o=describe(want[3]), q=describe(got[0]),
                   k=describe(got[1]), v=describe(got[2]), got_o=describe(got[3])))


@pytest.mark.parametrize("D,n_heads,n", [(8, 4, 2), (12, 6, 3), (16, 8, 4), (8, 4, 4)],
                         ids=["D=8 4 heads n=2", "D=12 6 heads n=3", "D=16 8 heads n=4",
                              "D=8 4 heads n=4 (one head each)"])
def test_whole_heads_in_order(solution, D, n_heads, n):
    """GPU i gets heads i·n_heads/n … (i+1)·n_heads/n − 1: those columns of Wq, Wk, Wv and the same rows of Wo"""
    expect_heads(call(solution, "shard_attention", *labelled(D), n_heads, n), D, n_heads, n)


def test_one_gpu(solution):
    """with n = 1 the only GPU gets every head: all of Wq, Wk, Wv and Wo"""
    expect_heads(call(solution, "shard_attention", *labelled(6), 3, 1), 6, 3, 1)


def test_fresh_sizes(solution, fresh):
    """GPU i gets heads i·n_heads/n … (i+1)·n_heads/n − 1, for sizes and entries drawn afresh on every run"""
    # 2 to 4 GPUs of 2 or 3 heads: every classic split differs from the right one.
    n = int(fresh.integers(2, 5))
    n_heads = multiple(fresh, n, 2, 4)
    D = multiple(fresh, n_heads, 1, 4)
    weights = labelled(D, fresh)
    expect_heads(call(solution, "shard_attention", *weights, n_heads, n), D, n_heads, n, weights)


def test_inputs_unchanged(solution):
    """shard_attention leaves the weights unchanged"""
    expect_unchanged(call(solution, "shard_attention", *labelled(8), 4, 2))
