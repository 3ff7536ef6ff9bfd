"""The sequence-parallel MLP block and the activation-memory formula checked with torch.distributed.

Rank i owns sequence rows [i*T/N, (i+1)*T/N) of X (T, D) in the sequence-parallel
region (LayerNorm, residual), columns i of A (D, F) and rows i of B (F, D) in the tensor-parallel
one, exactly as the lesson's sp_mlp_block.
"""

import torch
import torch.distributed as dist

from companionkit import Companion, compare, measure
from companionkit.comparing import compare_all, expect_in
from companionkit.formulas import mlp, with_grads
from companionkit.mlp import gelu, shard, tp_mlp
from companionkit.models import MLP, tensor_parallel
from companionkit.shards import cols, drawn, rows, seeded
from companionkit.tp import ReduceScatterToSP, all_gather, all_reduce_sum, expect_count, reduce_scatter

GIB = 2**30
# GPT-3 size (Korthikanti et al., 2022) and the lesson's GiB per layer per GPU, three decimals.
GPT3 = dict(s=2048, b=1, h=12288, a=96)
GPT3_GIB = {(1, False, "none"): 2.672, (8, False, "none"): 0.539, (8, True, "none"): 0.334,
            (8, False, "selective"): 0.305, (8, True, "selective"): 0.100}
# The counts the lesson quotes: one SP MLP block forward (PyTorch's SP test of a Transformer
# has 6 of each: one pair per block, attention and MLP, in its layers).
BLOCK_FORWARD = {"all_gather": 1, "reduce_scatter": 1}
EPS = 1e-5
SEED = 0
# On GPUs the memory section draws 64 times the tokens: every tensor a layer allocates is then a
# whole number of the CUDA caching allocator's 512-byte blocks (LayerNorm's T/N statistics too:
# 64·tokens/N float64 values), so its rounding adds nothing and an activation of T/N rows too many
# or too few is far more than the tolerance below.
CUDA_MEMORY_TOKENS = 64
# One block's forward allocates at most 9 tensors (SP: LayerNorm's output, mean and 1/σ, the
# gathered input, XA_i, its GeLU, the partial, its reduce-scatter, the output). The caching
# allocator rounds each up to 512 bytes; one above 1 MiB may be handed a cached block up to 1 MiB
# larger. The GPU memory checks allow that much per layer.
ALLOCATIONS_PER_LAYER = 9
companion = Companion(__name__, lesson="sequence-parallel",
                      options={"tokens": 16, "width": 8, "hidden": 32})


# ---- the subject -------------------------------------------------------------------------------

class GatherLinear(torch.autograd.Function):
    """Z_i -> all_gather(Z_i) @ A_i, as Megatron's column-parallel linear does under SP: the
    all-gather of _GatherFromSequenceParallelRegion (all-gather forward, reduce-scatter backward)
    fused with the GEMM, keeping only the local chunk for backward and gathering it again there,
    so the saved activation is T/N rows, not T."""

    @staticmethod
    def forward(ctx, Z_i, A_i, group):
        ctx.group = group
        ctx.save_for_backward(Z_i, A_i)
        return all_gather(Z_i, group) @ A_i

    @staticmethod
    def backward(ctx, grad):
        Z_i, A_i = ctx.saved_tensors
        Z = all_gather(Z_i, ctx.group)                      # gathered again, not kept
        return reduce_scatter(grad @ A_i.T, ctx.group), Z.T @ grad, None


def sp_mlp_block(X_i, ln, A_i, B_i, group=None):
    """One SP MLP block on this rank: LayerNorm on its rows, all-gather, GeLU(Z A_i) B_i,
    reduce-scatter, its residual rows."""
    Z_i = ln(X_i)
    P_i = gelu(GatherLinear.apply(Z_i, A_i, group)) @ B_i
    return X_i + ReduceScatterToSP.apply(P_i, group)


def tp_mlp_block(X, ln, A_i, B_i, group=None):
    """The same block with tensor parallelism only: every rank holds all T rows; one
    all-reduce (g) of the partial outputs (tp-mlp's block, companionkit.mlp)."""
    return X + tp_mlp(ln(X), A_i, B_i, group=group)


def all_reduce_norm_grads(ln, group=None):
    """Under SP each rank's LayerNorm saw only its T/N tokens: γ and β gradients are partial
    sums, all-reduced across the TP group."""
    for p in (ln.weight, ln.bias):
        dist.all_reduce(p.grad, group=group)


def activation_bytes(s, b, h, a, t=1, sp=False, recompute="none"):
    """Bytes of activations per layer per GPU (fp16), Korthikanti et al. (2022)."""
    if recompute not in ("none", "selective"):
        raise ValueError(f"recompute must be 'none' or 'selective', not {recompute!r}")
    per = 34 / t if sp else 10 + 24 / t
    if recompute == "none":
        per += 5 * a * s / (h * t)
    return s * b * h * per


def megatron_dropout_seed(seed, tp_rank):
    """Megatron's seed for dropout inside the TP/SP region: offset by 2718 + tp_rank."""
    return seed + 2718 + tp_rank


# ---- what to expect: plain torch on the full tensors -------------------------------------------

def draw(run, dtype=torch.float64, tokens=None):
    """The full X (T, D), A (D, F), B (F, D), γ, β and an upstream gradient, from one seed on
    every rank (drawn on CPU); T is the tokens option unless `tokens` is given."""
    T, D, Fh = tokens or run.options["tokens"], run.options["width"], run.options["hidden"]
    X, A, B, gamma, beta, dY = drawn(SEED, (T, D), (D, Fh), (Fh, D), (D,), (D,), (T, D))
    return [t.to(dtype).to(run.device) for t in (X, A / D**0.5, B / Fh**0.5, 1 + 0.3 * gamma, 0.3 * beta, dY)]


def layer_norm(gamma, beta):
    ln = torch.nn.LayerNorm(gamma.shape[0], eps=EPS, dtype=gamma.dtype, device=gamma.device)
    with torch.no_grad():
        ln.weight.copy_(gamma)
        ln.bias.copy_(beta)
    return ln


def one_device(X, A, B, gamma, beta, dY):
    """The unsplit block and its gradients: output, dX, dA, dB, dγ, dβ."""
    ln = layer_norm(gamma, beta)
    Y, grads = with_grads(lambda X, A, B: X + mlp(ln(X), A, B), (X, A, B), dY)
    return (Y, *grads, ln.weight.grad, ln.bias.grad)


# ---- the checks --------------------------------------------------------------------------------

@companion.section("numbers", "The lesson's numbers: GPT-3's activation memory, the seed offset (worked, not checked)", local=True)
def numbers(run):
    """Worked numbers, not checks: the formula evaluated at the lesson's sizes. What the code could
    get wrong about memory is measured in the memory section."""
    rows = []
    for (t, sp, recompute), lesson in GPT3_GIB.items():
        got = activation_bytes(**GPT3, t=t, sp=sp, recompute=recompute) / GIB
        rows.append(f"t = {t}{', SP' if sp else ''}{', selective recompute' if recompute == 'selective' else ''}: "
                    f"{got:.3f} GiB (lesson {lesson:.3f})")
    run.info("GPT-3 size, activations per layer per GPU: " + "; ".join(rows))
    seeds = [megatron_dropout_seed(1234, r) for r in range(4)]
    run.info(f"dropout seeds of TP ranks 0..3 from seed 1234 (Megatron: + 2718 + tp_rank): {seeds}")


@companion.section("collectives", "A reduce-scatter then an all-gather = an all-reduce, and the course's ring")
def collectives(run):
    T, D = run.options["tokens"], run.options["width"]
    partial = seeded(T, D, seed=SEED + run.rank).to(run.device)  # each rank's own
    (chunk, full), traffic = measure.collectives(lambda: (lambda c: (c, all_gather(c)))(reduce_scatter(partial)))
    summed = all_reduce_sum(partial.clone())
    run.expect("equal", "all-gather(reduce-scatter(partials)) equals all-reduce(partials)", *compare(full, summed))
    run.expect("chunk", "after the reduce-scatter rank i holds rows i·T/N … of the sum",
               *compare(chunk, rows(summed, run.rank, run.world)))
    expect_count(run, "counts", "CommDebugMode counts one reduce_scatter and one all_gather", traffic,
                 {"reduce_scatter": 1, "all_gather": 1})
    # What gloo or NCCL send for these two is not visible from Python. The course's own ring, written
    # with send/recv as a reduce-scatter then an all-gather (measure.ring_all_reduce), counts its bytes
    # and must sum like the backend's all-reduce.
    measure.expect_ring(run, "ring", "the course's send/recv ring (a reduce-scatter, then an all-gather) sums like "
                        "dist.all_reduce and sends 2(N−1)/N of the data per rank", partial)


@companion.section("layernorm", "LayerNorm on each rank's rows: forward, and γ, β gradients all-reduced")
def layernorm(run):
    X, _, _, gamma, beta, dY = draw(run)
    full = layer_norm(gamma, beta)
    Z = full(X)
    Z.backward(dY)
    ln = layer_norm(gamma, beta)
    Z_i = ln(rows(X, run.rank, run.world))
    Z_i.backward(rows(dY, run.rank, run.world))
    run.expect("forward", "the all-gathered per-rank LayerNorms equal LayerNorm of the whole sequence",
               *compare(all_gather(Z_i.detach()), Z.detach()))
    manual = (X - X.mean(-1, keepdim=True)) / torch.sqrt(X.var(-1, unbiased=False, keepdim=True) + EPS) * gamma + beta
    run.expect("formula", "torch's LayerNorm is the lesson's: population variance, eps inside the root",
               *compare(Z.detach(), manual))
    partial_ok = compare(ln.weight.grad, full.weight.grad)[0] if run.world > 1 else False
    all_reduce_norm_grads(ln)
    run.expect("grads", "γ and β gradients, all-reduced over the TP group, equal one device's",
               *compare_all([("γ", ln.weight.grad, full.weight.grad), ("β", ln.bias.grad, full.bias.grad)]))
    run.info(f"before the all-reduce this rank's γ gradient {'already matched (N = 1)' if partial_ok else 'was only its tokens share'}")


@companion.section("block", "The SP MLP block on N ranks against one device, forward and backward, with its collectives")
def block(run):
    X, A, B, gamma, beta, dY = draw(run)
    Y, dX, dA, dB, dgamma, dbeta = one_device(X, A, B, gamma, beta, dY)
    r, n = run.rank, run.world
    X_i = rows(X, r, n).clone().requires_grad_()
    A_i, B_i = (t.requires_grad_() for t in shard(A, B, r, n))
    ln = layer_norm(gamma, beta)
    out, fwd = measure.collectives(lambda: sp_mlp_block(X_i, ln, A_i, B_i))
    _, bwd = measure.collectives(lambda: (out.backward(rows(dY, r, n)), all_reduce_norm_grads(ln)))
    run.expect("forward", "rank i's output is chunk i of X + GeLU(LN(X)A)B", *compare(out.detach(), rows(Y, r, n)))
    run.expect("backward", "dX_i, dA_i, dB_i and the all-reduced dγ, dβ equal one device's", *compare_all(
        [("dX", X_i.grad, rows(dX, r, n)), ("dA", A_i.grad, cols(dA, r, n)), ("dB", B_i.grad, rows(dB, r, n)),
         ("dγ", ln.weight.grad, dgamma), ("dβ", ln.bias.grad, dbeta)]))
    expect_count(run, "counts", f"forward: CommDebugMode counts {BLOCK_FORWARD}, the lesson's pair", fwd, BLOCK_FORWARD)
    want_bwd = {"all_gather": 2, "reduce_scatter": 1, "all_reduce": 2}
    expect_count(run, "backward-counts", f"backward: {want_bwd} (the re-gather, the mirrors, γ and β)", bwd, want_bwd)

    # bf16: the SP block on bf16 shards against the fp64 one-device block of the same rounded
    # inputs, allowed 16 bf16 roundings of the output's magnitude (LayerNorm, two GEMMs, GeLU, the sums).
    def rounded(dtype):
        Xb, Ab, Bb, gb, bb = (t.to(dtype) for t in (X, A, B, gamma, beta))
        want = one_device(*(t.double() for t in (Xb, Ab, Bb, gb, bb)), torch.zeros_like(X))[0]
        return sp_mlp_block(rows(Xb, r, n), layer_norm(gb, bb), *shard(Ab, Bb, r, n)), rows(want, r, n)

    expect_in(run, "bf16", "bf16: rank i's output within 16 bf16 eps · max|Y| of the fp64 one-device block on the same inputs",
              torch.bfloat16, rounded, 16)


@companion.section("pytorch", "PyTorch's plan: SequenceParallel + ColwiseParallel(Shard(1)) + RowwiseParallel(Shard(1))")
def pytorch(run):
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, SequenceParallel

    X, A, B, gamma, beta, dY = draw(run)
    Y, dX, dA, dB, dgamma, dbeta = one_device(X, A, B, gamma, beta, dY)

    class Block(torch.nn.Module):
        """x + MLP(LayerNorm(x)): the one-device block as torch modules."""

        def __init__(self):
            super().__init__()
            self.norm, self.mlp = layer_norm(gamma, beta), MLP(A, B, gelu)

        def forward(self, x):
            return x + self.mlp(self.norm(x))

    model = tensor_parallel(Block(), run.device, run.world, {
        "norm": SequenceParallel(),
        "mlp.up": ColwiseParallel(input_layouts=Shard(1)),
        "mlp.down": RowwiseParallel(output_layouts=Shard(1)),
    })
    # SequenceParallel reads a plain tensor as this rank's Shard(1) (the sequence) of (batch, T, D);
    # RowwiseParallel hands back the local rows, so the residual adds local rows to local rows.
    x_i = rows(X, run.rank, run.world).unsqueeze(0).clone().requires_grad_()
    out, traffic = measure.collectives(lambda: model(x_i))
    run.expect("forward", "PyTorch's SP plan gives rank i chunk i of the one-device block",
               *compare(out.squeeze(0), rows(Y, run.rank, run.world)))
    expect_count(run, "counts", f"forward: CommDebugMode counts {BLOCK_FORWARD}, as the lesson says", traffic,
                 BLOCK_FORWARD)
    out.backward(rows(dY, run.rank, run.world).unsqueeze(0))
    # The weights are DTensors: up sharded by rows of its (F, D) weight, down by columns, the
    # LayerNorm's replicated; their gradients are each rank's tokens' share, a pending sum
    # (Partial) that full_tensor() all-reduces (a Replicate one would be summed already).
    ok, detail = compare_all([("dX_i", x_i.grad.squeeze(0), rows(dX, run.rank, run.world)),
                              ("dA", model.mlp.up.weight.grad.full_tensor().T, dA),
                              ("dB", model.mlp.down.weight.grad.full_tensor().T, dB),
                              ("dγ", model.norm.weight.grad.full_tensor(), dgamma),
                              ("dβ", model.norm.bias.grad.full_tensor(), dbeta)])
    placements = {name: p.grad.placements[0] for name, p in (("up", model.mlp.up.weight), ("down", model.mlp.down.weight),
                                                               ("norm", model.norm.weight))}
    placed = (placements["up"].is_shard(0) and placements["down"].is_shard(1)
              and (placements["norm"].is_partial() or placements["norm"].is_replicate()))
    run.expect("backward", "its dX_i, dA, dB, dγ, dβ equal one device's; up's gradient Shard(0), down's Shard(1), "
               "the norm's not sharded (Partial or Replicate)",
               ok and placed, f"placements {', '.join(f'{k} {v}' for k, v in placements.items())}; {detail}")


@companion.section("memory", "Activation memory per rank, TP vs TP + SP, against the formula's terms")
def memory(run):
    on_gpu = run.device.type == "cuda"
    tokens = run.options["tokens"] * (CUDA_MEMORY_TOKENS if on_gpu else 1)
    X, A, B, gamma, beta, _ = draw(run, tokens=tokens)
    r, n = run.rank, run.world
    T, D, Fh = X.shape[0], X.shape[1], A.shape[1]
    A_i, B_i = (t.requires_grad_() for t in shard(A, B, r, n))
    ln_tp, ln_sp = layer_norm(gamma, beta), layer_norm(gamma, beta)
    X_full = X.clone().requires_grad_()
    X_i = rows(X, r, n).clone().requires_grad_()
    e = X.element_size()
    if on_gpu:
        # The allocator's peaks, allowed its rounding of each tensor a layer allocates.
        tp, tp_peak = measure.peak_per_layer(lambda x: tp_mlp_block(x, ln_tp, A_i, B_i), X_full, run.device)
        sp, sp_peak = measure.peak_per_layer(lambda x: sp_mlp_block(x, ln_sp, A_i, B_i), X_i, run.device)
        largest = e * T * max(D, Fh // n)
        slack = ALLOCATIONS_PER_LAYER * (512 if largest <= 2**20 else 2**20)
        how, what = "one more layer raises torch.cuda.max_memory_allocated by", "peak rise per layer"
        run.info(f"peak of one layer's forward on this rank, transients included: TP {tp_peak} bytes, "
                 f"TP + SP {sp_peak} bytes (T = {T}: {CUDA_MEMORY_TOKENS}× the tokens option on GPUs)")
    else:
        # The tensors autograd saves, each storage once: exact, so no tolerance.
        params = (A_i, B_i, ln_tp.weight, ln_tp.bias, ln_sp.weight, ln_sp.bias)
        _, tp = measure.saved_bytes(lambda: tp_mlp_block(X_full, ln_tp, A_i, B_i), exclude=params)
        _, sp = measure.saved_bytes(lambda: sp_mlp_block(X_i, ln_sp, A_i, B_i), exclude=params)
        slack, how, what = 0, "autograd saved", "saved bytes"
    # The paper's accounting of this block (no dropout here), in elements of T·D: LayerNorm's input
    # 1 and the first GEMM's input 1 (split by N only under SP), GeLU's input and the second GEMM's
    # input F/D each (split by N). LayerNorm also keeps its mean and 1/σ per row: 2 values a token.
    want_tp = e * (T * D * (2 + 2 * Fh / (D * n)) + 2 * T)
    want_sp = e * (T * D * (2 / n + 2 * Fh / (D * n)) + 2 * T / n)
    tolerance = f" (tolerance {slack} bytes of allocator rounding)" if slack else ""
    run.expect("tp", "TP: every rank keeps LayerNorm's and the first GEMM's input whole, the rest 1/N",
               abs(tp - want_tp) <= slack, f"{how} {tp} bytes, formula {want_tp:.0f}{tolerance}")
    run.expect("sp", "TP + SP: every activation of the block is 1/N per rank",
               abs(sp - want_sp) <= slack, f"{how} {sp} bytes, formula {want_sp:.0f}{tolerance}")
    run.expect("difference", "TP − (TP + SP): SP saves (1 − 1/N) of LayerNorm's and the first GEMM's inputs "
               "and of LayerNorm's statistics", abs((tp - sp) - (want_tp - want_sp)) <= slack,
               f"{what}: TP {tp} − TP + SP {sp} = {tp - sp} bytes, formula {want_tp - want_sp:.0f} = "
               f"{e}·(2·{T}·{D} + 2·{T})·(1 − 1/{n}){tolerance}")
    run.info(f"per rank: TP {tp} bytes, TP + SP {sp} bytes ({tp / sp:.2f}× less with SP at N = {n})")
    run.data("memory", {"world": n, "tokens": T, "tp_bytes": tp, "sp_bytes": sp,
                        "measured": "cuda peak per layer" if on_gpu else "saved tensors"})
