"""Checks of layer_flops(b, s, h): the forward FLOPs of one transformer layer."""
import pytest

from lessonkit.checking import call


def check(solution, model, b, s, h):
    c = call(solution, "layer_flops", b, s, h)
    model.expect_model(c, model.flops, (b, s, h))


@pytest.mark.parametrize("b,s,h", [
    pytest.param(1, 2, 4, id="b=1, s=2, h=4: 832"),
    pytest.param(8, 1024, 1536, id="the D.2 layer: b=8, s=1024, h=1536"),
])
def test_worked_example(solution, model, b, s, h):
    """layer_flops gives the lesson's examples: 24·b·s·h² + 4·b·s²·h"""
    check(solution, model, b, s, h)


def test_drawn_layers(solution, model, draw):
    """layer_flops follows the formula for layers drawn for this run"""
    for _case in range(5):
        check(solution, model, *draw.layer())
