"""A small transformer trained 5 steps on one device and with PyTorch's tensor parallelism
(parallelize_module: ColwiseParallel/RowwiseParallel, then SequenceParallel and loss_parallel),
checked with torch.distributed.

The notebook (companion.ipynb) and the torchrun script (tp_transformer_check.py) both run
`companion`. The model is the shape of PyTorch's own test model (test_tp_examples.py): token and
position embeddings, 2 pre-LN blocks with separate wq, wk, wv, wo and a GeLU MLP w1, w2, a final
LayerNorm and an output layer. The file has two halves: the subject (the model and the two
parallel plans) and the checks, which compare with the same model trained on one device.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

from companionkit import Companion, compare, measure
from companionkit.tp import expect_count

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


# ---- the subject: the model and PyTorch's plans ---------------------------------------------

class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.head_dim = dim // heads   # a rank's Q holds its heads only: counted by view(-1)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(dim, dim, bias=False) for _ in range(4))

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = (w(x).view(b, s, -1, self.head_dim).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # scores / sqrt(head_dim)
        return self.wo(o.transpose(1, 2).reshape(b, s, -1))


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1, self.w2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attention_norm, self.attention = nn.LayerNorm(dim), Attention(dim, heads)
        self.ffn_norm, self.feed_forward = nn.LayerNorm(dim), FeedForward(dim)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))          # the residual, once
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    """Embedding, 2 blocks, output layer: test_tp_examples.py's model without dropout."""

    def __init__(self, vocab, dim, heads, max_tokens, layers=2):
        super().__init__()
        self.tok_embeddings, self.pos_embeddings = nn.Embedding(vocab, dim), nn.Embedding(max_tokens, dim)
        self.layers = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm, self.output = nn.LayerNorm(dim), nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens) + self.pos_embeddings(torch.arange(tokens.shape[1], device=tokens.device))
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


def parallelize(model, mesh, sp, loss_parallel=False):
    """PyTorch's plan (test_tp_examples.py): Megatron's column/row pairs per block; with `sp`
    the norms and residuals on Shard(1), the sequence; with `loss_parallel` the logits stay
    split over the vocabulary for torch's loss_parallel cross-entropy."""
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                                   SequenceParallel, parallelize_module)
    seq = Shard(1) if sp else Replicate()
    parallelize_module(model, mesh, {
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
        parallelize_module(layer, mesh, plan)
    parallelize_module(model.output, mesh, ColwiseParallel(
        input_layouts=seq, output_layouts=Shard(-1) if loss_parallel else Replicate(), use_local_output=not loss_parallel))
    return model


def step_loss(model, tokens, targets, lp=False):
    """Cross-entropy of one batch (loss_parallel's context when the logits are vocab-sharded)."""
    from torch.distributed.tensor.parallel import loss_parallel
    logits = model(tokens)
    if lp:
        with loss_parallel():
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
            loss.backward()
    else:
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
    return loss


def train(model, tokens, targets, steps, lr, lp=False):
    """SGD: the loss of each step, before its update."""
    losses = []
    for _ in range(steps):
        model.zero_grad(set_to_none=True)
        loss = step_loss(model, tokens, targets, lp)
        losses.append(float((loss.full_tensor() if hasattr(loss, "full_tensor") else loss).detach()))
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
    return losses


# ---- the checks -----------------------------------------------------------------------------

def problem(run, dtype=torch.float64, width=None):
    o = run.options
    torch.manual_seed(SEED)
    model = Transformer(o["vocab"], width or o["width"], o["heads"], o["tokens"]).to(dtype).to(run.device)
    g = torch.Generator().manual_seed(SEED + 1)
    tokens = torch.randint(0, o["vocab"], (o["batch"], o["tokens"]), generator=g).to(run.device)
    targets = torch.randint(0, o["vocab"], (o["batch"], o["tokens"]), generator=g).to(run.device)
    return model, tokens, targets


def mesh(run):
    from torch.distributed.device_mesh import init_device_mesh
    return init_device_mesh(run.device.type, (run.world,))


@companion.section("numbers", "The lesson's numbers: seed 003's losses and PyTorch's counts from per-layer ones", local=True)
def numbers(run):
    # Per layer: TP forward 2 all-reduces, backward 2; PyTorch's model adds 2 embeddings (one
    # all-reduce each), the output layer (one all-gather, one backward all-reduce) and
    # separate wq/wk/wv (2 more backward all-reduces per layer).
    L = 2
    tp = ({"all_reduce": 2 * L + 2, "all_gather": 1}, {"all_reduce": 2 * L + 2 * L + 1})
    sp = ({"reduce_scatter": 2 * L + 2, "all_gather": 2 * L + 2}, {"reduce_scatter": 2 * L + 1, "all_gather": 2 * L + 2})
    run.expect("tp-counts", "TP: 2 per layer + embeddings, output layer, separate wq/wk/wv = PyTorch's test",
               tp == PYTORCH_COUNTS[False], f"{tp} vs {PYTORCH_COUNTS[False]}")
    run.expect("sp-counts", "SP: 2 reduce-scatters + 2 all-gathers per layer + the ends = PyTorch's test",
               sp == PYTORCH_COUNTS[True], f"{sp} vs {PYTORCH_COUNTS[True]}")
    run.info(f"seed 003's one-GPU losses: {SEED_LOSSES} (its TP run agreed to ~1e-6)")


@companion.section("training", "5 steps of SGD: one device, TP, TP + SP with loss_parallel, the same losses")
def training(run):
    o = run.options
    model, tokens, targets = problem(run)
    tp_model, sp_model = copy.deepcopy(model), copy.deepcopy(model)
    one = train(model, tokens, targets, o["steps"], o["lr"])
    m = mesh(run)
    tp = train(parallelize(tp_model, m, sp=False), tokens, targets, o["steps"], o["lr"])
    sp = train(parallelize(sp_model, m, sp=True, loss_parallel=True), tokens, targets, o["steps"], o["lr"], lp=True)
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
        model = parallelize(model, mesh(run), sp=sp)
        logits, fwd = measure.collectives(lambda: model(tokens))
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        _, bwd = measure.collectives(lambda: loss.backward())
        want_fwd, want_bwd = PYTORCH_COUNTS[sp]
        name = "sp" if sp else "tp"
        expect_count(run, f"{name}-forward", f"{'TP + SP' if sp else 'TP'} forward: {want_fwd}", fwd, want_fwd)
        expect_count(run, f"{name}-backward", f"{'TP + SP' if sp else 'TP'} backward: {want_bwd}", bwd, want_bwd)


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


def saved_per_layer(model, fn):
    """(result, [bytes of layer 1, ...]): the storage bytes autograd saves for backward while
    `fn()` runs, each storage once and counted in the layer whose forward first saved it (a
    block's input is its LayerNorm's), the model's parameters excluded; a DTensor counts by its
    local shard (what this rank holds). companionkit's measure.saved_bytes, split by layer."""
    from torch.distributed.tensor import DTensor
    local = lambda t: t._local_tensor if isinstance(t, DTensor) else t  # noqa: E731
    params = {local(p).untyped_storage().data_ptr() for p in model.parameters()}
    seen, layers = {}, []

    def pack(t):
        storage = local(t).untyped_storage()
        if storage.data_ptr() not in params and storage.data_ptr() not in seen:
            seen[storage.data_ptr()] = storage.nbytes()
            if layers:
                layers[-1] += storage.nbytes()
        return t

    hooks = [layer.register_forward_pre_hook(lambda *_: layers.append(0)) for layer in model.layers]
    hooks += [layer.register_forward_hook(lambda *_: layers.append(0)) for layer in model.layers]
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = fn()
    for hook in hooks:
        hook.remove()
    return result, layers[0::2]   # the odd entries are what was saved between layers


def profiled_peak(fn, device):
    """(result, bytes): the peak of this process's memory while `fn()` runs, from
    torch.profiler's memory records (profile_memory=True) on `device`: the running maximum of the
    cumulative allocations minus their running minimum, so a free of a tensor made before the
    profile (a negative record, where the allocator records one: the CPU allocator does not)
    lowers the floor instead of the peak."""
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


@companion.section("memory", "Activation memory per rank against the formula: one device, TP, TP + SP")
def memory(run):
    o, on_gpu = run.options, run.device.type == "cuda"
    width = o["timing_width"] if on_gpu else o["profile_width"]   # hidden 2048 on GPUs, the seed's

    class Sized:  # a sequence long enough that activations, not weights, are what is measured
        options = dict(o, tokens=o["profile_tokens"])
        device, world = run.device, run.world

    s, b, h, t, heads = o["profile_tokens"], o["batch"], width, run.world, o["heads"]
    sizes = {}
    for name, sp in (("one", None), ("tp", False), ("sp", True)):
        model, tokens, _ = problem(Sized, dtype=torch.float32, width=width)
        L = len(model.layers)
        if sp is not None:
            model = parallelize(model, mesh(run), sp=sp)
        model(tokens)   # discarded: what is made on first use (caches, cuBLAS's workspace) stays out
        _, layers = saved_per_layer(model, lambda: model(tokens))
        _, peak = profiled_peak(lambda: model(tokens), run.device)
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
    big = dict(o, batch=o["timing_batch"], tokens=o["timing_tokens"])

    class Sized:
        options, device, world = big, run.device, run.world

    one_model, tokens, targets = problem(Sized, dtype=torch.float32, width=o["timing_width"])
    tp_model = parallelize(copy.deepcopy(one_model), mesh(run), sp=False)
    one, tp = measure.time_against_baseline(lambda: step_loss(one_model, tokens, targets),
                                            lambda: step_loss(tp_model, tokens, targets),
                                            run.rank, run.device, o["warmup"], o["repeats"], baseline_threads=1)
    # The slowest rank's spread is the TP step's (a step ends when its last rank does).
    one, tp = measure.from_rank0(one, run.rank, run.device)[0], measure.slowest(tp, run.device)
    run.info(f"training step, min / median / max of {o['repeats']} after {o['warmup']} warm-up: one GPU "
             f"{measure.spread_text(one)} ms, TP on {run.world} GPUs {measure.spread_text(tp)} ms "
             "(a measurement, no verdict)")
    run.data("timing", {"world": run.world, "tp_ms": tp, "one_gpu_ms": one})
