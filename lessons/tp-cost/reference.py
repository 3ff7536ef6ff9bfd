"""Model solution of the lesson on when tensor parallelism stops paying.

The page offers it as model-solution.py after a pass or after repeated failed runs; the
grading worker never sees it."""

GB = 1e9  # GB/s means 10⁹ bytes per second, as bandwidths are quoted


def _at_least_one(name, value):
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value!r}")


def _positive(name, value):
    if not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def ring_allreduce_bytes(size_bytes, n):
    _at_least_one("n", n)
    # Reduce-scatter then all-gather: n − 1 steps each, a chunk of size/n per step.
    return 2 * (n - 1) / n * size_bytes


def allreduce_seconds(size_bytes, n, bus_GBps, latency_s=0.0):
    _at_least_one("n", n)
    _positive("bus_GBps", bus_GBps)
    if n == 1:
        return 0.0
    # Every one of the 2(n − 1) steps waits for one message: alpha per step, beta per byte.
    return 2 * (n - 1) * latency_s + ring_allreduce_bytes(size_bytes, n) / (bus_GBps * GB)


def layer_flops(b, s, h):
    # The four h×h projections of attention and the h×4h, 4h×h of the MLP: 24·b·s·h²;
    # the attention scores Q·Kᵀ and their product with V: 4·b·s²·h.
    return float(24 * b * s * h**2 + 4 * b * s**2 * h)


def tp_layer_seconds(b, s, h, t, gpu_flops, bus_GBps, latency_s=0.0, bytes_per_elem=2):
    _at_least_one("t", t)
    _positive("gpu_flops", gpu_flops)
    _positive("bus_GBps", bus_GBps)
    compute = 3 * layer_flops(b, s, h) / (t * gpu_flops)  # forward + backward (2×)
    # Two all-reduces in the forward (after attention, after the MLP), two in the backward.
    comm = 4 * allreduce_seconds(b * s * h * bytes_per_elem, t, bus_GBps, latency_s)
    return compute + comm


def tp_speedup(b, s, h, t, gpu_flops, bus_GBps, latency_s=0.0):
    one = tp_layer_seconds(b, s, h, 1, gpu_flops, bus_GBps, latency_s)
    return one / tp_layer_seconds(b, s, h, t, gpu_flops, bus_GBps, latency_s)


def best_tp_degree(b, s, h, gpu_flops, gpus_per_node, intra_GBps, inter_GBps, max_t, latency_s=0.0):
    _positive("gpu_flops", gpu_flops)
    _at_least_one("gpus_per_node", gpus_per_node)
    _positive("intra_GBps", intra_GBps)
    _positive("inter_GBps", inter_GBps)
    _at_least_one("max_t", max_t)
    best, best_seconds = None, None
    t = 1
    while t <= max_t:
        bus = intra_GBps if t <= gpus_per_node else inter_GBps  # a full server is still inside it
        seconds = tp_layer_seconds(b, s, h, t, gpu_flops, bus, latency_s)
        if best is None or seconds < best_seconds:  # strictly shorter: a tie keeps the smaller t
            best, best_seconds = t, seconds
        t *= 2
    return best
