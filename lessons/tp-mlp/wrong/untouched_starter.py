# catches: test_gelu::*, test_shard_mlp::*, test_tp_mlp::*
"""Tensor-parallel MLP: Y = GeLU(X A) B split over n simulated GPUs."""
import numpy as np


def gelu(x):
    """GPT-2's tanh approximation of GeLU, applied to every entry of x.

    GeLU(x) = 0.5 * x * (1 + tanh(u)),  u = sqrt(2/pi) * (x + 0.044715 * x**3)
    Works for a Python float and for a numpy array of any shape (same shape back).
    """
    raise NotImplementedError


def shard_mlp(A, B, n):
    """Split the MLP's weights for n GPUs: return the list [(A_0, B_0), ..., (A_{n-1}, B_{n-1})].

    A has shape (D, F) and B has shape (F, D), with F divisible by n. GPU i gets the columns
    i*F/n ... (i+1)*F/n - 1 of A and the same range of rows of B.
    """
    raise NotImplementedError


def tp_mlp(X, shards):
    """The tensor-parallel forward pass: sum over GPUs of GeLU(X @ A_i) @ B_i.

    X is one token (shape (D,)) or a batch (shape (T, D)); shards is the list of (A_i, B_i)
    pairs. Each GPU may use only its own pair; adding the partial outputs up is the all-reduce.
    """
    raise NotImplementedError
