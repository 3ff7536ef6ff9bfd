"""Checks of sp_mlp_block(X_chunks, gamma, beta, shards): one sequence-parallel MLP block."""
import numpy as np

from lessonkit.checking import call, expect_unchanged
from lessonkit.checkmath import gpu_count, mlp_shards
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# Relative to the output's size: float32 arithmetic (~1e-6) passes; the erf GeLU (>= 1e-4)
# and every misplaced residual do not.
RTOL = 2e-5
TOLERANCE = dict(rtol=RTOL, atol=RTOL)  # rtol is relative to the largest entry of the result


def mistakes(ref, X_chunks, gamma, beta, shards):
    n = len(X_chunks)
    args = (X_chunks, gamma, beta, shards)
    return [
        (_("the residual is missing: GPU i's output is its chunk of the MLP only. After the "
           "reduce-scatter, add the block's input rows X_i, which GPU i already holds."),
         lambda: ref.sp_block(*args, residual=0.0)),
        (_("the residual X was counted n = {n} times: it was added to every GPU's partial "
           "before the reduce-scatter, which then summed n copies of it. Add X_i once, after "
           "the reduce-scatter, on the GPU that owns those rows.", n=n),
         lambda: ref.sp_block(*args, residual=float(n))),
        (_("every GPU returned all T rows: the partials were all-reduced. The reduce-scatter "
           "leaves GPU i only its T/n rows, so that LayerNorm, dropout and the residual run "
           "on a 1/n share of the sequence."),
         lambda: ref.sp_block_all_reduce(*args)),
        (_("GPU i kept row chunk i of its own partial only: the partials were never added "
           "up. The reduce-scatter sums all n partials, then gives each GPU its rows of the "
           "sum; check reduce_scatter."),
         lambda: ref.sp_block_own_partials(*args)),
        (_("the residual added is the normalised input LayerNorm(X); the residual stream "
           "carries the block's input X itself: output = X + MLP(LayerNorm(X))."),
         lambda: ref.sp_block(*args, residual_of_normalised=True)),
        (_("the rows were gathered in reverse GPU order, so each token met another token's "
           "residual; check all_gather: GPU 0's chunk comes first."),
         lambda: ref.sp_block(*args, order=-1)),
        (_("LayerNorm is missing: the MLP must see LayerNorm(X), each GPU normalising its "
           "own rows before the all-gather."), lambda: ref.sp_block(*args, norm=False)),
        (_("the block's LayerNorm uses the sample variance (ddof = 1); see layernorm's "
           "checks: LayerNorm divides by D."), lambda: ref.sp_block(*args, ln=dict(ddof=1))),
        (_("the block's LayerNorm adds eps outside the square root; see layernorm's checks: "
           "(x − μ)/√(var + eps)."), lambda: ref.sp_block(*args, ln=dict(eps_outside=True))),
        (_("your result matches the exact erf GeLU; use GPT-2's tanh approximation."),
         lambda: ref.sp_block(*args, act=ref.erf_gelu)),
    ]


def random_problem(rng, T, D, widths):
    """Row chunks and shards drawn independently, one GPU at a time: no X, A or B exists
    anywhere to be remembered, so only a block that works from its arguments gets it right."""
    n = len(widths)
    X_chunks = [rng.normal(size=(T // n, D)) for _gpu in range(n)]
    shards = mlp_shards(rng, D, widths)
    return X_chunks, rng.normal(1.0, 0.3, size=D), rng.normal(0.0, 0.3, size=D), shards


def check(solution, ref, X_chunks, gamma, beta, shards):
    c = call(solution, "sp_mlp_block", X_chunks, gamma, beta, shards)
    ref.compare_chunks(c, ref.sp_block(X_chunks, gamma, beta, shards), **TOLERANCE,
                  mistakes=mistakes(ref, X_chunks, gamma, beta, shards))


def test_worked_example(solution, ref, example):
    """sp_mlp_block reproduces the worked example: 4 tokens, D = 2, two GPUs with two rows each"""
    check(solution, ref, example.X_chunks, example.gamma, example.beta,
          example.shards)


@cases("T,D,F,n", [(3, 4, 8, 1), (6, 4, 12, 2), (8, 8, 32, 4), (16, 16, 64, 8), (8, 8, 16, 8)])
def test_random_blocks(solution, ref, T, D, F, n):
    """sp_mlp_block gives GPU i chunk i of X + GeLU(LayerNorm(X) A) B"""
    rng = np.random.default_rng(1000 * T + 10 * D + n)
    check(solution, ref, *random_problem(rng, T, D, [F // n] * n))


def test_uses_only_its_shards(solution, ref):
    """sp_mlp_block computes from the shards it is given, whatever their widths"""
    rng = np.random.default_rng(12)
    check(solution, ref, *random_problem(rng, 6, 5, [3, 1, 4]))


def test_inputs_unchanged(solution):
    """sp_mlp_block leaves X_chunks, gamma, beta and the shards unchanged"""
    rng = np.random.default_rng(13)
    expect_unchanged(call(solution, "sp_mlp_block", *random_problem(rng, 4, 3, [2, 2])))


def test_fresh_block(solution, ref, fresh):
    """sp_mlp_block gives GPU i chunk i of X + GeLU(LayerNorm(X) A) B for a block drawn afresh on every run"""
    n = gpu_count(fresh, 8)
    T, D = n * int(fresh.integers(1, 4)), int(fresh.integers(2, 9))
    widths = [int(w) for w in fresh.integers(1, 5, size=n)]
    check(solution, ref, *random_problem(fresh, T, D, widths))
