"""Checks of attention(X, Wq, Wk, Wv, Wo, n_heads, causal): multi-head self-attention on one device."""
import numpy as np
import pytest

from lessonkit.checking import as_array, call, expect_unchanged, fail
from lessonkit.checkmath import multiple
from lessonkit.i18n import _


def mistakes(ref, X, Wq, Wk, Wv, Wo, n_heads, causal):
    """The classic wrong answers for these inputs, each with the hint that names it."""
    D = X.shape[1]
    d_head = D // n_heads

    def wrong(**how):
        return ref.attention(X, Wq, Wk, Wv, Wo, n_heads, **{"causal": causal, **how})

    out = [
        (_("you scaled the scores by 1/√D = 1/√{D}, the whole model's width. Each head is "
           "its own small attention of width d_head = D / n_heads = {d_head}, and its scores "
           "are divided by √d_head.", D=D, d_head=d_head),
         lambda: wrong(scale=1.0 / np.sqrt(D))),
        (_("your scores are not scaled: divide Q_h K_hᵀ by √d_head (here √{d_head}), which "
           "keeps the scores of order 1 however wide a head is.", d_head=d_head),
         lambda: wrong(scale=1.0)),
        (_("you divided the scores by d_head = {d_head}; the scale is 1/√d_head, with a "
           "square root.", d_head=d_head), lambda: wrong(scale=1.0 / d_head)),
    ]
    if causal:
        out += [
            (_("your result has no causal mask: with causal=True token p may attend only to "
               "tokens 0 … p. Set the scores of later tokens (key index > query index) to −∞ "
               "before the softmax."), lambda: wrong(causal=False)),
            (_("your mask is off by one: it lets each token see the next token too. Token p "
               "attends to tokens 0 … p; hide every key index > query index (np.triu(..., "
               "k=1))."), lambda: wrong(offset=2)),
            (_("you applied the mask after the softmax: zeroing the weights of later tokens "
               "leaves rows that no longer sum to 1. Set their scores to −∞ before the "
               "softmax, so the remaining weights share the whole 1."),
             lambda: wrong(mask_after=True)),
        ]
    else:
        out.append((_("you applied the causal mask although causal=False: then every token "
                      "attends to every token, later ones included."),
                    lambda: wrong(causal=True)))
    out.append((_("your softmax runs over the query axis (axis 0, down each column). Each "
                  "query's weights over the keys must sum to 1: take the softmax over the "
                  "last axis, along each row of the (T, T) scores."), lambda: wrong(axis=0)))
    return out


def hides_self(ref, X, Wq, Wk, Wv, Wo, n_heads, causal):
    """The mask that hides each token from itself, for `expect_output` (None without a mask)."""
    hint = _("your mask is off by one: it hides each token from itself as well. Token p "
             "attends to tokens 0 … p, itself included; hide only key index > query index "
             "(np.triu(..., k=1)). With the diagonal hidden, token 0 has nothing to attend to "
             "at all.")
    if not causal:
        return None
    return hint, lambda: ref.attention(X, Wq, Wk, Wv, Wo, n_heads, True, offset=0)


def check(solution, ref, X, Wq, Wk, Wv, Wo, n_heads, causal, *pass_causal):
    """Call attention (with `causal` passed on unless `pass_causal` is empty) and compare."""
    c = call(solution, "attention", X, Wq, Wk, Wv, Wo, n_heads, *pass_causal)
    problem = (X, Wq, Wk, Wv, Wo, n_heads, causal)
    ref.expect_output(c, ref.attention(*problem), mistakes(ref, *problem), hides_self(ref, *problem))


def test_worked_example(solution, ref, example):
    """attention reproduces the worked example: token 0 sees only itself, Y[0] = (1, 0, 3, 2)"""
    e = example
    check(solution, ref, e.X, e.Wq, e.Wk, e.Wv, e.Wo, e.n_heads, True, True)


def test_not_causal(solution, ref, example):
    """with causal=False every token attends to every token, later ones included"""
    e = example
    check(solution, ref, e.X, e.Wq, e.Wk, e.Wv, e.Wo, e.n_heads, False, False)


def test_causal_by_default(solution, ref, example):
    """causal=True is the default: attention(X, Wq, Wk, Wv, Wo, n_heads) is masked"""
    e = example
    check(solution, ref, e.X, e.Wq, e.Wk, e.Wv, e.Wo, e.n_heads, True)


@pytest.mark.parametrize("T,D,n_heads,causal", [
    (5, 8, 2, True), (6, 12, 3, True), (8, 16, 4, False), (7, 8, 8, True), (4, 6, 1, True),
    (1, 4, 2, True)],
    ids=["T=5 D=8 2 heads", "T=6 D=12 3 heads", "T=8 D=16 4 heads causal=False",
         "T=7 D=8 8 heads of width 1", "T=4 D=6 1 head", "T=1 D=4 2 heads"])
def test_random(solution, ref, T, D, n_heads, causal):
    """attention equals multi-head attention on random inputs"""
    rng = np.random.default_rng(100 * T + 10 * D + n_heads)
    X = rng.normal(size=(T, D))
    check(solution, ref, X, *ref.random_weights(rng, D), n_heads, causal, causal)


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "causal=False"])
def test_large_scores(solution, ref, causal):
    """attention stays finite when the scores are in the thousands (a stable softmax)"""
    rng = np.random.default_rng(31)
    T, D, n_heads = 6, 8, 2
    X = 40.0 * rng.normal(size=(T, D))  # scores of order ±1000: exp(1000) overflows
    Wq, Wk, Wv, Wo = ref.random_weights(rng, D)
    c = call(solution, "attention", X, Wq, Wk, Wv, Wo, n_heads, causal)
    got = as_array(c)
    # Rows after the first: a mask that hides token 0 from itself can leave NaN in row 0 alone.
    if got.shape == X.shape and not np.isfinite(got[1:]).all():
        fail(_("{call} returned NaN or infinity when the scores are large (here up to about "
               "{top:.0f}).\n{inputs}\nHint: np.exp(1000) overflows to inf, and inf / inf is "
               "NaN. Subtract each row's maximum score before np.exp: softmax(s) = "
               "softmax(s − max s), and then the largest exponent is exp(0) = 1. If you do subtract it, take the maximum over the "
               "keys the token may see (mask first): otherwise every kept entry can underflow to "
               "exp(−2000) = 0, and 0 / 0 is NaN.",
               call=c.text(), top=ref_top_score(X, Wq, Wk, n_heads), inputs=c.inputs()))
    problem = (X, Wq, Wk, Wv, Wo, n_heads, causal)
    ref.expect_output(c, ref.attention(*problem), mistakes(ref, *problem), hides_self(ref, *problem))


def ref_top_score(X, Wq, Wk, n_heads):
    """The largest |score| over all heads, for the message."""
    Q, K = X @ Wq, X @ Wk
    d = X.shape[1] // n_heads
    return max(float(np.max(np.abs(Q[:, h * d:(h + 1) * d] @ K[:, h * d:(h + 1) * d].T)))
               for h in range(n_heads)) / np.sqrt(d)


def test_fresh_inputs(solution, ref, fresh):
    """attention equals multi-head attention on inputs drawn afresh on every run"""
    # Causal, 2 to 4 heads, 3 to 8 tokens: every classic mistake shows, whatever the draw.
    n_heads = int(fresh.integers(2, 5))
    D, T = multiple(fresh, n_heads, 1, 5), int(fresh.integers(3, 9))
    X = fresh.normal(size=(T, D))
    check(solution, ref, X, *ref.random_weights(fresh, D), n_heads, True, True)


def test_inputs_unchanged(solution, ref):
    """attention leaves X and the weights unchanged"""
    rng = np.random.default_rng(5)
    c = call(solution, "attention", rng.normal(size=(3, 4)), *ref.random_weights(rng, 4), 2, True)
    expect_unchanged(c)
