"""The Megatron-LM MLP block Y = GeLU(XA)B on one rank, written once for the companions that run
it (tp-mlp teaches it, fg-backward runs it backwards, tp-cost times it in a layer): the lessons'
GeLU, a rank's shard of A and B, its partial output, the block with f and g, and its gradients.
These are the code under test: the lessons' mutations break them here (file =
"companionkit/mlp.py"); the checks compute what to expect with companionkit.formulas."""

import torch.nn.functional as F

from .comparing import compare
from .formulas import mlp_grads
from .shards import block
from .tp import tp_region


def gelu(x):
    """The lessons' GeLU: GPT-2's tanh approximation."""
    return F.gelu(x, approximate="tanh")


def shard(A, B, rank, world):
    """Rank's own A_i (column block i of A) and B_i (row block i of B), copied so that they hold
    only 1/N of the storage: a slice is a view that keeps the whole matrix alive."""
    size = A.shape[1] // world
    cols = slice(rank * size, (rank + 1) * size)
    return A[:, cols].clone(), B[cols, :].clone()


def partial_mlp(X, A_i, B_i):
    """What one rank computes from its shard alone: Y_i = GeLU(X A_i) B_i."""
    return gelu(X @ A_i) @ B_i


def tp_mlp(X, A_i, B_i, with_f=True, group=None):
    """The Megatron-LM MLP on one rank: f, then the local shard, then g."""
    return tp_region(partial_mlp, X, A_i, B_i, group=group, with_f=with_f)


def tp_grads(X, A_i, B_i, G, with_f=True, group=None):
    """dL/dX, dL/dA_i, dL/dB_i of L = sum(G · tp_mlp(X, A_i, B_i)) on this rank (G: the gradient
    arriving from the next layer), by autograd on copies."""
    X, A_i, B_i = (t.detach().clone().requires_grad_() for t in (X, A_i, B_i))
    (tp_mlp(X, A_i, B_i, with_f, group) * G).sum().backward()
    return X.grad, A_i.grad, B_i.grad


def expect_grads(run, A, B, X, G):
    """Three verdicts on this rank's backward through f and g against the unsplit MLP's gradients
    (formulas.mlp_grads, sliced with shards.block): "dA" and "dB" (rank i's weight gradients are
    block i of the unsplit ones) and "dX" (after f's all-reduce, the whole dL/dX on every rank).
    A, B on the CPU; X, G on the run's device. Returns the unsplit (dX, dA, dB)."""
    want = mlp_grads(X, A.to(run.device), B.to(run.device), G)
    cols = block(A.shape[1], run.rank, run.world)
    dX, dA, dB = tp_grads(X, *(t.to(run.device) for t in shard(A, B, run.rank, run.world)), G)
    run.expect("dA", "dL/dA_i is column block i of the unsplit dL/dA", *compare(dA, want[1][:, cols]))
    run.expect("dB", "dL/dB_i is row block i of the unsplit dL/dB", *compare(dB, want[2][cols, :]))
    run.expect("dX", "dL/dX after f's all-reduce is the unsplit dL/dX on every rank", *compare(dX, want[0]))
    return want
