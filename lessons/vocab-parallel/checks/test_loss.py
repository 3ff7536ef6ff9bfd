"""Checks of vp_cross_entropy(logit_shards, targets): the exact per-token loss from three
all-reduces (max, sum of exponentials, target logit)."""
import numpy as np

from lessonkit.checking import as_array, describe, expect_unchanged, fail
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# Relative to the logits' magnitude: a float32 solution (off by ~1e-7 of it) passes, and each
# classic mistake (off by at least ~1e-2 of it on these problems) does not.
RTOL = 1e-5


def tolerance(shards):
    scale = max(1.0, max(float(np.max(np.abs(s))) for s in shards))
    return dict(rtol=RTOL, atol=RTOL * scale)


def mistakes(ref, shards, targets):
    # Non-owners picking column 0 or the wrapped column: one mistake, two values.
    unmasked = _("every GPU added a logit to the all-reduced target logit, not only the GPU "
                 "that owns the target: the others picked up another column of their slice. "
                 "Only the owner adds z[target] (at column target − start); every other GPU "
                 "adds 0.")
    return [
        (_("each GPU subtracted its own local maximum and the sums Σ exp(z − m_i) were added as "
           "they are. Those sums are in different units: first agree on the global maximum m "
           "(all-reduce MAX), then every GPU sums exp(z − m) with that same m."),
         lambda: ref.loss_local_max(shards, targets)),
        (unmasked, lambda: ref.loss_target_not_masked(shards, targets, "zero")),
        (unmasked, lambda: ref.loss_target_not_masked(shards, targets, "wrap")),
        (_("you forgot to add the maximum back: log Σ exp(z − m) is logsumexp(z) − m, so the "
           "loss is m + log Σ exp(z − m) − z_target."),
         lambda: ref.loss_max_not_added(shards, targets)),
        (_("you returned the mean loss over the tokens; this function returns one loss per "
           "token, an array of shape (T,)."), lambda: ref.loss(shards, targets).mean()),
        (_("you returned the summed loss over the tokens; this function returns one loss per "
           "token, an array of shape (T,)."), lambda: ref.loss(shards, targets).sum()),
        (_("your loss has the wrong sign: it is −log softmax(z)[target], which is never "
           "negative."), lambda: -ref.loss(shards, targets)),
    ]


def expect_loss(solution, ref, shards, targets):
    c = ref.call_lookup(solution, "vp_cross_entropy", shards, targets)
    got = as_array(c)
    if not np.isfinite(got).all():
        bad = int((~np.isfinite(got)).sum())
        fail(_("{fn} returned {bad} values that are NaN or infinite; every loss here is finite, "
               "the largest logit is {big:.4g}.\n{inputs}\n  got: {got}\n"
               "Hint: exp(z) overflows for z above about 709 (88 in float32). Subtract each "
               "token's global maximum m first (all-reduce MAX), sum exp(z − m) ≤ 1 per entry, "
               "and add m back: loss = m + log Σ exp(z − m) − z_target.",
               fn=c.text(), bad=bad, big=max(float(np.max(s)) for s in shards),
               inputs=c.inputs(), got=describe(got)))
    ref.expect_close_range(solution, len(shards[0][0]) * len(shards), len(shards), c,
                           ref.loss(shards, targets), **tolerance(shards),
                           mistakes=mistakes(ref, shards, targets))


def test_example(solution, ref, ce_example):
    """vp_cross_entropy reproduces the lesson's example: losses ≈ (1.574, 3.155)"""
    expect_loss(solution, ref, ce_example.shards, ce_example.targets)


def test_megatron_unit_test(solution, ref, megatron_example):
    """vp_cross_entropy reproduces Megatron-LM's unit test (TP = 4): 10.2309, 8.2309, 6.2309, 4.2309, …"""
    expect_loss(solution, ref, megatron_example.shards, megatron_example.targets)


@cases("T,V,n", [(5, 6, 1), (7, 12, 3), (16, 32, 2), (32, 64, 8), (4, 16, 16)])
def test_random(solution, ref, T, V, n):
    """vp_cross_entropy equals the unsplit cross-entropy on random logits, targets on every GPU"""
    shards, targets = ref.random_logits(100 * T + V + n, T, V, n)
    expect_loss(solution, ref, shards, targets)


def test_one_token(solution, ref):
    """vp_cross_entropy returns shape (1,) for a single token"""
    shards, targets = ref.random_logits(9, 1, 8, 4)
    expect_loss(solution, ref, shards, targets)


@cases("n", [1, 4])
def test_large_logits(solution, ref, n):
    """vp_cross_entropy stays finite and exact for logits of magnitude 1e3"""
    shards, targets = ref.random_logits(11 + n, 8, 32, n, scale=1e3)
    expect_loss(solution, ref, shards, targets)


def test_float32_logits(solution, ref):
    """vp_cross_entropy works on float32 logits of magnitude 1e3"""
    shards, targets = ref.random_logits(13, 8, 32, 4, scale=1e3)
    expect_loss(solution, ref, [s.astype(np.float32) for s in shards], targets)


def test_inputs_unchanged(solution, ref):
    """vp_cross_entropy leaves the logit shards and the targets unchanged"""
    shards, targets = ref.random_logits(15, 6, 16, 4)
    expect_unchanged(ref.call_lookup(solution, "vp_cross_entropy", shards, targets))


def test_fresh(solution, ref, fresh_logits):
    """vp_cross_entropy equals the unsplit cross-entropy on logits drawn afresh on every run"""
    expect_loss(solution, ref, *fresh_logits)
