"""Checks of allreduce_seconds(size_bytes, n, bus_GBps, latency_s): the ring's alpha-beta time."""
import pytest

from lessonkit.checking import call


def check(solution, model, size, n, bus, *latency):
    c = call(solution, "allreduce_seconds", size, n, bus, *latency)
    model.expect_model(c, model.allreduce_time, (size, n, bus, latency[0] if latency else 0.0),
                       model.comm_mistakes())


@pytest.mark.parametrize("size,n,bus,latency", [
    pytest.param(1e9, 2, 100.0, 0.0, id="1 GB on 2 GPUs at 100 GB/s: 0.01 s"),
    pytest.param(1e9, 4, 300.0, 0.0, id="1 GB on 4 GPUs at 300 GB/s: 0.005 s"),
    pytest.param(1e6, 8, 300.0, 5e-6, id="1 MB on 8 GPUs at 300 GB/s with 5e-6 s per step"),
])
def test_worked_example(solution, model, size, n, bus, latency):
    """allreduce_seconds gives the lesson's examples: 2(n−1)·latency_s + bytes / (bus_GBps·10⁹)"""
    check(solution, model, size, n, bus, latency)


def test_default_latency(solution, model):
    """allreduce_seconds(size, n, bus_GBps) without latency_s counts the bandwidth term only"""
    check(solution, model, 25165824, 8, 300.0)


def test_one_gpu(solution, model):
    """allreduce_seconds is 0.0 for n = 1, latency included: there is no ring to go round"""
    check(solution, model, 1e9, 1, 300.0, 1e-3)


def test_drawn_links(solution, model, draw):
    """allreduce_seconds follows the model for sizes, GPU counts, bandwidths and latencies drawn for this run"""
    for _case in range(5):
        check(solution, model, draw.size(), draw.n(), draw.bus(), draw.latency())
    check(solution, model, draw.size(), 64, draw.bus(), draw.latency())
