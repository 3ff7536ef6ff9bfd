"""Backward pass of the tensor-parallel MLP Y = GeLU(X A) B on n simulated GPUs.

Forward, as in the previous lesson: GPU i computes Z_i = X @ A_i, H_i = GeLU(Z_i) and its partial
output Y_i = H_i @ B_i; g (an all-reduce) adds them up, Y = sum of the Y_i.
"""
import numpy as np

from tp_mlp import gelu  # given with this lesson: the GeLU of the lesson "Tensor-parallel MLP"


def gelu_grad(x):
    """The derivative of GPT-2's tanh GeLU, GeLU(x) = 0.5 * x * (1 + tanh(u)), applied to every
    entry of x, where u = sqrt(2/pi) * (x + 0.044715 * x**3).

    Works for a Python float (returns one number) and for a numpy array of any shape (returns an
    array of the same shape). gelu_grad(0) = 0.5, gelu_grad(1) ≈ 1.0830, gelu_grad(2) ≈ 1.0861.
    """
    raise NotImplementedError


def tp_mlp_backward(X, shards, dY):
    """The backward pass: return (dX, grads).

    X   one token, shape (D,), or a batch of T tokens, shape (T, D)
    shards  the list of n pairs (A_i, B_i), A_i of shape (D, F/n) and B_i of shape (F/n, D),
        as tp-mlp's shard_mlp makes them
    dY  the gradient of the loss with respect to Y; it has Y's shape, (D,) or (T, D)

    grads  a list of n pairs (dA_i, dB_i) with the shapes of (A_i, B_i); GPU i computes its pair
        from its own shard, X and the full dY (g's backward is the identity)
    dX  X's shape: the sum over GPUs of GPU i's dX_i (f's backward is that all-reduce)
    """
    raise NotImplementedError
