"""The tp-cost lesson's alpha-beta model against the machine it runs on, with torch.distributed.

What it runs:
1. all-reduce times over message sizes, reported as algorithm and bus bandwidth the way
   nccl-tests reports them (bus = algorithm * 2(n-1)/n);
2. a least-squares fit of the latency alpha and the bus bandwidth beta to those times;
3. the bytes a ring all-reduce really sends, counted, against the lesson's formula;
4. a tensor-parallel transformer layer (attention split by heads, MLP by columns and rows, f and
   g around each) checked against one device, its all-reduces counted, and its step timed at
   several sizes next to what the model predicts from the fitted alpha, beta and the measured
   FLOP/s of this device.

Timings are measurements of this machine, printed with their spread (min / median / max), never
verdicts. The checks are about what does not depend on load: sums, byte counts, the fit's maths.
The model functions are the lesson's; pass --option solution=PATH (or run_all(..., solution=PATH))
to predict with your own solution.py instead.
"""

import importlib.util
import math
import statistics

import torch

from companionkit import Companion, compare, measure
from companionkit.attention import shard as attention_shard, tp_attention
from companionkit.formulas import attention, mlp, with_grads
from companionkit.mlp import shard as mlp_shard, tp_mlp
from companionkit.shards import drawn, seeded
from companionkit.tp import all_reduce_sum

GB = 1e9
SEED = 0
# Message sizes (bytes) for the all-reduce sweep and (b, s, h, heads) layers for the step timing:
# small on CPU (a few seconds with gloo), large enough on GPUs for bandwidth to show.
SIZES = {"cpu": [2**12, 2**14, 2**16, 2**18, 2**20], "cuda": [2**16, 2**20, 2**24, 2**26, 2**28]}
LAYERS = {"cpu": [(1, 16, 64, 4), (1, 32, 128, 4), (2, 32, 256, 8)],
          "cuda": [(4, 1024, 1024, 16), (8, 1024, 2048, 16), (8, 2048, 4096, 32)]}

companion = Companion(__name__, lesson="tp-cost", options={
    "sizes": None, "layers": None,  # None: SIZES and LAYERS for the device
    "warmup": 2, "repeats": 5, "solution": None})

# What the sweep measured, for the sections after it (each rank is its own process).
MEASURED = {}


# ---- the subject: the lesson's model and the measured quantities built on it -------------------

def ring_allreduce_bytes(size_bytes, n):
    """Bytes each GPU sends in a ring all-reduce: reduce-scatter then all-gather, n-1 chunks each."""
    return 2 * (n - 1) / n * size_bytes


def allreduce_seconds(size_bytes, n, bus_GBps, latency_s=0.0):
    if n == 1:
        return 0.0
    return 2 * (n - 1) * latency_s + ring_allreduce_bytes(size_bytes, n) / (bus_GBps * GB)


def layer_flops(b, s, h):
    return float(24 * b * s * h**2 + 4 * b * s**2 * h)


def tp_layer_seconds(b, s, h, t, gpu_flops, bus_GBps, latency_s=0.0, bytes_per_elem=2):
    compute = 3 * layer_flops(b, s, h) / (t * gpu_flops)
    return compute + 4 * allreduce_seconds(b * s * h * bytes_per_elem, t, bus_GBps, latency_s)


def bus_bandwidth(algorithm_GBps, n):
    """nccl-tests' bus bandwidth: the algorithm bandwidth S/T times the ring's 2(n-1)/n."""
    return algorithm_GBps * 2 * (n - 1) / n


def fit_alpha_beta(sizes, seconds, n):
    """(alpha seconds per step, beta GB/s) by least squares of T = 2(n-1)·alpha + ring bytes/beta."""
    xs = [ring_allreduce_bytes(s, n) for s in sizes]
    mx, my = statistics.fmean(xs), statistics.fmean(seconds)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, seconds)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    return intercept / (2 * (n - 1)), 1 / slope / GB


def model_functions(path):
    """The learner's tp_layer_seconds from `path` (their solution.py), or the lesson's."""
    if not path:
        return tp_layer_seconds
    spec = importlib.util.spec_from_file_location("learner_solution", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tp_layer_seconds


def tp_layer(x, shard, d_head):
    """One rank's share of a tensor-parallel layer over x (b, s, h): f, its heads, g (tp-attention's
    block); f, its block of the MLP's columns, g (tp-mlp's)."""
    x = x + tp_attention(x, shard[:4], d_head)
    return x + tp_mlp(x, *shard[4:])


def shard_weights(weights, heads, rank, world):
    """Rank's heads (their Wq, Wk, Wv columns and Wo rows) and its block of A's columns and B's rows."""
    return (*attention_shard(weights[:4], heads, rank, world), *mlp_shard(*weights[4:], rank, world))


# ---- what to expect: the unsplit layer, plain torch on one device ------------------------------

def full_layer(x, weights, heads):
    x = x + attention(x, *weights[:4], heads)
    return x + mlp(x, *weights[4:])


def layer_weights(h, dtype, seed=SEED):
    """Wq, Wk, Wv, Wo (h, h), A (h, 4h) and B (4h, h)."""
    return drawn(seed, *[(h, h)] * 4, (h, 4 * h), (4 * h, h), fan_in=True, dtype=dtype)


def layer_input(b, s, h, dtype, seed=SEED + 1):
    return seeded(b, s, h, seed=seed, dtype=dtype)


# ---- the checks --------------------------------------------------------------------------------

@companion.section("numbers", "The lesson's numbers from the model", local=True)
def numbers(run):
    d2 = [tp_layer_seconds(8, 1024, 1536, 1, 39e12, 300.0) / tp_layer_seconds(8, 1024, 1536, t, 39e12, 300.0)
          for t in (2, 4, 8)]
    got = [ring_allreduce_bytes(1000, 4), allreduce_seconds(1e6, 8, 300.0, 5e-6) * 1e6, layer_flops(1, 2, 4)]
    run.expect("examples", "1000 B on 4 GPUs: 1500 B sent; 1 MB on 8 GPUs at 300 GB/s, 5 µs: 75.83 µs; F(1, 2, 4) = 832",
               [round(v, 2) for v in got] == [1500.0, 75.83, 832.0], f"got {[round(v, 2) for v in got]}")
    run.expect("d2", "the model's D.2 speedups at 300 GB/s and 39 TFLOP/s: 1.97, 3.81, 7.15 (the paper measured 1.64, 2.34, 2.98)",
               [round(v, 2) for v in d2] == [1.97, 3.81, 7.15], f"got {[round(v, 2) for v in d2]}")
    run.expect("busbw", "nccl-tests' bus bandwidth: 10 GB/s of algorithm bandwidth on 4 ranks is 15 GB/s",
               bus_bandwidth(10.0, 4) == 15.0, f"got {bus_bandwidth(10.0, 4)} GB/s")


@companion.section("allreduce", "All-reduce times over message sizes: algorithm and bus bandwidth")
def allreduce(run):
    dev, n = run.device, run.world
    sizes = run.options["sizes"] or SIZES[dev.type]
    run.info(f"measured on {run.backend} with {n} ranks, device: {dev} "
             f"({torch.cuda.get_device_name(dev) if dev.type == 'cuda' else 'CPU processes'})")
    rows, ok_sums = [], True
    for size in sizes:
        buf = torch.full((size // 4,), float(run.rank + 1), dtype=torch.float32, device=dev)
        ms = measure.step_times(lambda: all_reduce_sum(buf), dev, run.options["warmup"], run.options["repeats"])
        # After warmup + repeats all-reduces of the running sum, every entry is known exactly.
        expected = float(n * (n + 1) // 2) * n ** (run.options["warmup"] + run.options["repeats"] - 1)
        ok_sums &= bool(torch.all(buf == expected))
        median_s = statistics.median(ms) / 1e3
        algbw = size / median_s / GB
        rows.append({"bytes": size, **measure.spread(ms), "algbw_GBps": algbw, "busbw_GBps": bus_bandwidth(algbw, n),
                     "ring_bytes_per_s": ring_allreduce_bytes(size, n) / median_s})
    for row in rows:
        run.data("allreduce", {"N": n, **row})
    run.info(measure.table(rows, {"bytes": "bytes", "ms (min / median / max)": lambda r: measure.spread_text(r, 3),
                                  "algbw GB/s": lambda r: f"{r['algbw_GBps']:.4f}",
                                  "busbw GB/s": lambda r: f"{r['busbw_GBps']:.4f}"}))
    run.expect("sum", "every all-reduce of the sweep summed the ranks' buffers", ok_sums,
               f"each entry equals the sum over {n} ranks, repeated {run.options['warmup'] + run.options['repeats']} times")
    worst = max(abs(r["busbw_GBps"] * GB - r["ring_bytes_per_s"]) / r["ring_bytes_per_s"] for r in rows)
    run.expect("busbw", "bus bandwidth = algorithm bandwidth · 2(N-1)/N = the ring's bytes per rank per second",
               worst < 1e-9, f"largest relative difference {worst:.1e} over {len(rows)} sizes")
    MEASURED["sweep"] = rows


@companion.section("fit", "Latency and bandwidth fitted to the sweep (alpha-beta)")
def fit(run):
    n = run.world
    # The fit's maths, on times the model itself makes: it must give back the alpha and beta used.
    alpha, beta = 7e-6, 12.5
    sizes = [2**k for k in range(10, 21, 2)]
    back = fit_alpha_beta(sizes, [allreduce_seconds(s, n, beta, alpha) for s in sizes], n)
    run.expect("recovers", "the least-squares fit gives back the alpha and beta that made exact model times",
               math.isclose(back[0], alpha, rel_tol=1e-6) and math.isclose(back[1], beta, rel_tol=1e-6),
               f"made with alpha = {alpha:.1e} s, beta = {beta} GB/s; fitted {back[0]:.3e} s, {back[1]:.4f} GB/s")
    rows = MEASURED.get("sweep", [])
    if len(rows) < 2:
        run.info("fewer than two sizes in the sweep: nothing to fit")
        return
    a, b = fit_alpha_beta([r["bytes"] for r in rows], [r["median_ms"] / 1e3 for r in rows], n)
    MEASURED["fit"] = (max(a, 0.0), b)
    run.data("fit", {"N": n, "alpha_s": a, "beta_GBps": b})
    run.info(f"this machine, N = {n}: alpha = {a * 1e6:.2f} µs per ring step, beta = {b:.3f} GB/s (bus bandwidth); "
             "a negative alpha means the small messages were noisier than their latency")


@companion.section("ring", "What a ring all-reduce sends, counted byte by byte")
def ring(run):
    payload = torch.arange(4 * 64, dtype=torch.float32, device=run.device) + run.rank
    measure.expect_ring(run, "bytes", "each rank sends ring_allreduce_bytes(S, N) = 2(N-1)/N · S, and the sum is right",
                        payload, formula=ring_allreduce_bytes)


@companion.section("layer", "A tensor-parallel layer: the same output, 4 all-reduces, and its step against the model")
def layer(run):
    dev, n = run.device, run.world
    b, s, h, heads = 2, 8, 32, 8  # heads divisible by N = 2, 4 and 8
    weights = layer_weights(h, torch.float64)
    shard = [w.to(dev).requires_grad_() for w in shard_weights(weights, heads, run.rank, n)]
    X = layer_input(b, s, h, torch.float64).to(dev).requires_grad_()
    Y, fwd, bwd = measure.passes(lambda: tp_layer(X, shard, h // heads))
    Yf, (dXf,) = with_grads(lambda x: full_layer(x, weights, heads), (layer_input(b, s, h, torch.float64),))
    run.expect("forward", "the layer split over N ranks gives the unsplit layer's output", *compare(Y.detach().cpu(), Yf))
    run.expect("backward", "and the unsplit layer's dL/dX on every rank", *compare(X.grad.cpu(), dXf))
    payload = b * s * h * X.element_size()
    sizes = [c.nbytes for c in fwd.calls + bwd.calls]
    run.expect("counts", "4 all-reduces per step (2 forward: g; 2 backward: f), each of b·s·h elements",
               fwd.counts == {"all_reduce": 2} and bwd.counts == {"all_reduce": 2} and sizes == [payload] * 4,
               f"forward {fwd.counts}, backward {bwd.counts}, sizes {sizes} B (b·s·h·8 = {payload} B)")

    # Timing: the measured step next to the model's prediction from this machine's figures.
    model = model_functions(run.options["solution"])
    alpha, beta = MEASURED.get("fit", (0.0, float("nan")))
    usable = beta > 0  # False for NaN too: a sweep too noisy to fit predicts nothing
    dtype = torch.float32
    flops = measure.matmul_flops(dev, dtype)
    run.info(f"device FLOP/s measured with a {dtype} matmul: {flops / 1e9:.1f} GFLOP/s per rank; "
             f"alpha {alpha * 1e6:.2f} µs, beta {beta:.3f} GB/s from the sweep")

    def cases():
        for (lb, ls, lh, lheads) in run.options["layers"] or LAYERS[dev.type]:
            w = layer_weights(lh, dtype)
            x = layer_input(lb, ls, lh, dtype).to(dev).requires_grad_()
            mine = [t.to(dev).requires_grad_() for t in shard_weights(w, lheads, run.rank, n)]
            full = [t.to(dev).requires_grad_() for t in w]
            predicted = model(lb, ls, lh, n, flops, beta, alpha, x.element_size()) * 1e3 if usable else float("nan")
            predicted_one = model(lb, ls, lh, 1, flops, beta if usable else 1.0, alpha, x.element_size()) * 1e3
            yield ({"N": n, "b": lb, "s": ls, "h": lh, "model_one_ms": predicted_one, "model_tp_ms": predicted},
                   lambda: full_layer(x, full, lheads).sum().backward(),
                   lambda: tp_layer(x, mine, lh // lheads).sum().backward())

    measure.time_cases(run, "layer", cases(), ("N", "b", "s", "h"), at="h",
                       columns={"model one device ms": lambda r: f"{r['model_one_ms']:.3f}",
                                "model TP ms": lambda r: f"{r['model_tp_ms']:.3f}"})
    run.info("Measurements of this machine, not verdicts: the model leaves out overlap, small-GEMM efficiency "
             "and the work it does not split (softmax, GeLU, the residual), so expect it below the measured times.")

