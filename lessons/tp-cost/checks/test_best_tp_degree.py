"""Checks of best_tp_degree(b, s, h, gpu_flops, gpus_per_node, intra_GBps, inter_GBps, max_t, latency_s)."""
import numpy as np
import pytest

from lessonkit.checking import call, expect_close, fail
from lessonkit.i18n import _


def mistakes(model, args):
    return [
        (_("at t = gpus_per_node you used the inter-server bandwidth. A group of exactly "
           "gpus_per_node GPUs still fills one server, so it all-reduces over NVLink/NVSwitch at "
           "intra_GBps; only t > gpus_per_node crosses servers."),
         lambda: model.best(*args, boundary="strict")),
        (_("on a tie you returned the larger t. When two degrees give the same step time, the "
           "smaller group does the same work with fewer GPUs (the rest can run other replicas), "
           "so the smaller t wins: compare with <, not <=."), lambda: model.best(*args, ties="larger")),
        (_("you counted the forward pass only (a training step costs 3 forwards), which makes "
           "communication look more expensive than it is."), lambda: model.best(*args, passes=1)),
        (_("you counted 2 all-reduces per layer instead of 4 (2 forward, 2 backward)."),
         lambda: model.best(*args, allreduces=2)),
    ]


def check(solution, model, b, s, h, g, per_node, intra, inter, max_t, *latency):
    c = call(solution, "best_tp_degree", b, s, h, g, per_node, intra, inter, max_t, *latency)
    args = (b, s, h, g, per_node, intra, inter, max_t, latency[0] if latency else 0.0)
    got = c.got
    is_int = isinstance(got, int) and not isinstance(got, bool) or (
        isinstance(got, np.ndarray) and got.ndim == 0 and c.dtypes and all(d.startswith(("int", "uint")) for d in c.dtypes))
    expect_close(c, model.best(*args), rtol=0.0, atol=0.0, mistakes=mistakes(model, args))
    if not is_int:
        fail(_("{call} returned {got} ({kind}); a TP degree is a whole number of GPUs: return "
               "an int (t itself, not a time or a float).\n{inputs}", call=c.text(), got=repr(got),
               kind=type(got).__name__, inputs=c.inputs()))


def test_dgx2h(solution, model):
    """best_tp_degree for the D.2 layer on DGX-2H servers (16 V100s, 300 GB/s inside, 100 GB/s per server between) is a whole server"""
    d = model.D2
    check(solution, model, d.b, d.s, d.h, d.gpu_flops, d.gpus_per_node, d.intra, d.inter, 64)


def test_full_server_stays_inside(solution, model):
    """best_tp_degree uses intra_GBps for a group of exactly gpus_per_node GPUs"""
    d = model.D2
    check(solution, model, d.b, d.s, d.h, d.gpu_flops, 8, d.intra, d.inter, 64)


def test_current_server(solution, model):
    """best_tp_degree on an 8-GPU server (450 GB/s NVLink each way, one 50 GB/s NIC per GPU), 10 µs per step"""
    check(solution, model, 1, 4096, 8192, 400e12, 8, 450.0, 50.0, 64, 10e-6)


@pytest.mark.parametrize("case,max_t", [("TIE_ALL", 64), ("TIE_TWO", 16)],
                         ids=["every t ties: 1", "t = 2 and t = 4 tie: 2"])
def test_ties(solution, model, case, max_t):
    """best_tp_degree gives ties to the smaller t"""
    tie = getattr(model, case)
    check(solution, model, *tie.layer, tie.gpu_flops, 8, tie.bus, tie.bus, max_t, tie.latency)


@pytest.mark.parametrize("max_t", [1, 12], ids=["max_t = 1", "max_t = 12: up to 8"])
def test_max_t(solution, model, max_t):
    """best_tp_degree tries only the powers of two up to max_t"""
    check(solution, model, 8, 2048, 12288, 100e12, 16, 900.0, 900.0, max_t)


def test_drawn_clusters(solution, model, draw):
    """best_tp_degree picks a whole server for layers, GPUs and servers drawn for this run (compute-bound inside, a slow link between)"""
    # The links are drawn around the compute time C1 = 3·F/gpu_flops: inside a server the whole
    # communication stays below C1/10⁴, so a full server is the best degree by far; between
    # servers it is at least 10·C1, so leaving never pays. The answer is then gpus_per_node
    # for every draw, and each classic mistake gives the same verdict on every draw.
    for _case in range(4):
        b, s, h = draw.layer()
        g = draw.gpu_flops()
        per_node = int(draw.rng.choice([4, 8, 16]))
        c1 = 3 * model.flops(b, s, h) / g
        size = b * s * h * 2
        uniform = lambda: float(draw.rng.uniform(1.0, 3.0))  # noqa: E731
        latency = c1 * 1e-6 / (8 * 64) * uniform()
        intra = 8 * size * 1e4 / (c1 * model.GB) * uniform()
        inter = 4 * size / (10 * c1 * model.GB) / uniform()
        check(solution, model, b, s, h, g, per_node, intra, inter, 64, latency)
