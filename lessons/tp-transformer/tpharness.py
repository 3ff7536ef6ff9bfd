"""How the checks drive your functions: a SimDist and a cache cannot travel to the checks, so
these run on your side and hand back only numbers and the collectives counted.

You never need to import this module; it is here so you can see what the checks do.
"""
import numpy as np

import tpsim


def forward(solution, X, shards, n_heads, sp):
    """block_forward on a fresh SimDist(len(X)): (Z, the collectives it issued)."""
    dist = tpsim.SimDist(len(X))
    Z, _cache = solution.block_forward(dist, X, shards, n_heads, sp)
    return Z, dict(dist.counts)


def forward_backward(solution, X, shards, n_heads, sp, dZ):
    """block_forward, then block_backward on its cache, on one SimDist whose counts are reset
    in between: (Z, forward counts, dX, grads, backward counts)."""
    dist = tpsim.SimDist(len(X))
    Z, cache = solution.block_forward(dist, X, shards, n_heads, sp)
    counts = dict(dist.counts)
    dist.reset()
    dX, grads = solution.block_backward(dist, dZ, cache)
    return Z, counts, dX, grads, dict(dist.counts)


def train(solution, blocks, X, target, n, n_heads, steps, lr, sp):
    """train_tp, with the collectives of every SimDist it creates: (losses, [counts, ...])."""
    created = []
    init = tpsim.SimDist.__init__

    def counted_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        created.append(self)

    tpsim.SimDist.__init__ = counted_init
    try:
        losses = solution.train_tp(blocks, X, target, n, n_heads, steps, lr, sp)
    finally:
        tpsim.SimDist.__init__ = init
    return losses, [dict(d.counts) for d in created]


def shared_memory(solution, params, n, n_heads):
    """shard_block's arrays that share memory with `params` or with another rank's: {key: [the
    ranks whose array under that key does]} (empty when every array is a copy)."""
    shards = solution.shard_block(params, n, n_heads)
    found = {}
    for i, shard in enumerate(shards):
        others = list(params.values()) + [v for j, s in enumerate(shards) if j != i for v in dict(s).values()]
        for key, value in dict(shard).items():
            if any(np.shares_memory(value, o) for o in others if isinstance(o, np.ndarray)):
                found.setdefault(str(key), []).append(i)
    return found
