"""Shared pieces of the tp-mlp checks: the correct math (used only after the learner's call
has returned) and the lesson's worked example."""

import numpy as np
import pytest

from lessonkit.checkmath import erf_gelu, f64, mlp_example, mlp_partials, relu, tanh_gelu
from lessonkit.fixtures import ref_fixture


def mlp_from_shards(X, shards, act=tanh_gelu):
    return sum(mlp_partials(X, shards, act))


def partials(X, shards):
    """The partial outputs without the all-reduce, stacked."""
    return np.stack(mlp_partials(X, shards))


def gelu_after_sum(X, shards):
    """The all-reduce before the GeLU: GeLU(sum_i X A_i B_i)."""
    return tanh_gelu(sum(f64(X) @ a @ b for a, b in shards))


ref = ref_fixture(globals())


@pytest.fixture
def example():
    """The lesson's worked example: one token, D = 2, F = 4, N = 2."""
    return mlp_example()
