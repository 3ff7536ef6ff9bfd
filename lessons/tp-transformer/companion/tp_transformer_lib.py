"""A small transformer trained 5 steps on one device and with PyTorch's tensor parallelism
(parallelize_module: ColwiseParallel/RowwiseParallel, then SequenceParallel and loss_parallel),
checked with torch.distributed.

The model is companionkit.models.Transformer, the shape of PyTorch's own test model
(test_tp_examples.py): token and position embeddings, 2 pre-LN blocks with separate wq, wk, wv, wo
and a GeLU MLP w1, w2, a final LayerNorm and an output layer; the checks compare with the same model
trained on one device.
"""

import contextlib
import copy

import torch
import torch.nn.functional as F

from companionkit import Companion, compare, measure
from companionkit.models import Transformer, train
from companionkit.tp import expect_count, expect_counts

# Seed 003: the one-GPU losses of its 5 iterations; its TP run agreed to ~1e-6.
SEED_LOSSES = [10.9398, 3.4371, 1.5810, 0.4537, 0.1265]
# PyTorch's test_tp_examples.py, 2-layer Transformer: CommDebugMode counts of one forward and
# one backward, with tensor parallelism and with sequence parallelism.
PYTORCH_COUNTS = {
    False: ({"all_reduce": 6, "all_gather": 1}, {"all_reduce": 9}),
    True: ({"reduce_scatter": 6, "all_gather": 6}, {"reduce_scatter": 5, "all_gather": 6}),
}
SEED = 0
companion = Companion(__name__, lesson="tp-transformer",
                      options={"vocab": 16, "width": 16, "heads": 4, "tokens": 8, "batch": 2,
                               "steps": 5, "lr": 0.5, "profile_width": 256, "profile_tokens": 64,
                               "timing_batch": 256, "timing_tokens": 256, "timing_width": 2048,
                               "warmup": 2, "repeats": 5})


# ---- the subject: PyTorch's plans for the model ---------------------------------------------

def parallelize(model, mesh, sp, loss_parallel=False):
    """PyTorch's plan (test_tp_examples.py): Megatron's column/row pairs per block; with `sp`
    the norms and residuals on Shard(1), the sequence; with `loss_parallel` the logits stay
    split over the vocabulary for torch's loss_parallel cross-entropy."""
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                                   SequenceParallel, parallelize_module)
    seq = Shard(1) if sp else Replicate()

    def apply(module, plan):  # every rank built the same seeded model: each shards its own, no scatter
        parallelize_module(module, mesh, plan, src_data_rank=None)

    apply(model, {
        "tok_embeddings": RowwiseParallel(input_layouts=Replicate(), output_layouts=seq),
        "pos_embeddings": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(0) if sp else Replicate()),
        **({"norm": SequenceParallel()} if sp else {}),
    })
    for layer in model.layers:
        plan = {f"attention.{w}": ColwiseParallel() for w in ("wq", "wk", "wv")}
        plan["attention.wo"] = RowwiseParallel(output_layouts=seq)
        plan["feed_forward.w1"] = ColwiseParallel(input_layouts=seq)
        plan["feed_forward.w2"] = RowwiseParallel(output_layouts=seq)
        if sp:
            plan["attention"] = PrepareModuleInput(input_layouts=Shard(1), desired_input_layouts=Replicate())
            plan["attention_norm"] = SequenceParallel()
            plan["ffn_norm"] = SequenceParallel()
        apply(layer, plan)
    apply(model.output, ColwiseParallel(
        input_layouts=seq, output_layouts=Shard(-1) if loss_parallel else Replicate(), use_local_output=not loss_parallel))
    return model


def step_loss(model, tokens, targets, lp=False):
    """Cross-entropy of one batch (loss_parallel's context when the logits are vocab-sharded)."""
    from torch.distributed.tensor.parallel import loss_parallel
    logits = model(tokens)
    with loss_parallel() if lp else contextlib.nullcontext():
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
    return loss


def sgd(model, tokens, targets, steps, lr, lp=False):
    """SGD on every parameter (companionkit.models.train): the loss of each step, before its update."""
    return train(lambda: step_loss(model, tokens, targets, lp), list(model.parameters()), steps, lr)


# ---- the checks -----------------------------------------------------------------------------

def lesson_counts(L, sp):
    """The lesson's counts of one forward and one backward of an L-layer model, from per-layer ones.
    Per layer: TP forward 2 all-reduces, backward 2; PyTorch's model adds 2 embeddings (one
    all-reduce each), the output layer (one all-gather, one backward all-reduce) and separate
    wq/wk/wv (2 more backward all-reduces per layer). SP: 2 reduce-scatters and 2 all-gathers per
    layer each way, and the ends."""
    if sp:
        return {"reduce_scatter": 2 * L + 2, "all_gather": 2 * L + 2}, {"reduce_scatter": 2 * L + 1, "all_gather": 2 * L + 2}
    return {"all_reduce": 2 * L + 2, "all_gather": 1}, {"all_reduce": 2 * L + 2 * L + 1}


def problem(run, dtype=torch.float64, width=None, tokens=None, batch=None):
    o = run.options
    T, B = tokens or o["tokens"], batch or o["batch"]
    torch.manual_seed(SEED)
    model = Transformer(o["vocab"], width or o["width"], o["heads"], T).to(dtype).to(run.device)
    g = torch.Generator().manual_seed(SEED + 1)
    ids = torch.randint(0, o["vocab"], (B, T), generator=g).to(run.device)
    return model, ids, torch.randint(0, o["vocab"], (B, T), generator=g).to(run.device)


@companion.section("numbers", "The lesson's numbers: seed 003's losses, PyTorch's counts from per-layer ones", local=True)
def numbers(run):
    """Worked numbers, not checks: the counts section measures them."""
    for sp in (False, True):
        run.info(f"{'TP + SP' if sp else 'TP'}, 2 layers: forward {lesson_counts(2, sp)[0]}, backward "
                 f"{lesson_counts(2, sp)[1]}; PyTorch's test: {PYTORCH_COUNTS[sp]}")
    run.info(f"seed 003's one-GPU losses: {SEED_LOSSES} (its TP run agreed to ~1e-6)")


@companion.section("training", "5 steps of SGD: one device, TP, TP + SP with loss_parallel, the same losses")
def training(run):
    o = run.options
    model, tokens, targets = problem(run)
    tp_model, sp_model = copy.deepcopy(model), copy.deepcopy(model)
    one = sgd(model, tokens, targets, o["steps"], o["lr"])
    m = run.mesh()
    tp = sgd(parallelize(tp_model, m, sp=False), tokens, targets, o["steps"], o["lr"])
    sp = sgd(parallelize(sp_model, m, sp=True, loss_parallel=True), tokens, targets, o["steps"], o["lr"], lp=True)
    for name, got in (("tp", tp), ("sp", sp)):
        ok, detail = compare(torch.tensor(got), torch.tensor(one), rtol=1e-9, atol=1e-12)
        run.expect(name, f"{'TP' if name == 'tp' else 'TP + SP + loss_parallel'}: the loss equals one device's at every step",
                   ok, f"{[round(v, 6) for v in got]} vs {[round(v, 6) for v in one]}: {detail}")
    run.expect("learns", "the loss falls over the steps (the model trains)", one[-1] < one[0], f"{one[0]:.4f} -> {one[-1]:.4f}")
    run.data("losses", {"world": run.world, "one": one, "tp": tp, "sp": sp})


@companion.section("counts", "CommDebugMode counts of one forward and one backward: PyTorch's test numbers")
def counts(run):
    for sp in (False, True):
        model, tokens, targets = problem(run)
        model = parallelize(model, run.mesh(), sp=sp)
        logits, fwd, bwd = measure.passes(lambda: model(tokens),
                                          lambda out: F.cross_entropy(out.flatten(0, 1), targets.flatten()).backward())
        want_fwd, want_bwd = PYTORCH_COUNTS[sp]
        name = "sp" if sp else "tp"
        expect_count(run, f"{name}-forward", f"{'TP + SP' if sp else 'TP'} forward: {want_fwd}", fwd, want_fwd)
        expect_count(run, f"{name}-backward", f"{'TP + SP' if sp else 'TP'} backward: {want_bwd}", bwd, want_bwd)
        expect_counts(run, f"{name}-lesson", f"{'TP + SP' if sp else 'TP'}: the lesson's per-layer counts for "
                      "this model's layers", fwd, bwd, *lesson_counts(len(model.layers), sp))


# ---- activation memory: the lesson's formula for this model ----------------------------------
# Korthikanti et al.'s 34·sbh bytes per layer count fp16: 32 bytes are 16 values per token and
# width unit, 2 are dropout masks (this model has no dropout); attention's 5as²b (the s×s scores)
# is not kept, as with recomputation: scaled_dot_product_attention keeps its output and one
# logsumexp per head and token instead, and that output is wo's input. Per layer, in sbh values:
#   LayerNorm inputs 2 (attention_norm's, ffn_norm's): on 1/t under SP, whole with TP alone;
#   the column-parallel layers' input 2 (wq/wk/wv share one, w1 the other): whole with TP;
#     Megatron keeps 1/t under SP and gathers again in the backward (34·sbh/t), PyTorch's
#     SequenceParallel keeps what its all-gather returned, whole;
#   Q, K, V 3, wo's input 1, GeLU's input 4, w2's input 4: 12 values split over the t ranks.
GATHERED_INPUTS, LAYERNORM_INPUTS, SPLIT = 2, 2, 12


def layer_values(t, sp, regather=False):
    """Values per token per width unit (multiples of s·b·h) that one layer keeps for backward on
    one of t ranks; t = 1 is one device. `regather`: Megatron's SP, which gathers again."""
    norms = LAYERNORM_INPUTS / t if sp else LAYERNORM_INPUTS
    gathered = GATHERED_INPUTS / t if sp and regather else GATHERED_INPUTS
    return norms + gathered + SPLIT / t


def ignored_values(t, sp, heads):
    """Values per token (multiples of s·b) the formula leaves out of a layer on one rank: the
    mean and 1/σ of each LayerNorm (2 × 2, on 1/t under SP) and attention's logsumexp, one per
    head of this rank."""
    return 4 / (t if sp else 1) + heads / t


@companion.section("memory", "Activation memory per rank against the formula: one device, TP, TP + SP")
def memory(run):
    o, on_gpu = run.options, run.device.type == "cuda"
    width = o["timing_width"] if on_gpu else o["profile_width"]   # hidden 2048 on GPUs, the seed's
    s, b, h, t, heads = o["profile_tokens"], o["batch"], width, run.world, o["heads"]
    sizes = {}
    for name, sp in (("one", None), ("tp", False), ("sp", True)):
        # A sequence long enough that activations, not weights, are what is measured.
        model, tokens, _ = problem(run, dtype=torch.float32, width=width, tokens=s)
        L = len(model.layers)
        if sp is not None:
            model = parallelize(model, run.mesh(), sp=sp)
        model(tokens)   # discarded: what is made on first use (caches, cuBLAS's workspace) stays out
        _, layers = measure.saved_per_module(model.layers, lambda: model(tokens), exclude=list(model.parameters()))
        _, peak = measure.profiled_peak(lambda: model(tokens), run.device)
        n, on_sp = (1, False) if sp is None else (t, sp)
        e = 4   # float32
        want = e * s * b * h * layer_values(n, on_sp)
        slack = e * s * b * ignored_values(n, on_sp, heads)
        # The rest of the model: the final LayerNorm's input (1/t under SP) and statistics, the
        # output layer's input (whole: PyTorch gathers it), the logits (b·s·vocab, alive after the
        # forward), the positions (s int64).
        ends = e * s * b * (h / n if on_sp else h) + e * s * b * (2 / n if on_sp else 2) + e * s * b * h \
            + e * s * b * o["vocab"] + 8 * s
        sizes[name] = {"layers": layers, "formula": want, "ignored": slack, "peak": peak,
                       "model_formula": L * want + ends}
        if on_gpu:
            _, cuda = measure.cuda_peak(lambda: model(tokens), run.device)
            sizes[name]["cuda_peak"] = cuda
    titles = {"one": "one device keeps 16·sbh values per layer",
              "tp": "TP: LayerNorm's and the column-parallel layers' inputs whole, the other 12·sbh on 1/t",
              "sp": "TP + SP: LayerNorm's inputs on 1/t too; PyTorch keeps the gathered inputs whole (2·sbh)"}
    for name, m in sizes.items():
        off = [got - m["formula"] for got in m["layers"]]
        run.expect(name, titles[name], all(0 <= d <= m["ignored"] for d in off),
                   f"saved per layer {m['layers']} bytes, formula {m['formula']:.0f} + at most "
                   f"{m['ignored']:.0f} of LayerNorm statistics and logsumexp")
    # The profiler sees the allocator, not autograd: every activation of the model is alive at the
    # forward's end, so its peak is at least the formula's whole model; on one device nothing else
    # outlives an op, and the peak is that plus at most the statistics and logsumexps. With TP and
    # SP the collectives' buffers come on top, printed, not bounded: gloo's thread frees some of
    # them after the forward has returned, sooner or later from run to run, and DTensor's SP
    # leaves reference cycles that only Python's cycle collector frees.
    over = sizes["one"]["peak"] - (sizes["one"]["model_formula"] + L * sizes["one"]["ignored"])
    run.expect("profiler", "torch.profiler's peak of one forward per rank: at least the formula's whole model; "
               "on one device exactly it", all(m["peak"] >= m["model_formula"] for m in sizes.values())
               and over <= 0,
               "; ".join(f"{name} peak {m['peak']} bytes = formula {m['model_formula']:.0f} "
                         f"+ {m['peak'] - m['model_formula']:.0f}" for name, m in sizes.items())
               + f" (allowed on one device: {L * sizes['one']['ignored']:.0f} of statistics and logsumexps)")
    sbh = 4 * s * b * h
    one, tp, sp = (sizes[name]["layers"][0] for name in ("one", "tp", "sp"))
    run.info(f"width {width}, batch {b} × {s} tokens, {heads} heads, t = {t}, float32: sbh = {s * b * h} values")
    run.info(f"per layer: one device − TP = {(one - tp) / sbh:.3f}·sbh·4 bytes (the split 12·sbh·(1 − 1/t) = "
             f"{SPLIT * (1 - 1 / t):.3f}), TP − TP + SP = {(tp - sp) / sbh:.3f}·sbh·4 bytes (LayerNorm's inputs "
             f"2·sbh·(1 − 1/t) = {LAYERNORM_INPUTS * (1 - 1 / t):.3f}); Megatron's SP, gathering again in the "
             f"backward, would keep {layer_values(t, True, regather=True):.2f}·sbh (34·sbh/t in fp16 with dropout), "
             f"PyTorch's keeps {layer_values(t, True):.2f}·sbh")
    if on_gpu:
        run.info("GPU (not yet run on one): torch.cuda.max_memory_allocated over one forward, on this rank: "
                 + ", ".join(f"{name} {m['cuda_peak']} bytes" for name, m in sizes.items()))
    run.data("memory", {"world": t, "width": width, "tokens": s, "batch": b, **sizes})


@companion.section("timing", "One GPU against N GPUs: a training step at batch 256, sequence 256 (GPUs only)")
def timing(run):
    if run.device.type != "cuda":
        run.info("skipped: the one-GPU vs N-GPU step time at batch 256, sequence 256 needs GPUs "
                 "(on CPU processes it would time gloo and a shared CPU, not tensor parallelism)")
        return
    o = run.options
    one_model, tokens, targets = problem(run, dtype=torch.float32, width=o["timing_width"],
                                         tokens=o["timing_tokens"], batch=o["timing_batch"])
    tp_model = parallelize(copy.deepcopy(one_model), run.mesh(), sp=False)
    sizes = {"N": run.world, "batch": tokens.shape[0], "tokens": tokens.shape[1], "width": o["timing_width"]}
    measure.time_cases(run, "timing", [(sizes, lambda: step_loss(one_model, tokens, targets),
                                        lambda: step_loss(tp_model, tokens, targets))], tuple(sizes), at="width")
