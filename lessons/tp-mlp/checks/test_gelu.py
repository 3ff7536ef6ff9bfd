"""Checks of gelu(x): GPT-2's tanh approximation, elementwise."""
import numpy as np
import pytest

from lessonkit.checking import call, expect_close, expect_unchanged
from lessonkit.i18n import _

# Tight enough to tell the exact erf form (off by up to 5e-4) and a rounded constant (off by
# ~1e-5) from the tanh formula, loose enough for a float32 implementation (off by ~1e-7).
RTOL, ATOL = 1e-6, 1e-7

ERF = _("your gelu matches the exact erf form of GeLU, x·Φ(x); this lesson asks for GPT-2's "
        "tanh approximation ½x(1 + tanh u) with u = √(2/π)(x + 0.044715x³).")
RELU = _("your gelu matches ReLU, max(0, x); GeLU is smooth and slightly negative for x < 0.")
SIGMOID = _("your gelu matches the sigmoid approximation x·σ(1.702x); this lesson asks for the "
            "tanh approximation.")
CONSTANTS = _("your values are close but not exact: check the constants, √(2/π) ≈ 0.797885 "
              "(np.sqrt(2 / np.pi)) and 0.044715, and that x is cubed.")


def mistakes(ref, x):
    x = np.asarray(x, dtype=float)
    return [(ERF, lambda: ref.erf_gelu(x)), (RELU, lambda: ref.relu(x)),
            (SIGMOID, lambda: x / (1 + np.exp(-1.702 * x))),
            (CONSTANTS, lambda: ref.tanh_gelu(x, c=np.sqrt(2 * np.pi))),
            (CONSTANTS, lambda: ref.tanh_gelu(x, c=0.8)),
            (CONSTANTS, lambda: ref.tanh_gelu(x, k=0.0447))]


def check(solution, ref, x):
    expect_close(call(solution, "gelu", x), ref.tanh_gelu(x), rtol=RTOL, atol=ATOL,
                 mistakes=mistakes(ref, x))


def test_python_floats(solution, ref):
    """gelu works on plain Python floats: gelu(0.0) = 0 and gelu(1.0) ≈ 0.841"""
    for x in (0.0, 1.0, -1.0):
        check(solution, ref, x)  # expect_close also refuses an array of shape (1,) for a number


@pytest.mark.parametrize("x", [
    pytest.param([-4.0, -3.0, -2.0, -1.5, -1.0, -0.5, -0.1], id="negative"),
    pytest.param([-0.01, -1e-4, 0.0, 1e-4, 0.01], id="near zero"),
    pytest.param([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0], id="positive"),
])
def test_values(solution, ref, x):
    """gelu agrees with the tanh formula"""
    check(solution, ref, np.array(x))


def test_large_magnitudes(solution, ref):
    """gelu stays finite for large inputs: about x for large positive x, about 0 for large negative x"""
    check(solution, ref, np.array([-1e5, -1000.0, -50.0, 50.0, 1000.0, 1e5]))


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)], ids=["1-D", "2-D", "3-D"])
def test_shape(solution, ref, shape):
    """gelu returns an array of the same shape as its input"""
    check(solution, ref, np.linspace(-3, 3, int(np.prod(shape))).reshape(shape))


def test_fresh_values(solution, ref, fresh):
    """gelu agrees with the tanh formula on values drawn afresh on every run"""
    check(solution, ref, fresh.uniform(-5.0, 5.0, size=(int(fresh.integers(1, 5)), 8)))


def test_input_unchanged(solution):
    """gelu leaves the array it is given unchanged"""
    c = call(solution, "gelu", np.array([[-2.0, -0.5, 0.0], [0.5, 1.0, 3.0]]))
    expect_unchanged(c)
