"""Shared pieces of the tp-cost checks: the cost model and its classic wrong versions (used only
after the learner's call has returned), the papers' cases, arguments drawn fresh for each run,
and the comparison of one returned number with its hints."""
from types import SimpleNamespace

import numpy as np
import pytest

from lessonkit.checking import expect_close, fail
from lessonkit.fixtures import ref_fixture
from lessonkit.i18n import _

GB = 1e9
GIB = 2.0**30
RTOL = 1e-9  # the formulas are exact; only the order of floating-point operations may differ

# Megatron-LM (Shoeybi et al. 2019), Table 1's 1.2B model (h = 1536, s = 1024) at batch 8 as in
# appendix D.2, on a V100 at the 39 TFLOP/s the paper's single-GPU baseline sustains, 300 GB/s
# NVSwitch inside a DGX-2H, 16 GPUs per server, 100 GB/s between servers shared by those 16.
D2 = SimpleNamespace(b=8, s=1024, h=1536, gpu_flops=39e12, intra=300.0, inter=100.0 / 16, gpus_per_node=16)

# Exact ties. With b·s·h = 3·2⁴·5⁹ and gpu_flops = layer_flops, every time below is a sum of
# dyadic fractions, exact in floating point whatever order a solution adds and divides in.
# TIE_ALL (latency 0, 0.5 GB/s): compute 3/t s plus communication 3(t−1)/t s, 3 s at every t.
# TIE_TWO (latency 1/64 s, 0.75 GB/s): 3 s at t = 1, 2.625 s at t = 2 and at t = 4, 3 s at t = 8.
TIE_LAYER = (3, 6250, 5000)
TIE_FLOPS = float(24 * 3 * 6250 * 5000**2 + 4 * 3 * 6250**2 * 5000)
TIE_ALL = SimpleNamespace(layer=TIE_LAYER, gpu_flops=TIE_FLOPS, bus=0.5, latency=0.0)
TIE_TWO = SimpleNamespace(layer=TIE_LAYER, gpu_flops=TIE_FLOPS, bus=0.75, latency=1 / 64)


# ---- the model, with a switch for each classic mistake ---------------------------------------

def ring_bytes(size, n, ring="right"):
    factor = {"right": 2 * (n - 1) / n, "no_divide": 2 * (n - 1), "no_two": (n - 1) / n}[ring]
    return float(factor * size)


def allreduce_time(size, n, bus, latency=0.0, ring="right", hops="right", unit=GB):
    if n == 1:
        return 0.0
    paid = 2 * (n - 1) if hops == "right" else 1
    return paid * latency + ring_bytes(size, n, ring) / (bus * unit)


def flops(b, s, h):
    return float(24 * b * s * h**2 + 4 * b * s**2 * h)


def layer_time(b, s, h, t, g, bus, latency=0.0, bpe=2, passes=3, split=True, allreduces=4, **comm):
    compute = passes * flops(b, s, h) / ((t if split else 1) * g)
    return compute + allreduces * allreduce_time(b * s * h * bpe, t, bus, latency, **comm)


def speedup(b, s, h, t, g, bus, latency=0.0, **kw):
    return layer_time(b, s, h, 1, g, bus, latency, **kw) / layer_time(b, s, h, t, g, bus, latency, **kw)


def degrees(max_t):
    found, t = [], 1
    while t <= max_t:
        found.append(t)
        t *= 2
    return found


def best(b, s, h, g, per_node, intra, inter, max_t, latency=0.0, boundary="right", ties="smaller", **kw):
    def bus(t):
        inside = t <= per_node if boundary == "right" else t < per_node
        return intra if inside else inter
    times = [(layer_time(b, s, h, t, g, bus(t), latency, **kw), t) for t in degrees(max_t)]
    shortest = min(seconds for seconds, _t in times)
    tied = [t for seconds, t in times if seconds == shortest]
    return tied[0] if ties == "smaller" else tied[-1]


# ---- hints: the value each classic mistake gives ----------------------------------------------

def comm_mistakes():
    """(hint, keyword arguments of the model) for the mistakes inside one all-reduce."""
    return [
        (_("you counted 2(n−1) chunks of the whole buffer: each of the 2(n−1) steps of the ring "
           "sends one chunk of size/n, not the whole buffer, so each GPU sends 2(n−1)/n · size "
           "bytes (at most twice the buffer, however many GPUs)."), {"ring": "no_divide"}),
        (_("you left out the factor 2: (n−1)/n · size is only the reduce-scatter. A ring "
           "all-reduce is a reduce-scatter and then an all-gather, n−1 steps each: 2(n−1)/n · size."),
         {"ring": "no_two"}),
        (_("you paid the latency once. The ring runs 2(n−1) steps one after another, and each "
           "step waits for its own message: 2(n−1)·latency_s."), {"hops": "once"}),
        (_("you took a GB/s as 2³⁰ bytes per second. Bandwidths are quoted in decimal units: "
           "1 GB/s = 10⁹ bytes per second."), {"unit": GIB}),
    ]


def step_mistakes():
    """(hint, keyword arguments of the model) for the mistakes in one layer's step. Half the
    communication has two causes that give the same number here: one hint names both."""
    return [m for m in comm_mistakes() if m[1] != {"ring": "no_two"}] + [
        (_("you counted the forward pass only. A training step runs the forward (1×) and the "
           "backward (2×: gradients of the inputs and of the weights), so the compute is "
           "3·layer_flops."), {"passes": 1}),
        (_("the compute was not divided by t. Tensor parallelism splits every GEMM of the layer "
           "across the t GPUs, so each does 1/t of the FLOPs: 3·layer_flops / (t·gpu_flops)."),
         {"split": False}),
        (_("your communication time is half the model's. A layer runs 4 all-reduces (2 in the "
           "forward, after attention and after the MLP; 2 in the backward), each sending "
           "2(n−1)/n of the buffer. Counting 2 all-reduces, or the ring without its factor 2, "
           "gives this value; the checks of ring_allreduce_bytes above tell which."),
         {"allreduces": 2}),
    ]


def expect_model(c, formula, args, table=()):
    """The number call `c` returned is formula(*args), a float (a Python float or numpy's float
    scalar), with the hint of each (hint, kw) of `table` where it is formula(*args, **kw)."""
    expect_close(c, formula(*args), rtol=RTOL, atol=0.0,
                 mistakes=[(hint, (lambda kw=kw: formula(*args, **kw))) for hint, kw in table])
    ok = isinstance(c.got, float) or (isinstance(c.got, np.ndarray) and c.got.ndim == 0
                                      and c.dtypes and all(d.startswith("float") for d in c.dtypes))
    if not ok:
        fail(_("{call} returned {got} ({kind}); it should return a float (seconds, bytes and "
               "FLOPs are real numbers: 0.0, not 0). Dividing with / or writing float(...) "
               "gives one.\n{inputs}", call=c.text(), got=repr(c.got), kind=type(c.got).__name__,
               inputs=c.inputs()))


model = ref_fixture(globals(), name="model")  # the cost model and its wrong versions


@pytest.fixture
def draw(fresh):
    """Realistic random arguments: a layer (b, s, h), a GPU and a link, drawn from the run's
    `fresh` generator: new on every Run, so that no table of answers passes."""
    rng = fresh
    return SimpleNamespace(
        layer=lambda: (int(rng.integers(1, 17)), int(rng.choice([128, 256, 512, 1024, 2048, 4096])),
                       int(128 * rng.integers(4, 97))),
        gpu_flops=lambda: float(rng.uniform(10e12, 1000e12)),
        bus=lambda: float(rng.uniform(5.0, 900.0)),
        latency=lambda: float(rng.uniform(1e-6, 50e-6)),
        n=lambda: int(rng.integers(2, 65)),
        size=lambda: float(rng.uniform(1e3, 1e9)), rng=rng)
