"""The tensor-parallel MLP Y = GeLU(XA)B checked with torch.distributed.

Conventions: X is (T, D) tokens, A is (D, F), B is (F, D). Rank i holds A_i = A[:, block i] and
B_i = B[block i, :], block i = i*F/N .. (i+1)*F/N - 1. The block itself (the lesson's GeLU, shard,
partial_mlp, tp_mlp with f and g) is companionkit.mlp, which fg-backward runs backwards.
"""

import torch

from companionkit import Companion, compare, examples, measure, plots
from companionkit.comparing import fmt, ints, max_diff, printed
from companionkit.formulas import gelu_tanh as gelu_formula, mlp as reference_mlp
from companionkit.mlp import expect_grads, gelu, partial_mlp, shard, tp_grads, tp_mlp
from companionkit.models import dtensor_mlp, expect_dtensor_mlp
from companionkit.shards import block, mlp_weights, seeded
from companionkit.tp import CopyToTP, ReduceFromTP, all_reduce_sum, expect_counts, tp_region  # noqa: F401 (the notebook prints f, g and the region)

# The row-split counterexample: y = xW with W cut by rows between two GPUs.
ROW_X = [1.0, 2.0, -1.0, 3.0]
ROW_W = [[2.0, -1.0], [1.0, 2.0], [3.0, 0.0], [-2.0, 1.0]]
ROW_PARTIALS, ROW_SUM = ([4.0, 3.0], [-9.0, 3.0]), [-5.0, 6.0]
ROW_RELU_AFTER, ROW_RELU_BEFORE = [0.0, 6.0], [4.0, 6.0]

# Megatron-LM (Shoeybi et al. 2019, appendix D.2): strong-scaling speedup of the full model on GPUs.
MEGATRON_SPEEDUP = {1: 1.0, 2: 1.64, 4: 2.34, 8: 2.98}

# Shapes of the correctness checks: small, so that two CPU cores are enough; F divisible by N <= 8.
T, D, FF = 8, 32, 128
SEED = 0
# bf16 keeps 8 significant bits (eps = 2**-7): each rank rounds its partial and the all-reduce
# rounds again at every addition, so TP and unsplit bf16 may differ by a few eps times max|Y|.
BF16_ULPS = 4
# Timing shapes (widths D with F = 4D, tokens T): small on CPU, large enough on GPUs for the
# matmuls to outweigh kernel launches.
TIMING_DEFAULTS = {"cpu": ([256, 512], 64), "cuda": ([1024, 4096], 2048)}

companion = Companion(__name__, lesson="tp-mlp", options={
    "timing_sizes": None, "timing_tokens": None,  # None: TIMING_DEFAULTS for the device
    "warmup": 3, "repeats": 10})


def row_shard(x, W, rank, world):
    """The row-split of y = xW: rank's block of x's entries and of W's rows."""
    size = W.shape[0] // world
    rows = slice(rank * size, (rank + 1) * size)
    return x[rows], W[rows]


def inputs(t, d, dtype=torch.float64, seed=SEED + 1):
    return seeded(t, d, seed=seed, dtype=dtype)


@companion.section("single", "One device: the lesson's GeLU and the algebra of the split", local=True)
def single(run):
    dev = run.device
    x = torch.linspace(-6, 6, 1201, dtype=torch.float64, device=dev)
    run.expect("gelu", "the model's GeLU is the lesson's tanh formula (fp64, x in [-6, 6])",
               *compare(gelu(x), gelu_formula(x), rtol=0, atol=1e-12))
    one, two = (gelu_formula(torch.tensor(v, dtype=torch.float64)).item() for v in (1.0, 2.0))
    run.info(f"GeLU(1) = {one:.3f}, GeLU(2) = {two:.3f}, GeLU(1) + GeLU(1) = {2 * one:.3f}: GeLU is not additive, "
             "which is why the sum over ranks must come after it, not before")

    A, B = mlp_weights(D, FF, SEED)
    X = inputs(T, D).to(dev)
    truth = reference_mlp(X, A.to(dev), B.to(dev))

    def split_sum(X, A, B, n):  # one process adds the N partials in rank order, as an all-reduce would
        return sum(partial_mlp(X, *(t.to(dev) for t in shard(A, B, i, n))) for i in range(n))

    worst = [(n, max_diff(split_sum(X, A, B, n), truth)) for n in (1, 2, 4, 8)]
    run.expect("split-sum", "the sum of the N partials GeLU(X A_i) B_i equals GeLU(XA)B (fp64, N = 1, 2, 4, 8)",
               all(d <= 1e-12 * max(1.0, truth.abs().max().item()) for _, d in worst),
               "max |diff| " + ", ".join(f"N={n}: {d:.1e}" for n, d in worst) + " (allowed 1e-12 · max|Y|)")

    if not run.has_bf16("bf16", "bf16 splits stay within a few eps of the fp64 result"):
        return
    bf, scale = torch.bfloat16, truth.abs().max().item()
    tol = BF16_ULPS * torch.finfo(bf).eps * scale
    rows = [(n, "unsplit" if n == 1 else "split, summed", max_diff(split_sum(X.to(bf), A.to(bf), B.to(bf), n), truth))
            for n in (1, 2, 4, 8)]
    run.data("bf16_errors", [{"N": n, "kind": k, "max_err": e} for n, k, e in rows])
    run.info(f"bf16 max |error| against fp64 (max |Y| = {scale:.3f}): "
             + ", ".join(f"N={n} {k} {e:.2e}" for n, k, e in rows))
    run.expect("bf16", f"bf16 results, unsplit and split, within {BF16_ULPS} eps · max|Y| = {tol:.3f} of fp64",
               all(e <= tol for _, _, e in rows), f"largest error {max(e for _, _, e in rows):.2e}")


@companion.section("numbers", "The lesson's worked example through a real all-reduce (ranks 0 and 1 are GPU0 and GPU1)")
def numbers(run):
    titles = {"partials": "GPU0's and GPU1's partials are the lesson's (0.841, 1.955) and (0.841, 0.841)",
              "sum": "the all-reduce of the partials is the lesson's Y = (1.682, 2.796)"}
    group = run.example_group(titles.items())
    if group is None:
        return
    X, A, B = examples.mlp(run.device)
    A_i, B_i = (t.to(run.device) for t in shard(A, B, run.rank, 2))
    examples.expect_per_gpu(run, "partials", titles["partials"], partial_mlp(X, A_i, B_i), examples.MLP_PARTIALS, group)
    Y = tp_mlp(X, A_i, B_i, group=group)
    run.expect("sum", titles["sum"], printed(Y, [examples.MLP_Y]), f"all_reduce gave {fmt(Y)} on this rank")


@companion.section("forward", "Forward: one all-reduce of the Y_i gives the unsplit GeLU(XA)B")
def forward(run):
    dev = run.device
    A64, B64 = mlp_weights(D, FF, SEED)
    X64 = inputs(T, D)
    for dtype, key, tolerances in ((torch.float64, "fp64", {"rtol": 1e-12, "atol": 1e-12}),
                                   (torch.float32, "fp32", {})):
        A, B, X = A64.to(dtype), B64.to(dtype), X64.to(dtype).to(dev)
        expected = reference_mlp(X, A.to(dev), B.to(dev))
        got = tp_mlp(X, *(t.to(dev) for t in shard(A, B, run.rank, run.world)))
        rule = "rtol = atol = 1e-12" if tolerances else "assert_close's fp32 tolerances"
        run.expect(key, f"{key} TP output equals the unsplit one ({rule})", *compare(got, expected, **tolerances))

    # The column-parallel half: no sum crosses a rank, so each entry is the same dot product over D.
    # Bitwise equality would follow only if the BLAS picked the same kernel for both shapes.
    A, X = A64.float(), X64.float().to(dev)
    A_i, _ = shard(A, B64.float(), run.rank, run.world)
    run.expect("column-half", "fp32 GeLU(X A_i) equals column block i of GeLU(XA)",
               *compare(gelu(X @ A_i.to(dev)), gelu_formula(X @ A.to(dev))[:, block(FF, run.rank, run.world)]))

    if not run.has_bf16("bf16", "bf16 TP output within a few eps of unsplit bf16"):
        return
    A, B, X = A64.to(torch.bfloat16), B64.to(torch.bfloat16), X64.to(torch.bfloat16).to(dev)
    unsplit = gelu_formula(X.double() @ A.double().to(dev)).to(torch.bfloat16) @ B.to(dev)
    got = tp_mlp(X, *(t.to(dev) for t in shard(A, B, run.rank, run.world)))
    tol = BF16_ULPS * torch.finfo(torch.bfloat16).eps * unsplit.abs().max().item()
    run.expect("bf16", f"bf16 TP output within {BF16_ULPS} eps · max|Y| of unsplit bf16 (atol {tol:.3f})",
               *compare(got, unsplit, rtol=0, atol=tol))


@companion.section("backward", "Backward with f and g: every rank gets the full dL/dX and its slices of dA, dB")
def backward(run):
    A, B = mlp_weights(D, FF, SEED)
    X, G = inputs(T, D).to(run.device), inputs(T, D, seed=SEED + 2).to(run.device)  # G: from the next layer
    dX, dA, dB = expect_grads(run, A, B, X, G)
    # Without f the weight gradients stay right (the mistake is easy to miss), but dL/dX is only
    # this rank's share: summing the shares over ranks is exactly what f's backward does.
    cols = block(FF, run.rank, run.world)
    share, share_dA, share_dB = tp_grads(X, *(t.to(run.device) for t in shard(A, B, run.rank, run.world)), G, with_f=False)
    weights_ok = compare(share_dA, dA[:, cols])[0] and compare(share_dB, dB[cols, :])[0]
    sum_ok, sum_detail = compare(all_reduce_sum(share.clone()), dX)
    run.expect("without-f", "without f, dL/dX on a rank is only its share (the sum over ranks is the right one)",
               weights_ok and not compare(share, dX)[0] and sum_ok,
               f"weights right: {weights_ok}; share differs from dL/dX by {max_diff(share, dX):.2e}; "
               f"sum over ranks: {sum_detail}")


@companion.section("dtensor", "PyTorch's tensor-parallel API (ColwiseParallel, RowwiseParallel) agrees")
def dtensor(run):
    A, B = mlp_weights(D, FF, SEED)
    X, G = inputs(T, D).to(run.device), inputs(T, D, seed=SEED + 2).to(run.device)
    model, Y, _, _ = expect_dtensor_mlp(run, A, B, gelu, X, G)
    run.info(f"up.weight {model.up.weight.placements}, local {tuple(model.up.weight.to_local().shape)}; "
             f"down.weight {model.down.weight.placements}, local {tuple(model.down.weight.to_local().shape)}")
    run.expect("output", "the DTensor model's output equals the unsplit Y",
               *compare(Y, reference_mlp(X, A.to(run.device), B.to(run.device))))


@companion.section("rowsplit", "The row-split counterexample: a nonlinearity must wait for the sum")
def rowsplit(run):
    x, W = (torch.tensor(v, dtype=torch.float64, device=run.device) for v in (ROW_X, ROW_W))
    titles = {"partials": "GPU0's and GPU1's partials are [4, 3] and [-9, 3]",
              "relu-after": "ReLU after the all-reduce gives [0, 6]",
              "relu-before": "ReLU before the all-reduce gives the wrong [4, 6]"}
    group = run.example_group(titles.items())
    if group is not None:
        x_i, W_i = row_shard(x, W, run.rank, 2)
        partial = x_i @ W_i
        examples.expect_per_gpu(run, "partials", titles["partials"], partial, ROW_PARTIALS, group, show=ints)
        total = all_reduce_sum(partial.clone(), group)
        relu_before = all_reduce_sum(torch.relu(partial), group)
        run.expect("relu-after", titles["relu-after"], torch.relu(total).tolist() == ROW_RELU_AFTER,
                   f"got {ints(torch.relu(total))}")
        run.expect("relu-before", titles["relu-before"], relu_before.tolist() == ROW_RELU_BEFORE, f"got {ints(relu_before)}")
        run.info(f"GeLU too: after the sum {fmt(gelu(total))}, before it {fmt(all_reduce_sum(gelu(partial), group))}")
    title = "the all-reduce of the row blocks over all N ranks is xW = [-5, 6]"
    if not run.divides(len(ROW_X), "rows", [("sum", title)]):
        return
    x_i, W_i = row_shard(x, W, run.rank, run.world)
    total = all_reduce_sum(x_i @ W_i)
    run.expect("sum", title, total.tolist() == ROW_SUM == (x @ W).tolist(), f"N = {run.world}: got {ints(total)}")


@companion.section("comm", "Communication: what one forward and backward sends")
def comm(run):
    dev, n = run.device, run.world
    A, B = mlp_weights(D, FF, SEED, torch.float32)
    X = inputs(T, D, dtype=torch.float32).to(dev).requires_grad_()
    A_i, B_i = (t.to(dev).requires_grad_() for t in shard(A, B, run.rank, n))
    _, fwd, bwd = measure.passes(lambda: tp_mlp(X, A_i, B_i))
    expect_counts(run, "counts", "CommDebugMode: one all-reduce in the forward pass (g), one in the backward pass (f)",
                  fwd, bwd, {"all_reduce": 1}, {"all_reduce": 1})
    payload, sizes = T * D * X.element_size(), [c.nbytes for c in fwd.calls + bwd.calls]
    run.expect("payload", "each all-reduce carries T·D·4 bytes (the size of Y, then of dL/dX)",
               sizes == [payload, payload], f"the collectives received {sizes} B; T·D·4 = {T}·{D}·4 = {payload} B")
    # What gloo or NCCL put on the wire is not visible from Python: the course's own ring, written
    # with send/recv (measure.ring_all_reduce), counts its bytes, and must sum like the backend's.
    sent = measure.expect_ring(run, "ring", "the course's send/recv ring all-reduce sums like dist.all_reduce and "
                               "sends 2(N-1)/N · T·D·4 bytes per rank", partial_mlp(X.detach(), A_i.detach(), B_i.detach()))
    run.info(f"per training step (forward and backward) each rank sends {2 * sent} B, whatever the width F/N of its "
             f"shard: communication does not shrink with N the way compute does")
    model = dtensor_mlp(dev, n, *mlp_weights(D, FF, SEED), gelu)
    _, dfwd, dbwd = measure.passes(lambda: model(inputs(T, D).to(dev).requires_grad_()))
    expect_counts(run, "dtensor-counts", "CommDebugMode on the DTensor model: one all-reduce forward, one backward",
                  dfwd, dbwd, {"all_reduce": 1}, {"all_reduce": 1})


@companion.section("memory", "Memory per rank: 1/N of the weights, and the activations of its shard")
def memory(run):
    dev, n = run.device, run.world
    A, B = mlp_weights(D, FF, SEED, torch.float32)
    size = A.element_size()
    A_i, B_i = measure.expect_share(run, "weights", "weights per rank: 2·D·F/N·4 bytes, 1/N of the whole",
                                    lambda: shard(A, B, run.rank, n), 2 * D * FF * size)
    X = inputs(T, D, dtype=torch.float32).to(dev)
    A_i, B_i = A_i.requires_grad_(), B_i.requires_grad_()
    _, saved = measure.saved_bytes(lambda: tp_mlp(X, A_i, B_i), exclude=(A_i, B_i))
    kept = (T * D + 2 * T * (FF // n)) * size
    run.expect("activations", "activations kept for backward: (T·D + 2·T·F/N)·4 bytes (X, XA_i and GeLU(XA_i))",
               saved == kept, f"autograd saved {saved} B besides the weights; ({T}·{D} + 2·{T}·{FF}/{n})·4 = {kept} B")
    run.info(f"one device would keep {2 * D * FF * size} B of weights and {(T * D + 2 * T * FF) * size} B of activations")


def timed_step(step, X, weights):
    """One forward+backward of `step`, with fresh gradients."""
    for w in weights:
        w.grad = None
    step(X, *weights).sum().backward()


@companion.section("timing", "Timing: forward+backward, N ranks against one device with the same threads (a measurement, no verdict)")
def timing(run):
    """Figures, not checks: a speedup depends on the machine and its load (on CPU, N processes
    over loopback share the cores), so the section prints min/median/max over the repeats with
    the thread and device setup, and leaves the judging to the reader."""
    dev, n = run.device, run.world
    default_sizes, default_tokens = TIMING_DEFAULTS[dev.type]
    tokens = run.options["timing_tokens"] or default_tokens

    def cases():  # the one-device baseline runs on rank 0 alone (the others wait) with one rank's threads
        for d in run.options["timing_sizes"] or default_sizes:
            A, B = mlp_weights(d, 4 * d, SEED, torch.float32)
            X = inputs(tokens, d, dtype=torch.float32).to(dev)
            # Copies: A.to("cpu") would be A itself, and a gradient on A would leak into the shards.
            whole = [t.to(dev, copy=True).requires_grad_() for t in (A, B)]
            mine = [t.to(dev).requires_grad_() for t in shard(A, B, run.rank, n)]
            yield ({"N": n, "D": d, "F": 4 * d, "T": tokens}, lambda: timed_step(reference_mlp, X, whole),
                   lambda: timed_step(tp_mlp, X, mine))

    measure.time_cases(run, "timing", cases(), ("N", "D", "F", "T"), at="D")


def plot_speedup(results):
    """Speedup of forward+backward against N for each width, from this run. Megatron-LM's curve
    (the full model on GPUs) is drawn only beside GPU measurements."""
    return plots.speedup([entry["value"] for entry in results.data("timing")], "D", "Tensor-parallel MLP",
                         paper=MEGATRON_SPEEDUP, paper_label="Megatron-LM paper, full model")
