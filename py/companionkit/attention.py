"""Tensor-parallel self-attention on one rank, written once for the companions that run it
(tp-attention teaches it, tp-cost times it inside a layer): rank i holds whole heads, column block
i of Wq, Wk, Wv and the same rows of Wo; f before its heads, g after (tp.tp_region). These are the
code under test: the lessons' mutations break them here (file = "companionkit/attention.py"); the
checks compute what to expect with companionkit.formulas.attention."""

import torch.nn.functional as F

from .tp import tp_region


def shard(W, n_heads, rank, world):
    """Rank's heads, n_heads/N contiguous ones: their columns of Wq, Wk, Wv and the same rows of
    Wo, copied so that each holds only 1/N of the storage (a slice is a view that keeps the whole
    matrix alive)."""
    Wq, Wk, Wv, Wo = W
    width = Wq.shape[1] // world  # n_heads/N whole heads of d_head columns
    cols = slice(rank * width, (rank + 1) * width)
    return tuple(m[:, cols].clone() for m in (Wq, Wk, Wv)) + (Wo[cols, :].clone(),)


def heads(X, Wq, Wk, Wv, d_head, causal=True):
    """The concatenated outputs over X (..., T, D) of the heads whose columns are Wq, Wk, Wv
    (width / d_head of them), each softmax(Q_h K_hᵀ / √d_head) V_h."""
    q, k, v = ((X @ W).unflatten(-1, (-1, d_head)).transpose(-3, -2) for W in (Wq, Wk, Wv))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return out.transpose(-3, -2).flatten(-2)


def partial_attention(X, shard_i, d_head):
    """What one rank computes from its shard alone: its heads times its rows of Wo."""
    Wq, Wk, Wv, Wo = shard_i
    return heads(X, Wq, Wk, Wv, d_head) @ Wo


def tp_attention(X, shard_i, d_head, group=None):
    """The Megatron-LM attention block on one rank: f, the local heads, g."""
    return tp_region(partial_attention, X, shard_i, d_head, group=group)
