"""Shared pieces of the fg-backward checks: the correct math and the classic mistakes (used only
after the learner's call has returned), the worked example, and how a returned (dX, grads) is
taken apart and compared."""
from types import SimpleNamespace

import numpy as np
import pytest

from lessonkit.checking import Call, describe, expect_close, fail, missed_sum
from lessonkit.checkmath import (erf_gelu_grad, f64, mlp_backward, mlp_example, tanh_gelu,
                                 tanh_gelu_grad)
from lessonkit.fixtures import ref_fixture
from lessonkit.i18n import _


def unsplit_backward(X, shards, dY):
    """The truth, computed on one device: glue the shards back into A and B, run the ordinary
    backward pass of GeLU(XA)B, and cut the weight gradients into the GPUs' blocks."""
    A = np.concatenate([f64(a) for a, _b in shards], axis=1)
    B = np.concatenate([f64(b) for _a, b in shards], axis=0)
    dX, dA, dB = mlp_backward(X, A, B, dY)
    edges = np.cumsum([0] + [np.shape(a)[1] for a, _b in shards])
    return dX, [(dA[:, s:e], dB[s:e, :]) for s, e in zip(edges[:-1], edges[1:])]


def per_gpu(X, shards, dY, **mistake):
    """GPU i's own (dX_i, dA_i, dB_i), with checkmath.mlp_backward's `mistake` inside."""
    return [mlp_backward(X, a, b, dY, **mistake) for a, b in shards]


def assemble(parts, reduce_weights=False):
    """(dX, grads) from per-GPU parts, with f's all-reduce (the sum of the dX_i) and, wrongly,
    the weight gradients all-reduced too."""
    dX = sum(p[0] for p in parts)
    grads = [(p[1], p[2]) for p in parts]
    if reduce_weights:
        total = (sum(g[0] for g in grads), sum(g[1] for g in grads))
        grads = [total] * len(grads)
    return dX, grads


def transposed(X, shards, dY):
    dX, grads = assemble(per_gpu(X, shards, dY))
    return dX, [(dA.T, dB) for dA, dB in grads]


def one_token_dots(X, shards, dY):
    """A single token pushed through X.T @ dZ_i and H_i.T @ dY: for 1-D arrays these are dot
    products (one number each), not outer products. Defined only when D = F/n; otherwise numpy
    refuses, and the learner sees that error on their own line."""
    X, dY = f64(X), f64(dY)
    grads = []
    for a, b in shards:
        Z = X @ f64(a)
        dZ = (dY @ f64(b).T) * tanh_gelu_grad(Z)
        grads.append((X @ dZ, tanh_gelu(Z) @ dY))
    return unsplit_backward(X, shards, dY)[0], grads


# The hints of mistakes both lists name: functions, so each is translated when used.

def hint_erf():
    return _(
        "your result matches the derivative of the exact erf GeLU, Φ(x) + x·φ(x). This course uses "
        "GPT-2's tanh approximation, so differentiate ½x(1 + tanh u) with u = √(2/π)(x + 0.044715x³); "
        "the two differ by up to ~8.7e-4 near |x| ≈ 2.")


def hint_no_three():
    return _(
        "your u′ is missing the 3 of d(x³)/dx: u = √(2/π)(x + 0.044715x³) gives "
        "u′ = √(2/π)(1 + 3·0.044715x²).")


def hint_no_product_rule():
    return _(
        "you returned only ½(1 + tanh u), as if the factor (1 + tanh u) were a constant. "
        "GeLU(x) = ½x·(1 + tanh u) is a product of two factors that both depend on x, so the "
        "product rule adds a second term: ½x·(1 − tanh²u)·u′.")


def backward_mistakes(X, shards, dY):
    """(hint, make (dX, grads)) for each classic mistake, in the order they are tried."""
    def parts(**mistake):
        return per_gpu(X, shards, dY, **mistake)

    right = parts()
    grads = assemble(right)[1]
    # dX_i is GPU i's share of dX: hints for f's all-reduce forgotten or summing the wrong GPUs.
    found = [(hint, lambda make=make: (make(), grads))
             for hint, make in missed_sum([p[0] for p in right], total="dX")]
    found += [
        (_("every GPU got the sum over GPUs of the weight gradients, Σ_j dA_j (and Σ_j dB_j). "
           "The weights are not shared: GPU i owns A_i and B_i and nobody else uses them, so "
           "their gradients stay on GPU i, each computed from its own shard, with no "
           "communication at all."), lambda: assemble(parts(), reduce_weights=True)),
        (_("you evaluated GeLU′ at H_i = GeLU(Z_i). The chain rule needs the derivative at the "
           "point where GeLU was applied: dZ_i = dH_i ⊙ GeLU′(Z_i), with Z_i = X A_i."),
         lambda: assemble(parts(at_h=True))),
        (hint_erf(), lambda: assemble(parts(act_grad=erf_gelu_grad))),
        (hint_no_three(), lambda: assemble(parts(act_grad=lambda z: tanh_gelu_grad(z, cube=1.0)))),
        (hint_no_product_rule(),
         lambda: assemble(parts(act_grad=lambda z: tanh_gelu_grad(z, product_rule=False)))),
        (_("your dB_i is built from Z_i = X A_i, the input of GeLU. B_i multiplies H_i = "
           "GeLU(Z_i), so dB_i = H_iᵀ dY (for one token, outer(H_i, dY))."),
         lambda: assemble(parts(dB_from_z=True))),
        (_("your dA_i is transposed. A gradient has the shape of what it is the gradient of: "
           "dA_i has A_i's shape (D, F/n), dA_i = Xᵀ dZ_i (for one token, outer(X, dZ_i))."),
         lambda: transposed(X, shards, dY)),
    ]
    width = {np.shape(a)[1] for a, _b in shards}
    if np.ndim(X) == 1 and width == {np.shape(X)[0]}:
        found.append((_("for a single token X and dZ_i are vectors, and X.T @ dZ_i is their dot "
                        "product, one number: .T does nothing to a 1-D array. The gradient needs "
                        "their outer product, np.outer(X, dZ_i), of shape (D, F/n) (and dB_i = "
                        "np.outer(H_i, dY))."), lambda: one_token_dots(X, shards, dY)))
    return found


def gelu_grad_mistakes(x):
    x = f64(x)
    return [(hint_erf(), lambda: erf_gelu_grad(x)),
            (hint_no_product_rule(), lambda: tanh_gelu_grad(x, product_rule=False)),
            (hint_no_three(), lambda: tanh_gelu_grad(x, cube=1.0)),
            (_("your gelu_grad returns GeLU(x) itself, not its derivative."), lambda: tanh_gelu(x))]


# Relative to the largest magnitude in the whole expected (dX, grads): a float32 implementation
# (off by ~1e-6 of that) passes; the erf derivative (off by up to 8.7e-4 near |z| ≈ 2) does not.
RTOL = 2e-5


def taken_apart(c: Call, n: int):
    """Fail, saying what came back, unless the returned value has the form (dX, grads) with n
    pairs in grads. Array conversion and shapes are left to the comparison."""
    got = c.got
    if got is None:
        fail(_("{call} returned None. Did you forget a `return` statement?\n{inputs}",
               call=c.text(), inputs=c.inputs()))
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        fail(_("{call} should return a pair (dX, grads); it returned {got}.\n{inputs}",
               call=c.text(), got=describe(got), inputs=c.inputs()))
    dX, grads = got
    if isinstance(dX, (tuple, list)) and len(dX) == n and all(  # pairs of arrays, not rows
            isinstance(p, (tuple, list)) and len(p) == 2 and not isinstance(p[0], (int, float))
            for p in dX):
        fail(_("{call} returned (grads, dX): the pair must be in the order (dX, grads).",
               call=c.text()))
    if not isinstance(grads, (tuple, list)) or len(grads) != n:
        count = len(grads) if isinstance(grads, (tuple, list)) else None
        fail(_("grads, the second item {call} returns, should be a list of {n} pairs "
               "(dA_i, dB_i), one per GPU; it is {got}.\n{inputs}",
               call=c.text(), n=n, inputs=c.inputs(),
               got=_("a list of {count} items", count=count) if count is not None
               else describe(grads)))
    for i, pair in enumerate(grads):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            fail(_("grads[{i}] should be GPU {i}'s pair (dA_{i}, dB_{i}); it is {got}.",
                   i=i, got=describe(pair)))


def leaves(tree):
    """The arrays of a (dX, grads) structure or of one of its parts, in order."""
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [f64(tree)]


def same_within(alt, want, allowed) -> bool:
    a, w = leaves(alt), leaves(want)
    return len(a) == len(w) and all(x.shape == y.shape and bool(np.all(np.abs(x - y) <= allowed))
                                    for x, y in zip(a, w))


def expect_backward(c: Call, expected, mistakes, parts=("dX", "grads")):
    """Compare the learner's (dX, grads) with `expected` in one structured comparison, with one
    tolerance for every part: RTOL relative to the largest magnitude of what is compared.
    `parts` limits it to dX or to the weight gradients. A mistake that leaves the compared part
    right (within that tolerance) is not offered as a hint for it."""
    n = len(expected[1])
    taken_apart(c, n)
    grad_labels = [(_("GPU {i}'s dA_{i}", i=i), _("GPU {i}'s dB_{i}", i=i)) for i in range(n)]
    part, pick, labels = {
        ("dX",): (0, lambda r: r[0], "dX"),
        ("grads",): (1, lambda r: r[1], grad_labels),
        ("dX", "grads"): (None, lambda r: r, ("dX", grad_labels)),
    }[tuple(parts)]
    want = pick(expected)
    allowed = RTOL * max(float(np.max(np.abs(leaf))) for leaf in leaves(want) if leaf.size)

    def offered(make):
        """The mistake's value of the compared part, computed only if the result is wrong;
        a ValueError (expect_close skips the mistake) where that part comes out right."""
        alt = pick(make())
        if same_within(alt, want, allowed):
            raise ValueError("this mistake leaves the compared part right")
        return alt

    expect_close(c, want, rtol=RTOL, atol=0.0, part=part, labels=labels,
                 mistakes=[(hint, lambda make=make: offered(make)) for hint, make in mistakes])


ref = ref_fixture(globals())


@pytest.fixture
def example():
    """The lesson's worked example (tp-mlp's): one token, D = 2, F = 4, N = 2, with dY = (1, 1)."""
    return SimpleNamespace(**vars(mlp_example()), dY=np.array([1.0, 1.0]))
