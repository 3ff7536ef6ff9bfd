"""Checks of tp_speedup(b, s, h, t, gpu_flops, bus_GBps, latency_s)."""
from lessonkit.checking import call
from lessonkit.fixtures import cases


def check(solution, model, b, s, h, t, g, bus, *latency):
    c = call(solution, "tp_speedup", b, s, h, t, g, bus, *latency)
    model.expect_model(c, model.speedup, (b, s, h, t, g, bus, latency[0] if latency else 0.0),
                       model.step_mistakes())


@cases("t", [2, 4, 8])
def test_megatron_d2(solution, model, t):
    """tp_speedup of the D.2 layer (b = 8) on 2, 4 and 8 GPUs: the model's row, above the paper's 1.64, 2.34, 2.98"""
    d = model.D2
    check(solution, model, d.b, d.s, d.h, t, d.gpu_flops, d.intra)


def test_one_gpu(solution, model):
    """tp_speedup at t = 1 is exactly 1.0"""
    d = model.D2
    check(solution, model, d.b, d.s, d.h, 1, d.gpu_flops, d.intra, 5e-6)


def test_no_gain(solution, model):
    """tp_speedup is 1.0 at every t when the saved compute is exactly paid back in communication"""
    for t in (2, 8, 32):
        check(solution, model, *model.TIE_ALL.layer, t, model.TIE_ALL.gpu_flops, model.TIE_ALL.bus)


def test_drawn_layers(solution, model, draw):
    """tp_speedup follows the model for layers, GPUs and links drawn for this run"""
    for _case in range(4):
        check(solution, model, *draw.layer(), draw.n(), draw.gpu_flops(), draw.bus(), draw.latency())
    check(solution, model, *draw.layer(), 64, draw.gpu_flops(), draw.bus(), draw.latency())
