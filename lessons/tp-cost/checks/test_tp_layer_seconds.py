"""Checks of tp_layer_seconds(b, s, h, t, gpu_flops, bus_GBps, latency_s, bytes_per_elem)."""
from lessonkit.checking import call
from lessonkit.fixtures import cases


def check(solution, model, b, s, h, t, g, bus, *rest):
    c = call(solution, "tp_layer_seconds", b, s, h, t, g, bus, *rest)
    lat, bpe = (list(rest) + [0.0, 2][len(rest):])[:2]
    model.expect_model(c, model.layer_time, (b, s, h, t, g, bus, lat, bpe), model.step_mistakes())


@cases("t", [2, 4, 8])
def test_megatron_d2(solution, model, t):
    """tp_layer_seconds of the D.2 layer on a DGX-2H (39 TFLOP/s, 300 GB/s NVSwitch)"""
    d = model.D2
    check(solution, model, d.b, d.s, d.h, t, d.gpu_flops, d.intra)


def test_one_gpu(solution, model):
    """tp_layer_seconds at t = 1 is compute alone: 3·layer_flops / gpu_flops"""
    d = model.D2
    check(solution, model, d.b, d.s, d.h, 1, d.gpu_flops, d.intra, 10e-6)


def test_latency_and_fp32(solution, model):
    """tp_layer_seconds counts the latency of every step and bytes_per_elem = 4 (fp32)"""
    check(solution, model, 4, 2048, 4096, 8, 312e12, 300.0, 8e-6, 4)


def test_drawn_layers(solution, model, draw):
    """tp_layer_seconds follows the model for layers, GPUs and links drawn for this run"""
    for _case in range(4):
        check(solution, model, *draw.layer(), draw.n(), draw.gpu_flops(), draw.bus(), draw.latency())
    check(solution, model, *draw.layer(), 64, draw.gpu_flops(), draw.bus(), draw.latency(), 4)
