"""Checks of layernorm(x, gamma, beta, eps=1e-5): per-row normalisation with population variance."""
import numpy as np

from lessonkit.checking import call, expect_close, expect_unchanged
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# Relative to the output's size: float32 (~1e-6) passes; eps outside the square root, the
# sample variance and a missing eps are each far outside it on the inputs below.
RTOL = 1e-5
TOLERANCE = dict(rtol=RTOL, atol=RTOL)  # rtol is relative to the largest entry of the result


def mistakes(ref, x, gamma, beta, eps):
    x = np.asarray(x, dtype=float)
    return [
        (_("your result matches the sample variance (dividing by D − 1, ddof = 1). LayerNorm "
           "uses the population variance: the mean of (x − μ)² over the D features, "
           "np.var(x, axis=-1) with numpy's default ddof = 0."),
         lambda: ref.layernorm(x, gamma, beta, eps, ddof=1)),
        (_("eps is added outside the square root, (x − μ)/(σ + eps). It belongs inside: "
           "(x − μ)/√(var + eps). The two differ most when a row's variance is small, which "
           "is exactly when eps matters."),
         lambda: ref.layernorm(x, gamma, beta, eps, eps_outside=True)),
        (_("your result ignores eps: (x − μ)/√var. Add eps to the variance under the square "
           "root, (x − μ)/√(var + eps); it keeps rows of (nearly) equal values finite."),
         lambda: ref.layernorm(x, gamma, beta, 0.0)),
        (_("the mean and variance were taken down the columns (axis 0, over the tokens). "
           "LayerNorm normalises each token on its own, over its D features: axis=-1 with "
           "keepdims=True."),
         lambda: ref.layernorm(x, gamma, beta, eps, axis=0)),
        (_("gamma and beta are swapped: gamma scales the normalised values and beta is added "
           "after, x̂·γ + β."), lambda: ref.layernorm(x, beta, gamma, eps)),
        (_("beta is missing: after scaling by gamma, add beta, x̂·γ + β."),
         lambda: ref.layernorm(x, gamma, np.zeros_like(np.asarray(beta, dtype=float)), eps)),
    ]


def check(solution, ref, x, gamma, beta, *eps):
    c = call(solution, "layernorm", x, gamma, beta, *eps)
    expect_close(c, ref.layernorm(x, gamma, beta, *eps), **TOLERANCE,
                 mistakes=mistakes(ref, x, gamma, beta, *(eps or (1e-5,))))


def test_worked_example(solution, ref):
    """layernorm reproduces the worked example: x = [1, 1, 3, 3] with eps = 0.1 gives ±1/√1.1 ≈ ±0.953"""
    check(solution, ref, np.array([1.0, 1.0, 3.0, 3.0]), np.ones(4), np.zeros(4), 0.1)


@cases("T,D", [(1, 4), (5, 8), (16, 64)])
def test_random_rows(solution, ref, T, D):
    """layernorm normalises every row on its own, then scales by gamma and shifts by beta (eps = 0.1)"""
    rng = np.random.default_rng(10 * T + D)
    x = rng.normal(2.0, 3.0, size=(T, D))
    check(solution, ref, x, rng.normal(1.0, 0.5, size=D), rng.normal(size=D), 0.1)


def test_single_token(solution, ref):
    """layernorm accepts one token as a 1-D vector and returns a 1-D vector"""
    rng = np.random.default_rng(8)
    check(solution, ref, rng.normal(size=6), rng.normal(size=6), rng.normal(size=6), 0.1)


def test_default_eps(solution, ref):
    """without an eps argument layernorm uses eps = 1e-5, inside the square root (rows of tiny variance)"""
    rng = np.random.default_rng(9)
    x = 1e-3 * rng.normal(size=(4, 6))  # variance ~1e-6: eps = 1e-5 dominates it
    check(solution, ref, x, rng.normal(1.0, 0.5, size=6), rng.normal(size=6))


def test_constant_rows(solution, ref):
    """a row of equal values has variance 0: layernorm returns beta for it, with no NaN or infinity"""
    x = np.array([[2.0, 2.0, 2.0, 2.0], [-7.5, -7.5, -7.5, -7.5], [0.0, 1.0, 2.0, 3.0]])
    check(solution, ref, x, np.array([1.0, 2.0, 0.5, -1.0]), np.array([0.5, -1.0, 0.0, 2.0]))


def test_inputs_unchanged(solution):
    """layernorm leaves x, gamma and beta unchanged"""
    rng = np.random.default_rng(6)
    expect_unchanged(call(solution, "layernorm", rng.normal(size=(3, 4)), rng.normal(size=4),
                          rng.normal(size=4)))


def test_fresh_rows(solution, ref, fresh):
    """layernorm normalises rows drawn afresh on every run (eps = 0.1)"""
    T, D = int(fresh.integers(1, 9)), int(fresh.integers(2, 17))
    check(solution, ref, fresh.normal(2.0, 3.0, size=(T, D)), fresh.normal(1.0, 0.5, size=D),
          fresh.normal(size=D), 0.1)
