"""Checks of tp_mlp_backward(X, shards, dY): each GPU's own weight gradients, and dX summed over
the GPUs (f's all-reduce in the backward pass)."""
import numpy as np

from lessonkit.checking import call, expect_unchanged
from lessonkit.checkmath import mlp_shards
from lessonkit.fixtures import cases

SIZES = cases("T,D,F,n", [(3, 4, 8, 2), (1, 8, 16, 4), (8, 32, 128, 8), (7, 32, 128, 1),
                          (5, 4, 8, 8), (8, 32, 128, 2)])


def problem(seed, T, D, F, n, one_token=False):
    rng = np.random.default_rng(seed)
    shape = (D,) if one_token else (T, D)
    return rng.normal(size=shape), mlp_shards(rng, D, [F // n] * n, a_scale=1.5), rng.normal(size=shape)


def check(solution, ref, X, shards, dY, parts=("dX", "grads")):
    c = call(solution, "tp_mlp_backward", X, shards, dY)
    ref.expect_backward(c, ref.unsplit_backward(X, shards, dY), ref.backward_mistakes(X, shards, dY),
                        parts=parts)


def test_example_weight_grads(solution, ref, example):
    """the worked example's weight gradients, each GPU from its own shard: dB rows ≈ (0.841, 0.841), (1.955, 1.955), (0.841, 0.841), (0, 0)"""
    check(solution, ref, example.X, example.shards, example.dY, parts=("grads",))


def test_example_dX(solution, ref, example):
    """the worked example's dX ≈ (0.917, 2.252): GPU 0's (1.083, 1.086) plus GPU 1's (−0.166, 1.166)"""
    check(solution, ref, example.X, example.shards, example.dY, parts=("dX",))


@SIZES
def test_weight_grads(solution, ref, T, D, F, n):
    """each GPU's (dA_i, dB_i) equals its slice of the unsplit gradient, with no communication"""
    check(solution, ref, *problem(100 * T + 10 * D + n, T, D, F, n), parts=("grads",))


@SIZES
def test_dX(solution, ref, T, D, F, n):
    """dX, the sum of the GPUs' dX_i (f's all-reduce), equals the unsplit gradient of X"""
    check(solution, ref, *problem(100 * T + 10 * D + n + 1, T, D, F, n), parts=("dX",))


@cases("D,F,n", [(4, 8, 2), (3, 12, 2), (6, 12, 1)])
def test_single_token(solution, ref, D, F, n):
    """one token (1-D X and dY): dX of shape (D,), dA_i = outer(X, dZ_i), dB_i = outer(H_i, dY)"""
    check(solution, ref, *problem(7 * D + n, 1, D, F, n, one_token=True))


def test_batch_of_one(solution, ref):
    """a batch of one token (X of shape (1, D)) keeps its 2-D shapes"""
    check(solution, ref, *problem(3, 1, 5, 10, 2))


def test_quiet_gpu(solution, ref):
    """a GPU whose GeLU inputs are all very negative (H_i ≈ 0, GeLU′ ≈ 0) gets gradients ≈ 0, and the others are unaffected"""
    X, shards, dY = problem(21, 4, 6, 12, 3)
    X = np.abs(X) / np.abs(X).sum(axis=1, keepdims=True)  # rows of positive weights summing to 1
    A_1 = np.random.default_rng(22).uniform(-7.5, -6.5, size=shards[1][0].shape)
    shards[1] = (A_1, shards[1][1])  # so Z_1 = X A_1 lies in [-7.5, -6.5]: gradients ~1e-14
    check(solution, ref, X, shards, dY)


def test_fresh_problem(solution, ref, fresh):
    """dX and each GPU's (dA_i, dB_i) equal the unsplit gradients for a problem drawn afresh on every run"""
    # At least 2 GPUs and 2 tokens: every classic mistake shows, whatever the draw.
    n, T, D = int(fresh.integers(2, 9)), int(fresh.integers(2, 9)), int(fresh.integers(2, 17))
    widths = [int(fresh.integers(2, 9))] * n
    check(solution, ref, fresh.normal(size=(T, D)), mlp_shards(fresh, D, widths, a_scale=1.5),
          fresh.normal(size=(T, D)))


def test_inputs_unchanged(solution):
    """tp_mlp_backward leaves X, the shards and dY unchanged"""
    X, shards, dY = problem(5, 3, 4, 8, 2)
    expect_unchanged(call(solution, "tp_mlp_backward", X, shards, dY))
