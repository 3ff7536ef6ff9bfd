"""Vocabulary parallelism: the embedding table and the logits split over n simulated GPUs
along the vocabulary. GPU i owns vocabulary ids [i*V/n, (i+1)*V/n); V is divisible by n."""
import numpy as np


def vocab_range(V, rank, n):
    """The ids GPU `rank` (0 <= rank < n) owns, as (start, end) with end exclusive.

    With V = 8 and n = 2: GPU 0 owns (0, 4), GPU 1 owns (4, 8).
    """
    raise NotImplementedError


def vp_embedding(ids, E_shards):
    """The vocabulary-parallel embedding lookup; returns an array of shape (T, D).

    ids: int array of shape (T,), token ids in [0, V).
    E_shards: list of n arrays of shape (V/n, D); E_shards[i] holds rows start..end-1 of the
    full table E for GPU i's range. GPU i may look up only the ids it owns (id - start in its
    shard) and puts zeros for all others; the sum over GPUs (the all-reduce) equals E[ids].
    """
    raise NotImplementedError


def vp_cross_entropy(logit_shards, targets):
    """The per-token cross-entropy loss, shape (T,): loss_p = -log softmax(z_p)[targets[p]].

    logit_shards: list of n arrays of shape (T, V/n), GPU i's slice of the logits z (T, V).
    targets: int array of shape (T,), global vocabulary ids in [0, V).
    No GPU may see another's logits: combine only the three reduced quantities (the maximum,
    the sum of exponentials, the target's logit). Must stay finite for logits up to 1e3.
    """
    raise NotImplementedError


def vp_cross_entropy_grad(logit_shards, targets):
    """The gradient of sum_p loss_p with respect to the logits, as each GPU's slice:
    a list of n arrays of shape (T, V/n), slice i of softmax(z) - onehot(targets).
    """
    raise NotImplementedError
