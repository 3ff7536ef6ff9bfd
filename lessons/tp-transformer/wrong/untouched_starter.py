# catches: test_shard_block::test_worked_example, test_shard_block::test_random_blocks[D=8 heads=2 F=16 n=1], test_shard_block::test_random_blocks[D=8 heads=4 F=16 n=2], test_shard_block::test_random_blocks[D=12 heads=6 F=12 n=3], test_shard_block::test_random_blocks[D=16 heads=8 F=32 n=4], test_shard_block::test_random_blocks[D=16 heads=8 F=16 n=8], test_shard_block::test_copies, test_shard_block::test_inputs_unchanged, test_block_forward::test_worked_example[without sp], test_block_forward::test_worked_example[with sp], test_block_forward::test_random_blocks[T=4 D=8 heads=2 F=16 n=1-without sp], test_block_forward::test_random_blocks[T=4 D=8 heads=2 F=16 n=1-with sp], test_block_forward::test_random_blocks[T=4 D=8 heads=4 F=16 n=2-without sp], test_block_forward::test_random_blocks[T=4 D=8 heads=4 F=16 n=2-with sp], test_block_forward::test_random_blocks[T=6 D=12 heads=6 F=12 n=3-without sp], test_block_forward::test_random_blocks[T=6 D=12 heads=6 F=12 n=3-with sp], test_block_forward::test_random_blocks[T=8 D=16 heads=8 F=32 n=4-without sp], test_block_forward::test_random_blocks[T=8 D=16 heads=8 F=32 n=4-with sp], test_block_forward::test_random_blocks[T=8 D=16 heads=8 F=16 n=8-without sp], test_block_forward::test_random_blocks[T=8 D=16 heads=8 F=16 n=8-with sp], test_block_forward::test_inputs_unchanged[without sp], test_block_forward::test_inputs_unchanged[with sp], test_block_backward::test_worked_example[without sp], test_block_backward::test_worked_example[with sp], test_block_backward::test_random_blocks[T=4 D=8 heads=2 F=16 n=1-without sp], test_block_backward::test_random_blocks[T=4 D=8 heads=2 F=16 n=1-with sp], test_block_backward::test_random_blocks[T=4 D=8 heads=4 F=16 n=2-without sp], test_block_backward::test_random_blocks[T=4 D=8 heads=4 F=16 n=2-with sp], test_block_backward::test_random_blocks[T=6 D=12 heads=6 F=12 n=3-without sp], test_block_backward::test_random_blocks[T=6 D=12 heads=6 F=12 n=3-with sp], test_block_backward::test_random_blocks[T=8 D=16 heads=8 F=32 n=4-without sp], test_block_backward::test_random_blocks[T=8 D=16 heads=8 F=32 n=4-with sp], test_block_backward::test_random_blocks[T=8 D=16 heads=8 F=16 n=8-without sp], test_block_backward::test_random_blocks[T=8 D=16 heads=8 F=16 n=8-with sp], test_block_backward::test_inputs_unchanged[without sp], test_block_backward::test_inputs_unchanged[with sp], test_train_tp::test_matches_one_device[n=1], test_train_tp::test_matches_one_device[n=2], test_train_tp::test_matches_one_device[n=4], test_train_tp::test_matches_one_device[n=2 sp], test_train_tp::test_matches_one_device[n=4 sp], test_train_tp::test_inputs_unchanged
# The starter as given: every function raises NotImplementedError.
"""A whole tensor-parallel transformer block on n simulated GPUs, trained.

Rank i's data is item i of a list. tpsim gives you the GPUs (SimDist) and the local math
(LayerNorm, GeLU, attention over whole heads, each with its backward): import tpsim.

A block's parameters: ln1_g, ln1_b (D,); Wq, Wk, Wv, Wo (D, D); ln2_g, ln2_b (D,); A (D, F);
B (F, D). Pre-LN, no biases: Y = X + MHA(LN1(X)) Wo; Z = Y + GeLU(LN2(Y) A) B.
"""
import numpy as np

import tpsim


def shard_block(params, n, n_heads):
    """Split one block's parameters over n GPUs.

    Returns a list of n dicts with the keys of params. Rank i holds heads
    i*n_heads/n ... (i+1)*n_heads/n - 1 (contiguous): those columns of Wq, Wk, Wv, each
    (D, D/n), and the same rows of Wo, (D/n, D); column block i of A, (D, F/n); row block i
    of B, (F/n, D); and its own copies of ln1_g, ln1_b, ln2_g, ln2_b, (D,). Every array is a
    copy: nothing shares memory with params or with another rank.
    """
    raise NotImplementedError


def block_forward(dist, X, shards, n_heads, sp=False):
    """One block on dist.n GPUs: returns (Z, cache).

    X: a list of n arrays. Without sp each is the whole (T, D) input (identical copies);
    with sp item i is rows i*T/n ... (i+1)*T/n - 1, (T/n, D). Z comes back in the same layout.
    shards: shard_block's list. All communication goes through dist: exactly
    {all_reduce: 2} without sp, {all_gather: 2, reduce_scatter: 2} with sp.
    cache: whatever block_backward needs (with sp, keep only each rank's rows of the
    LayerNorm outputs).
    """
    raise NotImplementedError


def block_backward(dist, dZ, cache):
    """The block's backward: returns (dX, grads).

    dZ: in Z's layout (without sp: n identical copies of the gradient of the replicated
    output). dX: in X's layout. grads: a list of n dicts with the shard keys, rank i's
    gradient of its own shard (same shapes); the LayerNorm entries are the full gradient,
    identical on every rank. Exactly {all_reduce: 2} without sp; with sp
    {all_gather: 4, reduce_scatter: 2, all_reduce: 1} (the four LayerNorm gradients summed
    in one all-reduce of one packed array).
    """
    raise NotImplementedError


def train_tp(blocks, X, target, n, n_heads, steps, lr, sp=False):
    """Train a stack of blocks with tensor parallelism on a SimDist(n): returns steps floats.

    blocks: a list of full parameter dicts, applied in order; X, target: (T, D). Each step:
    the loss 0.5 * sum((Z - target)**2) / (T*D) of the stack's output before the update,
    then the backward and SGD on every rank's shard (w -= lr * grad). With sp each rank's
    rows give a partial sum, added with one all_reduce per step, and the backward starts
    from dZ_i = (Z_i - target_i) / (T*D). Do not change the inputs.
    """
    raise NotImplementedError
