"""Every function refuses a count below 1 and a bandwidth or gpu_flops that is not positive,
with a ValueError that names the argument, whether or not the value would be used."""
import pytest

from lessonkit.checking import expect_raises
from lessonkit.i18n import _

LAYER = (8, 1024, 1536)
CASES = [
    ("ring_allreduce_bytes", (1000.0, 0), "n"),
    ("ring_allreduce_bytes", (1000.0, -2), "n"),
    ("allreduce_seconds", (1000.0, 0, 300.0), "n"),
    ("allreduce_seconds", (1000.0, 1, 0.0), "bus_GBps"),
    ("allreduce_seconds", (1000.0, 4, -5.0), "bus_GBps"),
    ("tp_layer_seconds", LAYER + (0, 39e12, 300.0), "t"),
    ("tp_layer_seconds", LAYER + (1, 0.0, 300.0), "gpu_flops"),
    ("tp_layer_seconds", LAYER + (1, 39e12, 0.0), "bus_GBps"),
    ("tp_speedup", LAYER + (0, 39e12, 300.0), "t"),
    ("tp_speedup", LAYER + (4, -1.0, 300.0), "gpu_flops"),
    ("best_tp_degree", LAYER + (0.0, 16, 300.0, 6.25, 64), "gpu_flops"),
    ("best_tp_degree", LAYER + (39e12, 0, 300.0, 6.25, 64), "gpus_per_node"),
    ("best_tp_degree", LAYER + (39e12, 16, -1.0, 6.25, 64), "intra_GBps"),
    ("best_tp_degree", LAYER + (39e12, 16, 300.0, 0.0, 1), "inter_GBps"),
    ("best_tp_degree", LAYER + (39e12, 16, 300.0, 6.25, 0), "max_t"),
]


def case_id(case):
    fn, args, name = case
    value = args[list(PARAMS[fn]).index(name)]
    return f"{fn}: {name} = {value:g}"


PARAMS = {
    "ring_allreduce_bytes": ("size_bytes", "n"),
    "allreduce_seconds": ("size_bytes", "n", "bus_GBps"),
    "tp_layer_seconds": ("b", "s", "h", "t", "gpu_flops", "bus_GBps"),
    "tp_speedup": ("b", "s", "h", "t", "gpu_flops", "bus_GBps"),
    "best_tp_degree": ("b", "s", "h", "gpu_flops", "gpus_per_node", "intra_GBps", "inter_GBps", "max_t"),
}


@pytest.mark.parametrize("fn,args,name", CASES, ids=[case_id(c) for c in CASES])
def test_value_error(solution, fn, args, name):
    """A bad argument raises ValueError naming it"""
    value = f"{args[PARAMS[fn].index(name)]:g}"
    expect_raises(
        solution, fn, *args, what=_("{fn} with {name} = {value}", fn=fn, name=name, value=value),
        naming=name,
        fix=_("Check the arguments on entry, before any arithmetic: if {name} is out of range, "
              "raise ValueError(...) with a message that names it.", name=name),
        why=_("Check every argument on entry, even one this call would not use (n = 1 needs no "
              "bandwidth, max_t = 1 no inter-server link): a bad value is a mistake in the "
              "caller's configuration, and a number computed from it hides that mistake."))
