"""Checks of vp_cross_entropy_grad(logit_shards, targets): each GPU's slice of
softmax(z) − onehot(target), from the reductions the loss already made."""
import numpy as np

from lessonkit.checking import describe, expect_unchanged, fail, to_array
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# Entries lie in [−1, 1]: float32 arithmetic (~1e-7) passes; every classic mistake is off by
# far more.
RTOL, ATOL = 1e-5, 1e-6


def mistakes(ref, shards, targets):
    T = len(targets)
    p = ref.split(ref.softmax(shards), len(shards))
    width = shards[0].shape[1]
    return [
        (_("your gradient has no −1 at the target: the gradient of −log softmax(z)[target] is "
           "softmax(z) − onehot(target), so the GPU that owns the target subtracts 1 there."),
         lambda: p),
        (_("every GPU subtracted 1 in its slice at column target mod V/n, whether or not it "
           "owns the target. Only the GPU whose range holds token p's target has that column "
           "(target − start); the other GPUs' slices have no −1 for token p."),
         lambda: p - ref.onehot(np.asarray(targets) % width, width)[None]),
        (_("your gradient is divided by T = {T}: that is the gradient of the mean loss. This "
           "function asks for the gradient of the sum Σ_p loss_p, softmax(z) − onehot(target) "
           "for every token.", T=T), lambda: ref.grad(shards, targets) / T),
        (_("each GPU normalised the softmax over its own slice only. The denominator is the "
           "sum of exp(z − m) over the whole vocabulary: the same all-reduced sum the loss "
           "used."), lambda: ref.grad_local_softmax(shards, targets)),
        (_("each GPU used its own local maximum in exp(z − m_i) while dividing by a sum over "
           "all GPUs; use the global maximum m (the all-reduced MAX) on every GPU."),
         lambda: ref.grad_local_max(shards, targets)),
        (_("your gradient has the wrong sign: it is softmax(z) − onehot(target), positive "
           "everywhere except at the target."), lambda: -ref.grad(shards, targets)),
    ]


def parts(c, shards, T):
    """The returned value as n arrays of shape (T, V/n), or a failure saying what it is."""
    n, width = len(shards), shards[0].shape[1]
    got = c.got
    if got is None:
        fail(_("{fn} returned None. Did you forget a `return` statement?\n{inputs}",
               fn=c.text(), inputs=c.inputs()))
    whole = isinstance(got, np.ndarray) and got.shape == (T, n * width) and n > 1
    if whole or not isinstance(got, (list, tuple, np.ndarray)) or len(got) != n:
        fail(_("{fn} should return a list of {n} arrays, GPU i's slice of the gradient of shape "
               "({T}, {w}); it returned {got}. Each GPU keeps only the gradient of its own "
               "logits.\n{inputs}", fn=c.text(), n=n, T=T, w=width, got=describe(got),
               inputs=c.inputs()))
    for i, part in enumerate(got):
        a = to_array(part, _("item {i} of what {fn} returned", i=i, fn=c.text()))
        if a.shape != (T, width):
            fail(_("GPU {i}'s gradient has shape {shape}; it should have the shape of its "
                   "logits, ({T}, {w}).\n{inputs}", i=i, shape=a.shape, T=T, w=width,
                   inputs=c.inputs()))


def expect_grad(solution, ref, shards, targets):
    c = ref.call_lookup(solution, "vp_cross_entropy_grad", shards, targets)
    parts(c, shards, len(targets))
    got = np.stack([np.asarray(part, dtype=float) for part in c.got])
    if not np.isfinite(got).all():
        fail(_("{fn} returned {bad} entries that are NaN or infinite; every entry of this "
               "gradient lies between −1 and 1, and the largest logit is {big:.4g}.\n{inputs}\n"
               "Hint: exp(z) overflows for z above about 709 (88 in float32). Use the same "
               "global maximum m as the loss: softmax(z) = exp(z − m) / Σ exp(z − m).",
               fn=c.text(), bad=int((~np.isfinite(got)).sum()),
               big=max(float(np.max(s)) for s in shards), inputs=c.inputs()))
    # Compared GPU by GPU, as returned: a failure names the GPU whose slice is off.
    ref.expect_close_range(solution, len(shards[0][0]) * len(shards), len(shards), c,
                           list(ref.grad(shards, targets)), rtol=RTOL, atol=ATOL,
                           labels=[_("GPU {i}'s slice", i=i) for i in range(len(shards))],
                           mistakes=[(hint, lambda make=make: list(make())) for hint, make in
                                     mistakes(ref, shards, targets)])


def test_example(solution, ref, ce_example):
    """vp_cross_entropy_grad reproduces the lesson's example: −0.793 at token 0's target on GPU 0"""
    expect_grad(solution, ref, ce_example.shards, ce_example.targets)


@cases("T,V,n", [(5, 6, 1), (7, 12, 3), (16, 32, 2), (32, 64, 8), (4, 16, 16)])
def test_random(solution, ref, T, V, n):
    """vp_cross_entropy_grad equals softmax(z) − onehot(target), sliced per GPU, on random logits"""
    shards, targets = ref.random_logits(100 * T + V + n + 1, T, V, n)
    expect_grad(solution, ref, shards, targets)


def test_large_logits(solution, ref):
    """vp_cross_entropy_grad stays finite and exact for logits of magnitude 1e3"""
    shards, targets = ref.random_logits(17, 8, 32, 4, scale=1e3)
    expect_grad(solution, ref, shards, targets)


def test_float32_logits(solution, ref):
    """vp_cross_entropy_grad works on float32 logits"""
    shards, targets = ref.random_logits(19, 8, 32, 4)
    expect_grad(solution, ref, [s.astype(np.float32) for s in shards], targets)


def test_inputs_unchanged(solution, ref):
    """vp_cross_entropy_grad leaves the logit shards and the targets unchanged"""
    shards, targets = ref.random_logits(21, 6, 16, 4)
    expect_unchanged(ref.call_lookup(solution, "vp_cross_entropy_grad", shards, targets))


def test_fresh(solution, ref, fresh_logits):
    """vp_cross_entropy_grad equals softmax(z) − onehot(target), sliced per GPU, on logits drawn afresh on every run"""
    expect_grad(solution, ref, *fresh_logits)
