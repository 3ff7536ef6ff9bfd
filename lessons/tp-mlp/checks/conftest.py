"""Shared pieces of the tp-mlp checks: the correct math (used only after the learner's call
has returned) and the lesson's worked example."""
from types import SimpleNamespace

import numpy as np
import pytest

from lessonkit.checkmath import erf_gelu, f64, mlp_example, mlp_partials, relu, tanh_gelu


def mlp_from_shards(X, shards, act=tanh_gelu):
    return sum(mlp_partials(X, shards, act))


def partials(X, shards):
    """The partial outputs without the all-reduce, stacked."""
    return np.stack(mlp_partials(X, shards))


def gelu_after_sum(X, shards):
    """The all-reduce before the GeLU: GeLU(sum_i X A_i B_i)."""
    return tanh_gelu(sum(f64(X) @ a @ b for a, b in shards))


@pytest.fixture
def ref():
    """This module's names: the correct functions and the usual wrong ones, to compute
    expectations and hints. The lesson's own live here, in checks/, which learner code cannot
    reach where it runs apart from the grader (docs/threat-model.md); GeLU and ReLU are
    lessonkit.checkmath's, public formulas."""
    return SimpleNamespace(**globals())


@pytest.fixture
def example():
    """The lesson's worked example: one token, D = 2, F = 4, N = 2."""
    return mlp_example()
