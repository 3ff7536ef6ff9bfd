"""Measuring what a tensor-parallel step does: its collectives and their bytes, the memory it
keeps, its time; each figure read from the run, for checks to compare with the lesson's formulas."""

import contextlib
import os
import statistics
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch.utils._python_dispatch import TorchDispatchMode


# ---- collectives -------------------------------------------------------------------------------

@dataclass
class Collective:
    op: str  # all_reduce, all_gather, reduce_scatter, ...
    shape: tuple
    dtype: str
    nbytes: int  # of the tensor(s) the collective received


@dataclass
class Traffic:
    counts: dict  # CommDebugMode's count per collective, e.g. {"all_reduce": 1}
    calls: list  # Collective, in the order they ran


# c10d's in-place ops and the functional ones (DTensor's) under the names CommDebugMode reports.
_NAMES = {"allreduce_": "all_reduce", "allgather_": "all_gather", "_allgather_base_": "all_gather",
          "reduce_scatter_": "reduce_scatter", "_reduce_scatter_base_": "reduce_scatter",
          "broadcast_": "broadcast", "alltoall_": "all_to_all", "alltoall_base_": "all_to_all",
          "all_gather_into_tensor": "all_gather", "reduce_scatter_tensor": "reduce_scatter",
          "all_to_all_single": "all_to_all", "send": "send", "recv_": "recv"}


def _name(op):
    base = str(op).split(".")[-1] if "." in str(op) else str(op)
    return _NAMES.get(base, base)


class _Recorder(TorchDispatchMode):
    """Records the input tensors of every collective that goes through the dispatcher (forward
    and backward: autograd carries the mode to its threads)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.namespace in ("c10d", "_c10d_functional", "c10d_functional"):
            first = args[0]
            tensors = list(first) if isinstance(first, (list, tuple)) else [first]
            tensors = [t for t in tensors if isinstance(t, torch.Tensor)]
            if tensors and not func.__name__.startswith(("wait", "barrier", "monitored")):
                self.calls.append(Collective(_name(func.__name__.split(".")[0]), tuple(tensors[0].shape),
                                             str(tensors[0].dtype).replace("torch.", ""),
                                             sum(t.numel() * t.element_size() for t in tensors)))
        return func(*args, **(kwargs or {}))


def collectives(fn):
    """(result, Traffic): `fn()` run under CommDebugMode (the counts) and a recorder of the
    tensors each collective received (the sizes)."""
    from torch.distributed.tensor.debug import CommDebugMode

    with CommDebugMode() as mode, _Recorder() as recorder:
        result = fn()
    counts = {}
    for op, n in mode.get_comm_counts().items():
        counts[_name(op)] = counts.get(_name(op), 0) + n
    return result, Traffic(counts, recorder.calls)


def passes(forward, backward=None):
    """(forward's result, Traffic of the forward, Traffic of the backward): `forward()` and then
    `backward(result)` (by default result.sum().backward()), each under collectives()."""
    out, fwd = collectives(forward)
    _, bwd = collectives(lambda: backward(out) if backward else out.sum().backward())
    return out, fwd, bwd


def ring_bytes(payload, n):
    """Bytes each rank sends in a ring all-reduce of `payload` bytes over n ranks: the
    reduce-scatter and the all-gather each pass n-1 chunks of payload/n."""
    return 2 * (n - 1) / n * payload


def ring_all_reduce(tensor):
    """(sum over ranks, bytes this rank sent): a ring all-reduce written out with send/recv over
    the default group, counting the bytes at each send. Its result must equal dist.all_reduce's."""
    rank, n = dist.get_rank(), dist.get_world_size()
    out = tensor.detach().clone().contiguous()
    chunks = list(out.view(-1).tensor_split(n))
    right, left = (rank + 1) % n, (rank - 1) % n
    sent = 0

    def exchange(send_chunk, recv_into):
        nonlocal sent
        # One isend and one irecv per step: on a ring every rank sends right and receives left.
        ops = [dist.P2POp(dist.isend, send_chunk.contiguous(), right), dist.P2POp(dist.irecv, recv_into, left)]
        for req in dist.batch_isend_irecv(ops):
            req.wait()
        sent += send_chunk.numel() * send_chunk.element_size()

    for step in range(n - 1):  # reduce-scatter: chunk (rank+1) % n ends up summed on this rank
        incoming = torch.empty_like(chunks[(rank - step - 1) % n])
        exchange(chunks[(rank - step) % n], incoming)
        chunks[(rank - step - 1) % n] += incoming
    for step in range(n - 1):  # all-gather: pass the summed chunks around the ring
        incoming = torch.empty_like(chunks[(rank - step) % n])
        exchange(chunks[(rank - step + 1) % n], incoming)
        chunks[(rank - step) % n].copy_(incoming)
    return out, sent


def expect_ring(run, key, title, tensor, formula=ring_bytes):
    """One verdict on the course's ring all-reduce of `tensor` (ring_all_reduce): its sum equals
    dist.all_reduce's, and the bytes this rank sent equal formula(payload bytes, N) (the lesson's
    own formula where it teaches one). Returns the bytes sent. Every rank must call it."""
    from .comparing import compare

    summed, sent = ring_all_reduce(tensor)
    reference = tensor.detach().clone()
    dist.all_reduce(reference)
    ok, detail = compare(summed, reference)
    payload, n = tensor.numel() * tensor.element_size(), run.world
    want = formula(payload, n)
    run.expect(key, title, ok and sent == want, f"this rank sent {sent} B of a {payload} B payload; the formula at "
               f"N = {n} gives {want:.0f} B; its sum vs dist.all_reduce: {detail}")
    return sent


# ---- memory ------------------------------------------------------------------------------------

def storage_bytes(*tensors):
    """Bytes of the storages the tensors keep alive, each storage once: a view keeps its whole
    base, so a slice A[:, block] costs all of A."""
    seen = {}
    for t in tensors:
        storage = t.untyped_storage()
        seen[storage.data_ptr()] = storage.nbytes()
    return sum(seen.values())


def expect_share(run, key, title, make_shards, whole_bytes):
    """One verdict: the shards `make_shards()` returns (built on the CPU) keep exactly 1/N of
    `whole_bytes` alive on this rank: on CPU the bytes of the storages they keep (a view keeps its
    whole base), on a GPU the growth of torch.cuda.memory_allocated as they arrive there (the
    allocator rounds each up to 512 bytes). Returns the shards on the run's device."""
    want = whole_bytes // run.world
    if run.device.type == "cuda":
        shards, held = cuda_allocated(lambda: [t.to(run.device) for t in make_shards()], run.device)
        how, slack = "torch.cuda.memory_allocated growth", 512 * len(shards)
    else:
        shards = make_shards()
        held, how, slack = storage_bytes(*shards), "storage the shards keep alive", 0
    run.expect(key, title, want <= held <= want + slack,
               f"rank {run.rank}, {how}: {held} B; 1/{run.world} of {whole_bytes} B = {want} B")
    return shards


def saved_bytes(fn, exclude=()):
    """(result, bytes): the storage bytes of the tensors autograd saves for backward while `fn()`
    runs (the activations a training step keeps), each storage once; `exclude` (the parameters)
    is not counted."""
    skip = {t.untyped_storage().data_ptr() for t in exclude}
    seen = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in skip:
            seen[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = fn()
    return result, sum(seen.values())


class _Allocations(TorchDispatchMode):
    """The bytes of every new storage the ops under it return (views of an existing one are free)."""

    def __init__(self):
        super().__init__()
        self.sizes = []
        self._seen = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        inputs = {t.untyped_storage().data_ptr() for t in _tensors(args) + _tensors(list((kwargs or {}).values()))}
        out = func(*args, **(kwargs or {}))
        for t in _tensors([out]):
            ptr = t.untyped_storage().data_ptr()
            if ptr not in inputs and ptr not in self._seen:
                self._seen.add(ptr)
                self.sizes.append(t.untyped_storage().nbytes())
        return out


def _tensors(items):
    found = []
    for item in items:
        if isinstance(item, torch.Tensor):
            found.append(item)
        elif isinstance(item, (list, tuple)):
            found += _tensors(item)
    return found


def allocations(fn):
    """(result, sizes): the bytes of each new tensor storage the ops inside `fn()` create, in
    order, on any device: what a computation allocates (a full (T, V) intermediate shows up even
    when only a slice of it is kept)."""
    with _Allocations() as mode:
        result = fn()
    return result, mode.sizes


def cuda_allocated(fn, device):
    """(result, bytes): growth of torch.cuda.memory_allocated while `fn()` runs and its result lives."""
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    result = fn()
    torch.cuda.synchronize(device)
    return result, torch.cuda.memory_allocated(device) - before


def cuda_peak(fn, device):
    """(result, bytes): how far torch.cuda.max_memory_allocated rose above the memory allocated
    before `fn()` ran (its peak, transient tensors included), the peak statistics reset first."""
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    result = fn()
    torch.cuda.synchronize(device)
    return result, torch.cuda.max_memory_allocated(device) - before


def saved_per_module(modules, fn, exclude=()):
    """(result, [bytes saved during module 1's forward, ...]): saved_bytes split by the modules
    (a model's layers, run one after another), each storage counted once, in the module whose
    forward saved it first; a DTensor counts by its local shard (what this rank holds); nothing
    of `exclude` (the parameters) is counted."""
    from torch.distributed.tensor import DTensor

    local = lambda t: t._local_tensor if isinstance(t, DTensor) else t  # noqa: E731
    skip = {local(p).untyped_storage().data_ptr() for p in exclude}
    seen, spans = {}, []

    def pack(t):
        storage = local(t).untyped_storage()
        if storage.data_ptr() not in skip and storage.data_ptr() not in seen:
            seen[storage.data_ptr()] = storage.nbytes()
            if spans:
                spans[-1] += storage.nbytes()
        return t

    # A new span at each module's start and end: the odd ones are what is saved between modules.
    hooks = [m.register_forward_pre_hook(lambda *_: spans.append(0)) for m in modules]
    hooks += [m.register_forward_hook(lambda *_: spans.append(0)) for m in modules]
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            result = fn()
    finally:
        for hook in hooks:
            hook.remove()
    return result, spans[0::2]


def profiled_peak(fn, device):
    """(result, bytes): the peak of this process's memory on `device` while `fn()` runs, from
    torch.profiler's memory records (profile_memory=True): the running maximum of the cumulative
    allocations minus their running minimum, so a free of a tensor made before the profile (a
    negative record, where the allocator records one: the CPU allocator does not) lowers the floor
    instead of the peak."""
    activities = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with torch.profiler.profile(activities=activities, profile_memory=True) as prof:
        result = fn()
    records = [e for e in prof.profiler.kineto_results.events()
               if e.name() == "[memory]" and e.device_type().name == device.type.upper()]
    total = floor = peak = 0
    for record in sorted(records, key=lambda e: e.start_ns()):
        total += record.nbytes()
        floor = min(floor, total)
        peak = max(peak, total - floor)
    return result, peak


def peak_per_layer(block, x, device):
    """(bytes one more layer adds to this rank's CUDA peak, the peak of one layer), from
    torch.cuda.max_memory_allocated over a forward of `block` chained once and twice. Two chained
    blocks peak when the second one's transients sit on top of everything the first keeps for
    backward; one block peaks with the same transients on nothing. The difference is what a layer
    keeps, its output (the next layer's input) included."""
    def chain(depth):
        y = x
        for _ in range(depth):
            y = block(y)
        return y

    block(x)  # discarded: what is allocated on first use (cuBLAS's workspace) stays out of the peaks
    one = cuda_peak(lambda: chain(1), device)[1]
    return cuda_peak(lambda: chain(2), device)[1] - one, one


# ---- time --------------------------------------------------------------------------------------

def threads_per_rank(world):
    """CPU threads each of `world` processes on this machine gets; a one-device baseline gets the
    same, so that a speedup compares equal resources per device."""
    return max(1, (os.cpu_count() or 1) // world)


@contextlib.contextmanager
def cpu_threads(n):
    """torch's intra-op threads set to n inside the block."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class Timing:
    median_ms: float
    threads: int  # torch.get_num_threads() inside the timed region
    repeats: int
    min_ms: float = None
    max_ms: float = None

    @classmethod
    def of(cls, times, threads):
        """The spread of a list of milliseconds: a timing is a measurement, not one number."""
        return cls(statistics.median(times), threads, len(times), min(times), max(times))


def timed_ms(fn, device):
    """Milliseconds of one call: CUDA events around it and a synchronize before reading them on
    GPUs, perf_counter on CPU."""
    if device.type == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize(device)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize(device)
        return start.elapsed_time(end)
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def time_against_baseline(baseline, step, rank, device, warmup, repeats, baseline_threads):
    """(baseline Timing on rank 0 or None elsewhere, this rank's Timing of `step`). The two are
    interleaved, one baseline call (rank 0 alone, the other ranks waiting, with `baseline_threads`
    CPU threads) then one `step` on every rank, so that a change of load on the machine hits both
    alike. Every rank must call it."""
    base_times, step_times = [], []
    base_threads = None
    for _ in range(warmup + repeats):
        if rank == 0:
            with cpu_threads(baseline_threads):
                base_times.append(timed_ms(baseline, device))
                base_threads = torch.get_num_threads()
        dist.barrier()
        step_times.append(timed_ms(step, device))
        dist.barrier()
    base = Timing.of(base_times[warmup:], base_threads) if rank == 0 else None
    return base, Timing.of(step_times[warmup:], torch.get_num_threads())


def spread(timing):
    """A Timing, or a list of milliseconds, as {"min_ms", "median_ms", "max_ms"} (the form the
    reports and tables use)."""
    if not isinstance(timing, Timing):
        timing = Timing.of(list(timing), None)
    return {"min_ms": timing.min_ms, "median_ms": timing.median_ms, "max_ms": timing.max_ms}


def slowest(timing, device):
    """The spread of the slowest rank, on every rank: a step that ends with a collective is as
    slow as its last rank, so each of min, median and max is the largest over the ranks."""
    t = torch.tensor([timing.min_ms, timing.median_ms, timing.max_ms], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return dict(zip(("min_ms", "median_ms", "max_ms"), t.tolist()))


def from_rank0(timing, rank, device):
    """(rank 0's spread, its threads) on every rank: time_against_baseline's baseline is rank
    0's alone. Every rank must call it."""
    t = torch.zeros(4, dtype=torch.float64, device=device)
    if rank == 0:
        t[:] = torch.tensor([timing.min_ms, timing.median_ms, timing.max_ms, timing.threads], dtype=torch.float64)
    dist.broadcast(t, 0)
    return dict(zip(("min_ms", "median_ms", "max_ms"), t.tolist()[:3])), int(t[3].item())


def step_times(step, device, warmup, repeats):
    """Milliseconds of `step` per repeat, each the slowest rank's (a collective is as slow as its
    last rank): every rank runs it between barriers, then the times are all-reduced with MAX."""
    times = []
    for _ in range(warmup + repeats):
        dist.barrier()
        times.append(timed_ms(step, device))
    mine = torch.tensor(times[warmup:], dtype=torch.float64, device=device)
    dist.all_reduce(mine, op=dist.ReduceOp.MAX)
    return mine.tolist()


def against_one_device(run, one_step, tp_step, baseline_threads=None):
    """One timing row, on every rank: `one_step` on rank 0 alone (the one-device baseline, with
    `baseline_threads` CPU threads, by default one rank's share) interleaved with `tp_step` on every
    rank (time_against_baseline), over run.options' "repeats" after its "warmup": {"one_device_ms":
    rank 0's spread, "tp_ms": the slowest rank's, "speedup" of the medians, "baseline_threads",
    "rank_threads", "repeats", "warmup", "device" (its type), "device_name", "cpu_count", "bound":
    the most speedup this machine allows, N on GPUs; on CPU, N processes use no more cores than
    there are}. Every rank must call it."""
    warmup, repeats = run.options["warmup"], run.options["repeats"]
    threads = threads_per_rank(run.world) if baseline_threads is None else baseline_threads
    one, tp = time_against_baseline(one_step, tp_step, run.rank, run.device, warmup, repeats, threads)
    (base, base_threads), slow = from_rank0(one, run.rank, run.device), slowest(tp, run.device)
    n, cores = run.world, os.cpu_count() or 1
    bound = n if run.device.type == "cuda" else min(n * tp.threads, cores) / tp.threads
    return {"one_device_ms": base, "tp_ms": slow, "speedup": base["median_ms"] / slow["median_ms"],
            "baseline_threads": base_threads, "rank_threads": tp.threads, "repeats": repeats, "warmup": warmup,
            "device": run.device.type, "device_name": run.report["device_name"], "cpu_count": cores, "bound": bound}


def table(rows, columns):
    """Rows as a text table, right-aligned: `columns` is {header: a row's key, or a function of the
    row giving its text}."""
    cell = lambda row, how: how(row) if callable(how) else str(row[how])  # noqa: E731
    lines = [list(columns)] + [[cell(row, how) for how in columns.values()] for row in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(columns))]
    return "\n".join("  ".join(text.rjust(w) for text, w in zip(line, widths)) for line in lines)


def timing_columns(*sizes):
    """The columns of a table() of against_one_device rows: the row keys `sizes`, then one device's
    and TP's min / median / max milliseconds and the median speedup."""
    return {**{key: key for key in sizes},
            "one device ms (min / median / max)": lambda r: spread_text(r["one_device_ms"]),
            "TP ms (min / median / max)": lambda r: spread_text(r["tp_ms"]),
            "median speedup": lambda r: f"{r['speedup']:.2f}x"}


def timing_verdict(rows, size):
    """What against_one_device rows say, and only that: at which values of the row key `size` TP was
    faster, slower or within the spread of one device."""
    said = {"faster": "faster than one device at ", "slower": "slower at ", "even": "within the spread of one device at "}
    parts = []
    for word, text in said.items():
        at = [r for r in rows if faster_or_slower(r["one_device_ms"], r["tp_ms"]) == word]
        if at:
            parts.append(text + f"{size} = " + ", ".join(
                f"{r[size]}" + (f" ({r['speedup']:.2f}x)" if word != "even" else "") for r in at))
    return (f"Measured here with N = {rows[0]['N']}: TP was " + "; ".join(parts)
            + " (faster or slower only where the min-max ranges do not overlap).")


def matmul_flops(device, dtype, size=256, repeats=5):
    """FLOP/s of a (size, size) matmul on this rank: the median of `repeats` after one warm-up."""
    a = torch.randn(size, size, dtype=dtype, device=device)
    (a @ a).sum().item()
    return 2 * size**3 / (statistics.median(timed_ms(lambda: a @ a, device) for _ in range(repeats)) / 1e3)


def report_timing(run, rows, sizes, at, columns=None):
    """run.info of a timing section's against_one_device rows: the setup (device, ranks and their
    threads, the baseline's threads, CPU cores, warm-up and timed calls), the table of the row keys
    `sizes` (timing_columns, then `columns`), and timing_verdict at the values of the key `at`."""
    first = rows[0]
    run.info(f"setup: {run.report['device_name']}, {run.world} ranks with {first['rank_threads']} thread(s) each, "
             f"the baseline {first['baseline_threads']} thread(s) on rank 0 while the others wait; "
             f"{os.cpu_count()} CPU cores; {first['warmup']} warm-up call(s), {first['repeats']} timed, interleaved")
    run.info(table(rows, {**timing_columns(*sizes), **(columns or {})}))
    run.info(timing_verdict(rows, at))


def time_cases(run, name, cases, sizes, at, columns=None):
    """A timing section's loop and report, written once: for each (values, one_step, tp_step) of
    `cases` (values: the row's sizes and anything else it carries, e.g. {"N": 2, "D": 256}) an
    against_one_device row after `values`, kept with run.data(name, row); then report_timing of
    the rows (the size keys `sizes`, judged at `at`, with `columns`). Every rank must call it."""
    rows = []
    for values, one_step, tp_step in cases:
        rows.append({**values, **against_one_device(run, one_step, tp_step)})
        run.data(name, rows[-1])
    report_timing(run, rows, sizes, at, columns)


def spread_text(ms, digits=2):
    """ "min / median / max" of a spread."""
    return " / ".join(f"{ms[k]:.{digits}f}" for k in ("min_ms", "median_ms", "max_ms"))


def faster_or_slower(one, tp):
    """"faster", "slower" or "even" for two spreads: faster or slower only where the min-max
    ranges over the repeats do not overlap (a load change can move either)."""
    if tp["max_ms"] < one["min_ms"]:
        return "faster"
    return "slower" if tp["min_ms"] > one["max_ms"] else "even"


def bf16_supported(device):
    """bf16 in hardware: emulated bf16 (a T4 has none) would time and round unlike a real run."""
    return device.type != "cuda" or torch.cuda.is_bf16_supported(including_emulation=False)
