"""Checks of shard_block(params, n, n_heads): whole heads, Megatron's column/row pairs."""
import numpy as np

from lessonkit.checking import call, expect_close, expect_unchanged, fail
from lessonkit.fixtures import cases
from lessonkit.i18n import _


def check(solution, ref, params, n, n_heads):
    c = call(solution, "shard_block", params, n, n_heads)
    expect_close(c, ref.shard(params, n, n_heads), rtol=0, atol=1e-12,
                 labels=[_("rank {i}'s shard", i=i) for i in range(n)], mistakes=[
        (_("Wo was split by columns. Wo is row-parallel (Megatron's RowParallelLinear): rank i "
           "multiplies its heads' outputs, columns of O, so it needs the same rows of Wo."),
         lambda: ref.shard(params, n, n_heads, how="wo_cols")),
        (_("the heads were dealt out interleaved (rank i got heads i, i + n, ...). Rank i holds "
           "the contiguous heads i·n_heads/n ... (i+1)·n_heads/n − 1, as Megatron splits the "
           "columns of the QKV projection."),
         lambda: ref.shard(params, n, n_heads, how="interleaved")),
        (_("A was split by rows. A is column-parallel (ColumnParallelLinear): each rank needs "
           "all D inputs and keeps F/n of the hidden units, so the GeLU can run without "
           "talking to the other ranks; B is then split by rows."),
         lambda: ref.shard(params, n, n_heads, how="a_rows")),
    ])


def test_worked_example(solution, ref):
    """shard_block splits the lesson's example (D = 4, two heads, F = 4) over two GPUs"""
    params, _X = ref.worked_example()
    check(solution, ref, params, 2, 2)


@cases("D,heads,F,n", [(8, 2, 16, 1), (8, 4, 16, 2), (12, 6, 12, 3), (16, 8, 32, 4),
                       (16, 8, 16, 8)])
def test_random_blocks(solution, ref, fresh, D, heads, F, n):
    """shard_block gives rank i heads i·n_heads/n ... of Wq, Wk, Wv, Wo and block i of A and B"""
    check(solution, ref, ref.random_params(fresh, D, F), n, heads)


def test_copies(solution, ref):
    """shard_block returns copies: no array shares memory with params or another rank's"""
    params = ref.random_params(np.random.default_rng(11), 8, 16)
    c = call(solution, "tpharness.shared_memory", params, 2, 4)
    if c.got:
        found = "; ".join(_("{key} of rank {ranks}", key=key, ranks=", ".join(str(int(r)) for r in ranks))
                          for key, ranks in dict(c.got).items())
        fail(_("These arrays of shard_block(params, 2, 4) share memory with params or with "
               "another rank's shard: {found}. On real GPUs every rank holds its own memory; "
               "take .copy() of each slice (and of each LayerNorm parameter, for every rank).",
               found=found))


def test_inputs_unchanged(solution, ref):
    """shard_block leaves params unchanged"""
    expect_unchanged(call(solution, "shard_block", ref.random_params(np.random.default_rng(12), 8, 16), 2, 4))
