# catches: test_reduce_scatter::*, test_all_gather::*, test_layernorm::*, test_sp_mlp_block::*, test_activation_bytes::*
"""Sequence parallelism: LayerNorm and the residual split along the sequence, on n simulated GPUs.

GPU i owns the sequence rows i*T/n ... (i+1)*T/n - 1 (T is divisible by n).
"""
import numpy as np


def reduce_scatter(partials):
    """Add up the GPUs' partial results and give each GPU only its own rows of the sum.

    partials: a list of n arrays of shape (T, D), one per GPU.
    Returns a list of n arrays of shape (T/n, D): item i is rows i*T/n ... (i+1)*T/n - 1 of
    partials[0] + partials[1] + ... + partials[n-1].
    """
    raise NotImplementedError


def all_gather(chunks):
    """Put the GPUs' row chunks back together: every GPU ends up with the whole sequence.

    chunks: a list of n arrays of shape (T/n, D), chunk i from GPU i.
    Returns one array of shape (T, D): the chunks stacked in GPU order along the rows.
    """
    raise NotImplementedError


def layernorm(x, gamma, beta, eps=1e-5):
    """LayerNorm over the last axis of x (shape (D,) or (T, D)); gamma and beta have shape (D,).

    With mu the mean and var the population variance (divide by D) of each row:
        (x - mu) / sqrt(var + eps) * gamma + beta
    Returns an array of the same shape as x.
    """
    raise NotImplementedError


def sp_mlp_block(X_chunks, gamma, beta, shards):
    """One sequence-parallel MLP block, output_i = chunk i of  X + GeLU(LayerNorm(X) A) B.

    X_chunks: a list of n arrays of shape (T/n, D); GPU i holds X_chunks[i] only.
    gamma, beta: LayerNorm's parameters, shape (D,) (every GPU has a copy); eps is 1e-5.
    shards: a list of n pairs (A_i, B_i), A_i of shape (D, F/n) (columns of A) and B_i of
        shape (F/n, D) (the same rows of B).
    GeLU is GPT-2's tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3))).
    Each GPU: LayerNorm on its own rows; all-gather the normalised rows; GeLU(Z A_i) B_i is
    its partial (T, D) output; reduce-scatter the partials; add its own residual X_i.
    Returns a list of n arrays of shape (T/n, D), item i for GPU i.
    """
    raise NotImplementedError


def activation_bytes(s, b, h, a, t=1, sp=False, recompute="none"):
    """Bytes of activations one transformer layer keeps per GPU (fp16), as counted by
    Korthikanti et al. (2022).

    s: sequence length, b: micro-batch size, h: hidden size, a: attention heads,
    t: tensor-parallel degree, sp: sequence parallelism on or off,
    recompute: "none" (keep everything) or "selective" (recompute attention's softmax part).
    Any other recompute value raises ValueError.
    Returns a number of bytes (not GiB).
    """
    raise NotImplementedError
