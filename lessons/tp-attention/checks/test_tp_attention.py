"""Checks of tp_attention(X, shards, n_heads, causal): each GPU's heads on its own shard, times
its rows of Wo, then the sum over GPUs (the all-reduce)."""
import numpy as np
import pytest

from lessonkit.checking import as_array, call, expect_unchanged, fail, missed_sum
from lessonkit.checkmath import multiple
from lessonkit.i18n import _


def mistakes(ref, X, shards, n_heads, causal):
    """The classic wrong answers for these inputs, each with the hint that names it."""
    D, n = X.shape[1], len(shards)
    width, d_head = D // n, D // n_heads

    def wrong(**how):
        return ref.tp(X, shards, n_heads, **{"causal": causal, **how})

    # The model's n_heads heads on every GPU: one mistake, with or without the right scale.
    all_heads = _("each GPU split its shard into the model's n_heads = {n_heads} heads. A GPU "
                  "holds only n_heads/n = {per_gpu} of them, each still of width d_head = "
                  "D/n_heads = {d_head}: the shard's {width} columns are {per_gpu} whole heads.",
                  n_heads=n_heads, per_gpu=n_heads // n, d_head=d_head, width=width)
    out = [
        (_("you scaled the scores by 1/√(D/n) = 1/√{width}, the width of a GPU's whole "
           "shard. A GPU holds n_heads/n = {per_gpu} heads, and each head's scores are divided "
           "by √d_head = √(D/n_heads) = √{d_head}; the two agree only when n = n_heads.",
           width=width, per_gpu=n_heads // n, d_head=d_head),
         lambda: wrong(scale=1.0 / np.sqrt(width))),
        (all_heads, lambda: wrong(per_gpu=n_heads)),
        (all_heads, lambda: wrong(per_gpu=n_heads, scale=1.0 / np.sqrt(d_head))),
        (_("you scaled the scores by 1/√D = 1/√{D}, the whole model's width; each head's "
           "scores are divided by √d_head = √{d_head}.", D=D, d_head=d_head),
         lambda: wrong(scale=1.0 / np.sqrt(D))),
    ]
    # GPU i's heads times its rows of Wo are its share of Y: hints for a forgotten all-reduce.
    out += missed_sum(ref.partials(X, shards, n_heads, causal), total="Y")
    if causal:
        out += [
            (_("your result has no causal mask: with causal=True token p may attend only to "
               "tokens 0 … p."), lambda: wrong(causal=False)),
            (_("you applied the mask after the softmax: set the scores of later tokens to −∞ "
               "before the softmax, so each row's weights still sum to 1."),
             lambda: wrong(mask_after=True)),
        ]
    out.append((_("your softmax runs over the query axis (axis 0); it must run over the keys, "
                  "the last axis of the (T, T) scores."), lambda: wrong(axis=0)))
    return out


def hides_self(ref, X, shards, n_heads, causal):
    """The mask that hides each token from itself, for `expect_output` (None without a mask)."""
    hint = _("your mask is off by one: it hides each token from itself as well. Token p "
             "attends to tokens 0 … p, itself included.")
    if not causal:
        return None
    return hint, lambda: ref.tp(X, shards, n_heads, True, offset=0)


def check(solution, ref, X, shards, n_heads, causal):
    c = call(solution, "tp_attention", X, shards, n_heads, causal)
    problem = (X, shards, n_heads, causal)
    ref.expect_output(c, ref.tp(*problem), mistakes(ref, *problem), hides_self(ref, *problem))


def test_worked_example(solution, ref, example):
    """tp_attention reproduces the worked example on 2 GPUs: the partial outputs add up to Y"""
    check(solution, ref, example.X, example.shards, example.n_heads, True)


def random_case(ref, T, D, n_heads, n, causal):
    rng = np.random.default_rng(1000 * T + 100 * D + 10 * n_heads + n + causal)
    return rng.normal(size=(T, D)), ref.random_shards(rng, D, n), n_heads, causal


@pytest.mark.parametrize("T,D,n_heads,causal", [(5, 8, 4, True), (6, 12, 3, False)],
                         ids=["T=5 D=8 4 heads", "T=6 D=12 3 heads causal=False"])
def test_one_head_per_gpu(solution, ref, T, D, n_heads, causal):
    """with n = n_heads each GPU runs exactly one head, and the sum is the unsplit attention"""
    check(solution, ref, *random_case(ref, T, D, n_heads, n_heads, causal))


@pytest.mark.parametrize("T,D,n_heads,n,causal", [
    (5, 16, 4, 2, True), (7, 24, 6, 3, True), (4, 32, 8, 2, False), (1, 16, 4, 2, True)],
    ids=["T=5 D=16 4 heads n=2", "T=7 D=24 6 heads n=3", "T=4 D=32 8 heads n=2 causal=False",
         "T=1 D=16 4 heads n=2"])
def test_several_heads_per_gpu(solution, ref, T, D, n_heads, n, causal):
    """with n < n_heads each GPU runs n_heads/n heads of width D/n_heads on its own shard"""
    check(solution, ref, *random_case(ref, T, D, n_heads, n, causal))


def test_one_gpu(solution, ref):
    """with n = 1 the only GPU runs every head: tp_attention is plain attention"""
    check(solution, ref, *random_case(ref, 6, 12, 4, 1, True))


def test_large_scores(solution, ref):
    """tp_attention stays finite when the scores are in the thousands (a stable softmax)"""
    rng = np.random.default_rng(37)
    X, shards = 40.0 * rng.normal(size=(6, 16)), ref.random_shards(rng, 16, 2)
    c = call(solution, "tp_attention", X, shards, 4, True)
    got = as_array(c)
    # Rows after the first: a mask that hides token 0 from itself can leave NaN in row 0 alone.
    if got.shape == X.shape and not np.isfinite(got[1:]).all():
        fail(_("{call} returned NaN or infinity when the scores are large (of order "
               "±1000).\n{inputs}\nHint: np.exp(1000) overflows to inf, and inf / inf is NaN. "
               "Subtract each row's maximum score before np.exp: softmax(s) = softmax(s − max "
               "s), and then the largest exponent is exp(0) = 1. If you do subtract it, take the maximum over the "
               "keys the token may see (mask first): otherwise every kept entry can underflow to "
               "exp(−2000) = 0, and 0 / 0 is NaN.", call=c.text(),
               inputs=c.inputs()))
    problem = (X, shards, 4, True)
    ref.expect_output(c, ref.tp(*problem), mistakes(ref, *problem), hides_self(ref, *problem))


def test_fresh_problem(solution, ref, fresh):
    """tp_attention equals the unsplit attention for a problem drawn afresh on every run"""
    # Causal, 2 to 4 GPUs of 2 or 3 heads, 3 to 8 tokens: every classic mistake shows.
    n = int(fresh.integers(2, 5))
    n_heads = multiple(fresh, n, 2, 4)
    D, T = multiple(fresh, n_heads, 1, 4), int(fresh.integers(3, 9))
    check(solution, ref, fresh.normal(size=(T, D)), ref.random_shards(fresh, D, n), n_heads, True)


def test_inputs_unchanged(solution, ref):
    """tp_attention leaves X and the shards unchanged"""
    rng = np.random.default_rng(5)
    c = call(solution, "tp_attention", rng.normal(size=(3, 8)), ref.random_shards(rng, 8, 2), 4, True)
    expect_unchanged(c)
