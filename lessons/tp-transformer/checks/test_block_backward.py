"""Checks of block_backward(dist, dZ, cache): dX, every rank's gradients, and the collectives."""
import numpy as np
import pytest

from lessonkit.checking import Call, call, expect_close, expect_unchanged
from lessonkit.fixtures import cases
from lessonkit.i18n import _

SP = [False, True]
SP_IDS = ["without sp", "with sp"]


def backward_counts(sp):
    return {"all_gather": 4, "reduce_scatter": 2, "all_reduce": 1} if sp else {"all_reduce": 2}


def check(solution, ref, X_full, dZ_full, params, n_heads, n, sp):
    X, dZ = ref.layout(X_full, n, sp), ref.layout(dZ_full, n, sp)
    shards = ref.shard(params, n, n_heads)
    c = call(solution, "tpharness.forward_backward", X, shards, n_heads, sp, dZ)
    _Z, dX_full, g_full = ref.one_device(X_full, params, n_heads, dZ_full)
    what = _("block_backward(dist, dZ, cache) on n = {n} GPUs, sp={sp},", n=n, sp=sp)
    # Rank i's share of the one-device gradients (shard keeps LayerNorm's whole on every rank).
    expected = (ref.layout(dX_full, n, sp), ref.shard(g_full, n, n_heads))
    labels = ([_("rank {i}'s dX", i=i) for i in range(n)],
              [_("rank {i}'s gradients", i=i) for i in range(n)])
    wrong = []
    if sp:
        wrong.append((_("the LayerNorm gradients were not summed over ranks: under sp each rank "
                        "saw only its own rows, so its dgamma and dbeta are a part of the sum. "
                        "Add them up with one dist.all_reduce of the four packed together, as "
                        "Megatron all-reduces the gradients of sequence-parallel parameters."),
                      lambda: tuple(ref.run_block(X, shards, n_heads, sp, dZ, ln_summed=False)[1:])))
    got = c.got  # the driver's (Z, forward counts, dX, grads, backward counts)
    pair = Call(c.name, c.args, c.params, (got[2], got[3]), c.after, c.dtypes)
    expect_close(pair, expected, **ref.TOL, what=what, labels=labels, mistakes=wrong)
    ref.expect_counts(_("block_backward(dist, dZ, cache) with sp={sp}", sp=sp), got[4], backward_counts(sp), [
        ({"all_reduce": 3}, _("one all-reduce too many: the backward needs exactly two, f's "
                              "backward at the input of each sub-block (Megatron's "
                              "copy_to_tensor_model_parallel_region). The gradient flowing into "
                              "g's all-reduce is already the same on every rank: g's backward "
                              "is the identity.")),
        ({"all_reduce": 4}, _("the backward all-reduced four times: only f's backward, at the "
                              "input of each sub-block, sums over ranks. g's backward passes the "
                              "gradient through unchanged.")),
        ({"all_gather": 2, "reduce_scatter": 2, "all_reduce": 1},
         _("the backward all-gathered only twice: the gathered LayerNorm outputs were kept "
           "whole in the cache. Keep each rank's rows only and all-gather them again in the "
           "backward (Megatron's choice: every sequence-long activation in the cache is 1/n of "
           "it, which is how activation memory reaches 34·sbh/t).")),
    ])


@pytest.mark.parametrize("sp", SP, ids=SP_IDS)
def test_worked_example(solution, ref, sp):
    """block_backward gives the lesson's example's gradients on two GPUs"""
    params, X = ref.worked_example()
    dZ = np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    check(solution, ref, X, dZ, params, 2, 2, sp)


SIZES = [(4, 8, 2, 16, 1), (4, 8, 4, 16, 2), (6, 12, 6, 12, 3), (8, 16, 8, 32, 4), (8, 16, 8, 16, 8)]


@pytest.mark.parametrize("sp", SP, ids=SP_IDS)
@cases("T,D,heads,F,n", SIZES)
def test_random_blocks(solution, ref, fresh, T, D, heads, F, n, sp):
    """block_backward equals the one-device gradients, each rank's share of them"""
    check(solution, ref, fresh.normal(size=(T, D)), fresh.normal(size=(T, D)),
          ref.random_params(fresh, D, F), heads, n, sp)


@pytest.mark.parametrize("sp", SP, ids=SP_IDS)
def test_inputs_unchanged(solution, ref, sp):
    """block_forward and block_backward leave X, the shards and dZ unchanged"""
    rng = np.random.default_rng(31 + sp)
    shards = ref.shard(ref.random_params(rng, 8, 16), 2, 4)
    c = call(solution, "tpharness.forward_backward", ref.layout(rng.normal(size=(4, 8)), 2, sp),
             shards, 4, sp, ref.layout(rng.normal(size=(4, 8)), 2, sp))
    expect_unchanged(c)
