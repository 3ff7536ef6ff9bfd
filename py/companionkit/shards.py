"""Which part of a tensor a rank holds, and tensors every rank draws alike: the block arithmetic
the companions' checks share. A lesson's own shard function (the subject, which its mutations
break) stays in its library; these are for computing what to expect."""

import math

import torch


def block(size, rank, world):
    """Rank's contiguous block of `size` indices, [rank·size/N, (rank+1)·size/N)."""
    step = size // world
    return slice(rank * step, (rank + 1) * step)


def rows(M, rank, world):
    """Rank's block of M's rows (a view)."""
    return M[block(M.shape[0], rank, world)]


def cols(M, rank, world):
    """Rank's block of M's columns (a view)."""
    return M[:, block(M.shape[1], rank, world)]


def seeded(*shape, seed, scale=1.0, dtype=torch.float64):
    """The same tensor on every rank and device: drawn in float64 on the CPU from `seed`, scaled,
    then cast to `dtype`."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def drawn(seed, *shapes, fan_in=False, dtype=torch.float64):
    """Tensors of `shapes` drawn one after another from one generator seeded `seed`, in float64 on
    the CPU then cast to `dtype`: the same on every rank and device. `fan_in`: each divided by
    √(its first dimension), a weight's usual scale."""
    g = torch.Generator().manual_seed(seed)
    tensors = [torch.randn(*shape, generator=g, dtype=torch.float64) for shape in shapes]
    return [(t / math.sqrt(t.shape[0]) if fan_in else t).to(dtype) for t in tensors]


def mlp_weights(d, f, seed, dtype=torch.float64):
    """An MLP's full A (d, f) and B (f, d) drawn from `seed` at a weight's scale (drawn, fan_in):
    the same on every rank and device."""
    return drawn(seed, (d, f), (f, d), fan_in=True, dtype=dtype)
