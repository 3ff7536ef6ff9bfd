"""Tensor-parallel self-attention: multi-head attention split by heads over n simulated GPUs."""
import numpy as np


def attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    """Multi-head self-attention on one device; returns an array of shape (T, D).

    X has shape (T, D): T tokens of width D. Wq, Wk, Wv and Wo have shape (D, D). n_heads
    divides D, and every head has width d_head = D // n_heads. Head h uses columns
    h*d_head ... (h+1)*d_head - 1 of Q = X @ Wq, K = X @ Wk and V = X @ Wv:
        scores_h = Q_h @ K_h.T / sqrt(d_head)                      shape (T, T)
    With causal=True, token p may attend only to tokens 0 ... p (itself included).
    Each row of scores_h goes through a numerically stable softmax (over the last axis), and
        out = concat_h(softmax(scores_h) @ V_h) @ Wo               shape (T, D)
    No biases.
    """
    raise NotImplementedError


def shard_attention(Wq, Wk, Wv, Wo, n_heads, n):
    """Split the attention weights for n GPUs by heads: return [(Wq_0, Wk_0, Wv_0, Wo_0), ...].

    All four weights have shape (D, D); n divides n_heads. GPU i gets the heads
    i*n_heads/n ... (i+1)*n_heads/n - 1 (contiguous, in order): those heads' columns of Wq, Wk
    and Wv (shape (D, D/n) each) and the same rows of Wo (shape (D/n, D)).
    """
    raise NotImplementedError


def tp_attention(X, shards, n_heads, causal=True):
    """The tensor-parallel forward pass; returns an array of shape (T, D).

    X has shape (T, D); shards is the list of n tuples (Wq_i, Wk_i, Wv_i, Wo_i); n_heads is the
    whole model's head count, so each GPU holds n_heads / n heads of width d_head = D / n_heads.
    GPU i runs its own heads on its own shard (attention as above, without communication) and
    multiplies their concatenated outputs by Wo_i, giving a (T, D) partial output. Adding the
    partial outputs up is the all-reduce.
    """
    raise NotImplementedError
