# catches: test_ring_bytes::*, test_allreduce_seconds::*, test_layer_flops::*, test_tp_layer_seconds::*, test_tp_speedup::*, test_best_tp_degree::*, test_bad_arguments::*
# The starter as given: every function raises NotImplementedError.
"""The alpha-beta cost model of one tensor-parallel transformer layer.

Every argument is a plain number. Times are in seconds, sizes in bytes, work in FLOPs;
GB/s means 10**9 bytes per second. Each function raises ValueError, naming the argument,
for a count (n, t, max_t, gpus_per_node) below 1 or a bandwidth or gpu_flops that is not
positive, checked on entry whether or not the value ends up used.
"""


def ring_allreduce_bytes(size_bytes, n):
    """Bytes each GPU sends in a ring all-reduce of a buffer of size_bytes over n GPUs.

    The ring is a reduce-scatter then an all-gather: n - 1 steps each, one chunk of
    size_bytes / n per step. Returns a float: 2 * (n - 1) / n * size_bytes (0.0 for n = 1).
    """
    raise NotImplementedError


def allreduce_seconds(size_bytes, n, bus_GBps, latency_s=0.0):
    """Seconds of a ring all-reduce in the alpha-beta model.

    Each of the 2 * (n - 1) steps pays latency_s; the bytes each GPU sends
    (ring_allreduce_bytes) go at bus_GBps * 10**9 bytes per second.
    Returns a float; 0.0 for n = 1 (nothing to send).
    """
    raise NotImplementedError


def layer_flops(b, s, h):
    """Forward FLOPs of one transformer layer: micro-batch b, sequence length s, hidden size h.

    24 * b * s * h**2 (the attention projections and the MLP) + 4 * b * s**2 * h (the
    attention scores and their product with the values). Returns a float.
    """
    raise NotImplementedError


def tp_layer_seconds(b, s, h, t, gpu_flops, bus_GBps, latency_s=0.0, bytes_per_elem=2):
    """Seconds of one layer's training step (forward + backward) on a TP group of t GPUs.

    Compute: a training step costs 3 forwards, shared by the t GPUs, each doing gpu_flops
    FLOPs per second. Communication: 4 all-reduces (2 forward, 2 backward) of the (b*s, h)
    activation, b * s * h * bytes_per_elem bytes each. Compute and communication do not
    overlap. Returns a float.
    """
    raise NotImplementedError


def tp_speedup(b, s, h, t, gpu_flops, bus_GBps, latency_s=0.0):
    """How many times faster a layer's step is on t GPUs than on one.

    tp_layer_seconds at t = 1 divided by tp_layer_seconds at t (default bytes_per_elem).
    Returns a float.
    """
    raise NotImplementedError


def best_tp_degree(b, s, h, gpu_flops, gpus_per_node, intra_GBps, inter_GBps, max_t, latency_s=0.0):
    """The TP degree with the shortest step among t = 1, 2, 4, ... up to max_t.

    A group of t <= gpus_per_node GPUs fits in one server and all-reduces at intra_GBps;
    a larger one crosses servers at inter_GBps. On a tie the smaller t wins.
    Returns an int.
    """
    raise NotImplementedError
