"""Shared pieces of the sequence-parallel checks: the correct math and the classic wrong
versions (used only after the learner's call has returned), the lesson's worked examples, and
the comparison of a per-GPU list of chunks."""
from types import SimpleNamespace

import numpy as np
import pytest

from lessonkit.checking import expect_close, fail
from lessonkit.checkmath import (all_gather, erf_gelu, f64, layernorm, mlp_example, mlp_partials,
                                 reduce_scatter, row_chunks, tanh_gelu)
from lessonkit.fixtures import ref_fixture
from lessonkit.i18n import _

GIB = 2.0**30


def sp_block(X_chunks, gamma, beta, shards, residual=1.0, norm=True, act=tanh_gelu,
             residual_of_normalised=False, order=1, ln=None):
    """output_i = chunk i of  residual * X + MLP(LayerNorm(X)), and the usual variations:
    `order=-1` gathers the GPUs' rows in reverse order, `ln` are layernorm's wrong options."""
    X = all_gather(X_chunks[::order])
    Z = layernorm(X, gamma, beta, **(ln or {})) if norm else X
    out = reduce_scatter(mlp_partials(Z, shards, act))
    skip = row_chunks(Z, len(X_chunks)) if residual_of_normalised else X_chunks
    return [o + residual * f64(x) for o, x in zip(out, skip)]


def sp_block_own_partials(X_chunks, gamma, beta, shards):
    """GPU i keeps chunk i of its own partial only: the reduce of the reduce-scatter skipped."""
    n = len(X_chunks)
    parts = mlp_partials(layernorm(all_gather(X_chunks), gamma, beta), shards)
    return [row_chunks(p, n)[i] + f64(x) for i, (p, x) in enumerate(zip(parts, X_chunks))]


def sp_block_all_reduce(X_chunks, gamma, beta, shards):
    """The whole (T, D) result on every GPU: an all-reduce where the reduce-scatter belongs."""
    X = all_gather(X_chunks)
    Y = X + sum(mlp_partials(layernorm(X, gamma, beta), shards))
    return [Y] * len(X_chunks)


def activation_bytes(s, b, h, a, t=1, sp=False, recompute="none", gemm_term=None,
                     attention_split=True):
    """The paper's per-layer bytes; `gemm_term` replaces the 10 + 24/t of TP without SP,
    `attention_split=False` leaves the attention term unsplit."""
    per_token = 34 / t if sp else (10 + 24 / t if gemm_term is None else gemm_term)
    if recompute == "none":
        per_token += 5 * a * s / (h * (t if attention_split else 1))
    return s * b * h * per_token


ref = ref_fixture(globals())


@pytest.fixture
def example():
    """The lesson's worked examples: T = 4 rows, D = 2, n = 2 GPUs (GPU 0: rows 0-1)."""
    partials = [np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0], [1.0, 1.0]]),
                np.array([[0.0, 2.0], [1.0, 1.0], [4.0, 0.0], [2.0, 2.0]])]
    return SimpleNamespace(
        partials=partials,
        chunks=[np.array([[1.0, 2.0], [3.0, 2.0]]), np.array([[4.0, 3.0], [3.0, 3.0]])],
        X_chunks=[np.array([[0.0, 2.0], [1.0, 3.0]]), np.array([[3.0, 1.0], [2.0, 2.0]])],
        gamma=np.array([1.0, 1.0]), beta=np.array([0.0, 0.0]),
        shards=mlp_example().shards)


def compare_chunks(c, expected, *, rtol, atol, mistakes=()):
    """expect_close on the list of chunks, each part named by its GPU; one (T, D) array where
    the list belongs gets its own explanation first."""
    if getattr(c.got, "ndim", None) == 2:
        fail(_("{fn} should return a list of {n} arrays, one per GPU (GPU i's chunk at index "
               "i); it returned one array of shape {shape}. Each GPU keeps only its own rows: "
               "split the result into n row chunks (np.split(Y, n, axis=0)).\n{inputs}",
               fn=c.text(), n=len(expected), shape=c.got.shape, inputs=c.inputs()))
    labels = [_("GPU {i}'s chunk", i=i) for i in range(len(expected))]
    return expect_close(c, list(expected), rtol=rtol, atol=atol, mistakes=mistakes, labels=labels)
