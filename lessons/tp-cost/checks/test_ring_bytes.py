"""Checks of ring_allreduce_bytes(size_bytes, n): what each GPU sends in a ring all-reduce."""
import pytest

from lessonkit.checking import call

# The D.2 layer's activation, (b·s, h) = (8·1024, 1536) in fp16: the buffer of each all-reduce.
D2_BYTES = 8 * 1024 * 1536 * 2


def check(solution, model, size, n):
    c = call(solution, "ring_allreduce_bytes", size, n)
    model.expect_model(c, model.ring_bytes, (size, n),
                       [(hint, kw) for hint, kw in model.comm_mistakes() if "ring" in kw])


@pytest.mark.parametrize("size,n", [
    pytest.param(1000, 4, id="1000 bytes on 4 GPUs: 1500"),
    pytest.param(1000, 2, id="1000 bytes on 2 GPUs: 1000"),
    pytest.param(D2_BYTES, 8, id="the D.2 activation on 8 GPUs"),
])
def test_worked_example(solution, model, size, n):
    """ring_allreduce_bytes gives the lesson's examples: 2(n−1)/n · size_bytes"""
    check(solution, model, size, n)


def test_one_gpu(solution, model):
    """ring_allreduce_bytes(size, 1) is 0.0: one GPU sends nothing"""
    check(solution, model, 123456.0, 1)


def test_drawn_sizes(solution, model, draw):
    """ring_allreduce_bytes follows the formula for sizes and GPU counts drawn for this run"""
    for _case in range(5):
        check(solution, model, draw.size(), draw.n())
    check(solution, model, draw.size(), 64)
