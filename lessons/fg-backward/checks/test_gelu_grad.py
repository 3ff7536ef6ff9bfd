"""Checks of gelu_grad(x): the derivative of GPT-2's tanh GeLU, elementwise."""
import numpy as np
import pytest

from lessonkit.checking import call, expect_close, expect_unchanged

# Tight enough to tell the exact erf derivative (off by up to 8.7e-4 near |x| ≈ 2) from the
# tanh one, loose enough for a float32 implementation (off by ~1e-7 of its terms, which are ~1).
RTOL, ATOL = 1e-5, 1e-6


def check(solution, ref, x):
    expect_close(call(solution, "gelu_grad", x), ref.tanh_gelu_grad(x), rtol=RTOL, atol=ATOL,
                 mistakes=ref.gelu_grad_mistakes(x))


def test_python_floats(solution, ref):
    """gelu_grad works on plain Python floats: gelu_grad(0) = 0.5, gelu_grad(1) ≈ 1.0830, gelu_grad(2) ≈ 1.0861"""
    for x in (0.0, 1.0, 2.0, -1.0):
        check(solution, ref, x)  # expect_close also refuses an array of shape (1,) for a number


@pytest.mark.parametrize("x", [
    pytest.param([-4.0, -3.0, -2.5, -1.5, -1.0, -0.5, -0.1], id="negative"),
    pytest.param([-0.01, -1e-4, 0.0, 1e-4, 0.01], id="near zero"),
    pytest.param([0.5, 1.0, 1.5, 2.5, 3.0, 4.0], id="positive"),
])
def test_values(solution, ref, x):
    """gelu_grad agrees with the derivative of the tanh formula"""
    check(solution, ref, np.array(x))


def test_tanh_not_erf(solution, ref):
    """gelu_grad is the tanh form's derivative, not the exact erf one, where they differ most (|x| ≈ 2)"""
    check(solution, ref, np.array([-2.2, -2.0187, -1.8, 1.8, 2.0187, 2.2]))


def test_large_magnitudes(solution, ref):
    """gelu_grad stays finite for large inputs: about 1 for large positive x, about 0 for large negative x"""
    check(solution, ref, np.array([-1e5, -1000.0, -50.0, -10.0, 10.0, 50.0, 1000.0, 1e5]))


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)], ids=["0-D", "1-D", "2-D", "3-D"])
def test_shape(solution, ref, shape):
    """gelu_grad returns an array of the same shape as its input"""
    check(solution, ref, np.linspace(-3, 3, int(np.prod(shape))).reshape(shape))


def test_fresh_values(solution, ref, fresh):
    """gelu_grad agrees with the derivative of the tanh formula on values drawn afresh on every run"""
    check(solution, ref, fresh.uniform(-5.0, 5.0, size=(int(fresh.integers(1, 5)), 8)))


def test_input_unchanged(solution):
    """gelu_grad leaves the array it is given unchanged"""
    c = call(solution, "gelu_grad", np.array([[-2.0, -0.5, 0.0], [0.5, 1.0, 3.0]]))
    expect_unchanged(c)
