"""Checks of block_forward(dist, X, shards, n_heads, sp): the block's output and its collectives."""
import math

import numpy as np
import pytest

from lessonkit.checking import call, expect_close, expect_unchanged
from lessonkit.fixtures import cases
from lessonkit.i18n import _

SP = [False, True]
SP_IDS = ["without sp", "with sp"]


def forward_counts(sp):
    return {"all_gather": 2, "reduce_scatter": 2} if sp else {"all_reduce": 2}


def mistakes(ref, X, shards, n_heads, sp):
    n, D = len(shards), shards[0]["Wq"].shape[0]
    run = lambda **kw: ref.run_block(X, shards, n_heads, sp, **kw)[0]  # noqa: E731
    found = [
        (_("the sum over ranks is missing: each rank kept its own partial result of the "
           "row-parallel Wo and B, as if the all-reduce (g, Megatron's "
           "reduce_from_tensor_model_parallel_region) were never done. Sum the n partials "
           "with dist.all_reduce (with sp: dist.reduce_scatter)."),
         lambda: run(own_partial=True)),
        (_("the attention scores were scaled by 1/√D; scale by 1/√d_head, the width of one head "
           "(D / n_heads): tpsim.heads_forward does it when told the number of local heads."),
         lambda: run(scale=lambda dh: 1 / math.sqrt(D))),
        (_("each rank ran its heads as one wide head (scores scaled by the shard's width): pass "
           "n_local_heads = n_heads / n to heads_forward."), lambda: run(one_head=True)),
    ]
    if not sp:
        found.insert(0, (_("the residual X was counted n = {n} times: it was added to every "
                           "rank's partial before the all-reduce, which then summed n copies. "
                           "Add it once, after the sum.", n=n), lambda: run(residual=n)))
    return found


def check(solution, ref, X_full, params, n_heads, n, sp):
    X = ref.layout(X_full, n, sp)
    shards = ref.shard(params, n, n_heads)
    c = call(solution, "tpharness.forward", X, shards, n_heads, sp)
    Z_full = ref.one_device(X_full, params, n_heads)[0]
    what = _("block_forward(dist, X, shards, n_heads, sp={sp}) on n = {n} GPUs", sp=sp, n=n)
    expect_close(c, ref.layout(Z_full, n, sp), **ref.TOL, part=0, what=what,
                 labels=[_("rank {i}'s Z", i=i) for i in range(n)],
                 mistakes=mistakes(ref, X, shards, n_heads, sp))
    ref.expect_counts(what, c.got[1], forward_counts(sp), [
        ({"all_reduce": 2}, _("with sp the all-reduce becomes a reduce-scatter (after Wo and "
                              "after B) and an all-gather (after each LayerNorm).")),
        ({"all_gather": 2, "reduce_scatter": 2, "all_reduce": 2},
         _("with sp the reduce-scatter replaces the all-reduce; it does not come on top of it.")),
    ])


@pytest.mark.parametrize("sp", SP, ids=SP_IDS)
def test_worked_example(solution, ref, sp):
    """block_forward gives the lesson's example on two GPUs, with two collectives per direction"""
    params, X = ref.worked_example()
    check(solution, ref, X, params, 2, 2, sp)


SIZES = [(4, 8, 2, 16, 1), (4, 8, 4, 16, 2), (6, 12, 6, 12, 3), (8, 16, 8, 32, 4), (8, 16, 8, 16, 8)]


@pytest.mark.parametrize("sp", SP, ids=SP_IDS)
@cases("T,D,heads,F,n", SIZES)
def test_random_blocks(solution, ref, fresh, T, D, heads, F, n, sp):
    """block_forward equals the one-device block, in the layout of X"""
    check(solution, ref, fresh.normal(size=(T, D)), ref.random_params(fresh, D, F), heads, n, sp)


@pytest.mark.parametrize("sp", SP, ids=SP_IDS)
def test_inputs_unchanged(solution, ref, sp):
    """block_forward leaves X and the shards unchanged"""
    rng = np.random.default_rng(21 + sp)
    shards = ref.shard(ref.random_params(rng, 8, 16), 2, 4)
    c = call(solution, "tpharness.forward", ref.layout(rng.normal(size=(4, 8)), 2, sp), shards, 4, sp)
    expect_unchanged(c)
