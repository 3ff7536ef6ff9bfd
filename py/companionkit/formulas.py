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


def with_grads(fn, tensors, dY=None):
    """(Y, [dL/dt for t in tensors]): Y = fn(*tensors) and the gradients of L = sum(dY · Y) (dY
    None: L = sum(Y)), by autograd on detached copies: the unsplit result a check slices what each
    rank should get from."""
    copies = [t.detach().clone().requires_grad_() for t in tensors]
    Y = fn(*copies)
    Y.backward(torch.ones_like(Y) if dY is None else dY)
    return Y.detach(), [c.grad for c in copies]


def mlp_grads(X, A, B, G):
    """dL/dX, dL/dA, dL/dB of L = sum(G · GeLU(XA)B) on the unsplit MLP (G: the gradient arriving
    from the next layer)."""
    return with_grads(mlp, (X, A, B), G)[1]


def attention(X, Wq, Wk, Wv, Wo, heads, causal=True):
    """Multi-head self-attention of X (..., T, D) written out head by head, as the lessons do:
    concat_h(softmax(Q_h K_hᵀ / √d_head, the future masked) V_h) Wo, `heads` heads of Wq's columns."""
    T, d = X.shape[-2], Wq.shape[1] // heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=X.device), diagonal=1)
    outs = []
    for h in range(heads):
        c = slice(h * d, (h + 1) * d)
        S = Q[..., c] @ K[..., c].transpose(-1, -2) / math.sqrt(d)
        if causal:
            S = S.masked_fill(future, float("-inf"))
        outs.append(torch.softmax(S, dim=-1) @ V[..., c])
    return torch.cat(outs, dim=-1) @ Wo
