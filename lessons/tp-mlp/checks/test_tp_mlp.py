"""Checks of tp_mlp(X, shards): per-GPU partial outputs, then their sum (the all-reduce)."""
import numpy as np
import pytest

from lessonkit.checking import call, expect_close, expect_unchanged, missed_sum
from lessonkit.checkmath import mlp_shards
from lessonkit.i18n import _

# Relative to the size of the output: float32 arithmetic (~1e-6 here) passes; the erf GeLU,
# a rounded constant and float16 (>= 1e-4) do not.
RTOL = 2e-5


def tolerance(expected):
    return dict(rtol=RTOL, atol=RTOL * max(1.0, float(np.max(np.abs(expected)))))


def mistakes(ref, X, shards):
    # Each GPU's partial output is its share of Y: hints for a forgotten or partial sum.
    return missed_sum(ref.partials(X, shards), total="Y") + [
        (_("you added up every entry of the partial outputs into one number (np.sum without "
           "an axis). The all-reduce adds the GPUs' outputs entry by entry: "
           "np.sum(partials, axis=0), or Y_0 + Y_1 + ..."),
         lambda: ref.partials(X, shards).sum()),
        (_("you summed the partial outputs along the wrong axis. Stacked as "
           "np.stack(partials), the GPUs are axis 0: np.sum(partials, axis=0)."),
         lambda: ref.partials(X, shards).sum(axis=-1)),
        (_("you applied GeLU after adding up the partial products. GeLU must run on each GPU, "
           "on its own columns H_i = GeLU(X A_i), before multiplying by B_i; GeLU of a sum is "
           "not the sum of GeLUs, which is why A is split by columns."),
         lambda: ref.gelu_after_sum(X, shards)),
        (_("your result matches the exact erf GeLU; use the tanh approximation (see gelu's "
           "checks)."), lambda: ref.mlp_from_shards(X, shards, act=ref.erf_gelu)),
        (_("your result matches ReLU in place of GeLU."),
         lambda: ref.mlp_from_shards(X, shards, act=ref.relu)),
    ]


def check(solution, ref, X, shards):
    c = call(solution, "tp_mlp", X, shards)
    expected = ref.mlp_from_shards(X, shards)
    expect_close(c, expected, **tolerance(expected), mistakes=mistakes(ref, X, shards))


def test_worked_example(solution, ref, example):
    """tp_mlp reproduces the worked example: Y ≈ (1.682, 2.796)"""
    check(solution, ref, example.X, example.shards)


@pytest.mark.parametrize("T,D,F,n", [
    (3, 4, 8, 2), (1, 8, 16, 4), (16, 64, 256, 8), (7, 32, 128, 1), (16, 64, 256, 2)],
    ids=["T=3 D=4 F=8 n=2", "T=1 D=8 F=16 n=4", "T=16 D=64 F=256 n=8",
         "T=7 D=32 F=128 n=1", "T=16 D=64 F=256 n=2"])
def test_random_batches(solution, ref, T, D, F, n):
    """tp_mlp equals the unsplit GeLU(XA)B on a random batch of tokens"""
    rng = np.random.default_rng(1000 * T + 10 * D + n)
    check(solution, ref, rng.normal(size=(T, D)), mlp_shards(rng, D, [F // n] * n))


def test_single_token(solution, ref):
    """tp_mlp accepts one token as a 1-D vector and returns a 1-D vector"""
    rng = np.random.default_rng(7)
    check(solution, ref, rng.normal(size=16), mlp_shards(rng, 16, [16, 16, 16, 16]))


def test_uses_only_its_shards(solution, ref):
    """tp_mlp computes from the shards it is given, whatever their sizes"""
    rng = np.random.default_rng(11)
    check(solution, ref, rng.normal(size=(4, 6)), mlp_shards(rng, 6, [3, 5, 1]))


def test_fresh_batch(solution, ref, fresh):
    """tp_mlp equals the unsplit GeLU(XA)B on a batch and shards drawn afresh on every run"""
    # At least 2 GPUs and 8 GeLU inputs each: every classic mistake shows, whatever the draw.
    n, T, D = int(fresh.integers(2, 9)), int(fresh.integers(2, 9)), int(fresh.integers(4, 17))
    widths = [int(w) for w in fresh.integers(4, 9, size=n)]
    check(solution, ref, fresh.normal(size=(T, D)), mlp_shards(fresh, D, widths))


def test_inputs_unchanged(solution):
    """tp_mlp leaves X and the shards unchanged"""
    rng = np.random.default_rng(5)
    c = call(solution, "tp_mlp", rng.normal(size=(2, 4)), mlp_shards(rng, 4, [4, 4]))
    expect_unchanged(c)
