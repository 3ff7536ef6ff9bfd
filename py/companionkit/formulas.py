"""The lessons' formulas written out with plain torch: what a check compares a model with, never
the code under test."""

import math

import torch


def gelu_tanh(x):
    """GPT-2's GeLU as the lessons write it: x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def mlp(X, A, B):
    """The lessons' MLP on one device, unsplit: GeLU(XA)B with the formula above."""
    return gelu_tanh(X @ A) @ B


def mlp_grads(X, A, B, G):
    """dL/dX, dL/dA, dL/dB of L = sum(G · GeLU(XA)B), by autograd on the unsplit MLP (G: the
    gradient arriving from the next layer)."""
    X, A, B = (t.detach().clone().requires_grad_() for t in (X, A, B))
    (G * mlp(X, A, B)).sum().backward()
    return X.grad, A.grad, B.grad
