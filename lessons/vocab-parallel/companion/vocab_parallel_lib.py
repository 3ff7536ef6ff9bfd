"""The vocabulary-parallel embedding and cross-entropy checked with torch.distributed.

Rank i owns vocabulary ids [i*V/N, (i+1)*V/N): rows of the embedding table E (V, D)
and of the output layer W (V, D), hence columns of the logits z = H W^T (T, V).
"""

import math

import torch
import torch.distributed as dist
import torch.nn.functional as F

from companionkit import Companion, compare, measure
from companionkit.comparing import expect_in, fmt, printed
from companionkit.formulas import with_grads
from companionkit.models import backward, tensor_parallel, train
from companionkit.shards import drawn
from companionkit.tp import CopyToTP, ReduceFromTP, expect_count, expect_counts

# The lesson's worked example: V = 8 over 2 GPUs, two tokens.
EXAMPLE_Z = [[1.0, 3.0, 0.0, 2.0, 4.0, 1.0, 0.0, 2.0], [0.0, 5.0, 1.0, 2.0, 1.0, 0.0, 2.0, 1.0]]
EXAMPLE_TARGETS = [1, 6]
EXAMPLE_LOSS = (1.574, 3.155)
EXAMPLE_LOCAL_MAX_LOSS = (2.014, 4.080)
# Megatron-LM tests/unit_tests/tensor_parallel/test_cross_entropy.py (TP = 4).
MEGATRON_LOSSES = (10.2309, 8.2309, 6.2309, 4.2309)
# GPT-2's vocabulary, and the sizes the lesson quotes.
GPT2_VOCAB = 50257
PADDED = {1: 50304, 8: 51200}
MEMORY_TOKENS = 8 * 1024
# Seed 003's loss at iteration 2: without loss parallel, with it on one GPU, with it and TP = 2.
SEED_ITER2 = (7.8605475425720215, 7.860340595245361, 7.860313415527344)

SEED = 0
companion = Companion(__name__, lesson="vocab-parallel", options={
    "tokens": 16, "vocab": 64, "width": 16, "iterations": 5, "lr": 0.5})


# ---- the subject -------------------------------------------------------------------------------

def vocab_range(V, rank, world):
    """(start, end) of the ids this rank owns, end exclusive."""
    size = V // world
    return rank * size, (rank + 1) * size


def padded_vocab(V, tp, divisible_by=128):
    """Megatron-LM's padding: the next multiple of divisible_by * TP."""
    multiple = divisible_by * tp
    return -(-V // multiple) * multiple


def owned_ids(ids, start, size):
    """(which ids this rank owns, start .. start + size - 1; each as an index into its slice, 0 if not)."""
    owned = (ids >= start) & (ids < start + size)
    return owned, torch.where(owned, ids - start, torch.zeros_like(ids))


def vp_embedding(ids, E_i, start, group=None):
    """VocabParallelEmbedding: mask the ids this rank does not own, look up id - start, zero the
    masked rows, all-reduce."""
    owned, local = owned_ids(ids, start, E_i.shape[0])
    rows = F.embedding(local, E_i) * owned.unsqueeze(-1)
    return ReduceFromTP.apply(rows, group)


class VocabParallelCrossEntropy(torch.autograd.Function):
    """Per-token -log softmax(z)[target] from this rank's slice z_i (T, V/N) of the logits, with
    three all-reduces (MAX of the local maxima, SUM of exp(z - m), SUM of the target logit) and
    a backward pass that needs no communication."""

    @staticmethod
    def forward(ctx, z_i, targets, start, group):
        m = z_i.max(dim=-1).values
        dist.all_reduce(m, op=dist.ReduceOp.MAX, group=group)
        e = torch.exp(z_i - m.unsqueeze(-1))
        s = e.sum(dim=-1)
        dist.all_reduce(s, group=group)
        owned, local = owned_ids(targets, start, z_i.shape[-1])
        z_target = torch.where(owned, z_i.gather(-1, local.unsqueeze(-1)).squeeze(-1), torch.zeros_like(m))
        dist.all_reduce(z_target, group=group)
        ctx.save_for_backward(e / s.unsqueeze(-1), owned, local)
        return m + torch.log(s) - z_target

    @staticmethod
    def backward(ctx, grad):
        softmax, owned, local = ctx.saved_tensors
        g = softmax.clone()
        rows = owned.nonzero().squeeze(-1)
        g[rows, local[rows]] -= 1.0
        return g * grad.unsqueeze(-1), None, None, None


def vp_cross_entropy(z_i, targets, start, group=None):
    return VocabParallelCrossEntropy.apply(z_i, targets, start, group)


def vp_loss(z, targets, rank, world, group=None):
    """The vocab-parallel losses of the whole logits z, computed from this rank's slice only."""
    start, end = vocab_range(z.shape[-1], rank, world)
    return vp_cross_entropy(z[:, start:end].clone(), targets, start, group)


def local_logits(H, W, rank, world):
    """This rank's slice of the logits, from its own rows of the output layer only."""
    start, end = vocab_range(W.shape[0], rank, world)
    return H @ W[start:end].T


def dtensor_loss(z, targets, mesh):
    """PyTorch's loss parallel: F.cross_entropy on a DTensor of logits sharded along the
    vocabulary (the last dimension), inside loss_parallel()."""
    from torch.distributed.tensor import Shard, distribute_tensor
    from torch.distributed.tensor.parallel import loss_parallel

    zd = distribute_tensor(z, mesh, [Shard(-1)]).detach().requires_grad_()
    with loss_parallel():
        loss, fwd = measure.collectives(lambda: F.cross_entropy(zd, targets, reduction="sum"))
        _, bwd = measure.collectives(lambda: loss.backward())  # the gradient of the summed loss
    return zd, loss, fwd, bwd


def dtensor_embedding(E, world):
    """PyTorch's RowwiseParallel on an nn.Embedding: the table split by rows (the vocabulary)."""
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import RowwiseParallel

    emb = torch.nn.Embedding.from_pretrained(E.clone(), freeze=False)
    return tensor_parallel(emb, E.device, world, RowwiseParallel(input_layouts=Replicate()))


# ---- what to expect: plain torch on the full tensors -------------------------------------------

def draw(run, dtype=torch.float64, seed=SEED, scale=3.0):
    """Full tensors from one seed, identical on every rank (drawn on CPU): logits z (T, V),
    targets on every rank's range, a table E (V, D) and ids."""
    T, V, D = run.options["tokens"], run.options["vocab"], run.options["width"]
    g = torch.Generator().manual_seed(seed)
    z = (scale * (2 * torch.rand(T, V, generator=g, dtype=torch.float64) - 1)).to(dtype)
    targets = torch.randint(0, V, (T,), generator=g)
    targets[: run.world] = torch.tensor([vocab_range(V, r, run.world)[0] for r in range(run.world)])[:T]
    E = torch.randn(V, D, generator=g, dtype=torch.float64).to(dtype)
    ids = torch.randint(0, V, (T,), generator=g)
    dev = run.device
    return z.to(dev), targets.to(dev), E.to(dev), ids.to(dev)


# ---- the checks --------------------------------------------------------------------------------

@companion.section("numbers", "The lesson's numbers: the worked example on ranks 0 and 1, Megatron's test, padding, memory")
def numbers(run):
    title = "the worked example: losses ≈ (1.574, 3.155) from two ranks' slices"
    group = run.example_group([("example", title)])  # ranks >= 2 take no part in the 2-GPU example
    if group is not None:
        z = torch.tensor(EXAMPLE_Z, dtype=torch.float64, device=run.device)
        loss = vp_loss(z, torch.tensor(EXAMPLE_TARGETS, device=run.device), run.rank, 2, group)
        run.expect("example", title, printed(loss, EXAMPLE_LOSS), f"got {fmt(loss)}, lesson {fmt(EXAMPLE_LOSS)}")
    zf = torch.tensor(EXAMPLE_Z, dtype=torch.float64)
    wrong = [zf[:, :4], zf[:, 4:]]
    m = zf.max(dim=1).values
    s = sum(torch.exp(x - x.max(dim=1, keepdim=True).values).sum(dim=1) for x in wrong)
    local_max = (m + torch.log(s) - zf[torch.arange(2), torch.tensor(EXAMPLE_TARGETS)]).tolist()
    run.info(f"with each GPU's own max and no rescaling the same example gives {fmt(local_max)} "
             f"(lesson: {fmt(EXAMPLE_LOCAL_MAX_LOSS)})")

    # Megatron's test has TP = 4 GPUs, each with 0..7 tiled to (16, 32): every full row is 16
    # copies of 0..7, and so the same losses come out for any N dividing the 128 ids.
    full = torch.arange(8.0, dtype=torch.float64, device=run.device).repeat(16, 16)
    loss = vp_loss(full, torch.arange(0, 32, 2, device=run.device), run.rank, run.world)
    ok = all(abs(a - b) <= 1e-4 for a, b in zip(loss.tolist(), MEGATRON_LOSSES * 4))
    run.expect("megatron", "Megatron-LM's unit test (its TP = 4 logits, over N ranks): 10.2309, 8.2309, 6.2309, 4.2309 repeating",
               ok, f"got {fmt(loss.tolist()[:4], 4)} ...")

    # Worked numbers, not checks: arithmetic on the lesson's constants has nothing to measure.
    pads = {tp: padded_vocab(GPT2_VOCAB, tp) for tp in PADDED}
    run.info("GPT-2's 50,257 padded to a multiple of 128·TP: " + ", ".join(f"{v:,} at TP = {tp}" for tp, v in pads.items()))
    T, V8 = MEMORY_TOKENS, pads[8] // 8
    run.info(f"logits of T = {T:,} tokens: {T * GPT2_VOCAB:,} numbers ({T * GPT2_VOCAB * 4 / 1e9:.2f} GB fp32) on one GPU, "
             f"{T * V8:,} ({T * V8 * 4 / 1e6:.0f} MB) per GPU at TP = 8")


@companion.section("embedding", "Embedding: masked lookups and one all-reduce give E[ids] and the table's gradient")
def embedding(run):
    _, _, E, ids = draw(run)
    start, end = vocab_range(E.shape[0], run.rank, run.world)
    E_i = E[start:end].clone().requires_grad_()
    out, fwd = measure.collectives(lambda: vp_embedding(ids, E_i, start))
    run.expect("forward", "the sum of the masked lookups equals F.embedding on the full table (fp64)",
               *compare(out, F.embedding(ids, E), rtol=0, atol=1e-12))
    expect_count(run, "counts", "CommDebugMode: one all-reduce", fwd, {"all_reduce": 1})
    weights = torch.arange(1.0, out.numel() + 1, dtype=out.dtype, device=out.device).reshape(out.shape)
    out.backward(weights)
    _, (dE,) = with_grads(lambda E: F.embedding(ids, E), (E,), weights)
    run.expect("grad", "each rank's gradient is its rows of the full table's gradient",
               *compare(E_i.grad, dE[start:end], rtol=0, atol=1e-12))


@companion.section("loss", "Cross-entropy from three all-reduces equals F.cross_entropy; the gradient needs no communication")
def loss(run):
    for dtype in (torch.float64, torch.float32):
        name = str(dtype).removeprefix("torch.")
        z, targets, _, _ = draw(run, dtype)
        start, end = vocab_range(z.shape[1], run.rank, run.world)
        z_i = z[:, start:end].clone().requires_grad_()
        losses, fwd, bwd = measure.passes(lambda: vp_cross_entropy(z_i, targets, start))
        expected, (dz,) = with_grads(lambda z: F.cross_entropy(z, targets, reduction="none"), (z,))
        run.expect(name, f"per-token losses equal F.cross_entropy(reduction='none') in {name}", *compare(losses, expected))
        run.expect(f"grad-{name}", f"each rank's gradient is its slice of softmax(z) − onehot(target) ({name})",
                   *compare(z_i.grad, dz[:, start:end]))
        if dtype == torch.float64:
            expect_counts(run, "counts", "CommDebugMode: 3 all-reduces forward, 0 backward",
                          fwd, bwd, {"all_reduce": 3}, {})
            payload = [c.nbytes for c in fwd.calls]
            run.expect("payload", "each all-reduce carries T numbers (one per token), not T·V",
                       payload == [z.shape[0] * z.element_size()] * 3,
                       f"{payload} B; T·8 = {z.shape[0] * 8} B, gathering the logits would be T·V·8 = {z.numel() * 8} B")
    # bf16: the vocab-parallel loss of bf16 logits against the fp64 loss of the same (rounded) logits,
    # allowed a few bf16 roundings of the loss's magnitude (the max, the exponentials' sum and its log).
    def rounded(dtype):
        z, targets, _, _ = draw(run, dtype)
        return vp_loss(z, targets, run.rank, run.world), F.cross_entropy(z.double(), targets, reduction="none")

    expect_in(run, "bfloat16", "bf16 per-token losses within 8 bf16 eps · max|loss| of the fp64 loss of the same logits",
              torch.bfloat16, rounded, 8)
    z, targets, _, _ = draw(run, torch.float64, scale=1e3)
    losses = vp_loss(z, targets, run.rank, run.world)
    ok, detail = compare(losses, F.cross_entropy(z, targets, reduction="none"), rtol=1e-12, atol=1e-9)
    run.expect("large", "logits of magnitude 1e3: finite and exact (the max is subtracted first)",
               ok and bool(torch.isfinite(losses).all()), detail)


@companion.section("dtensor", "PyTorch's loss_parallel() on Shard(-1) logits and RowwiseParallel on nn.Embedding agree")
def dtensor(run):
    z, targets, E, ids = draw(run)
    zd, loss_d, fwd, bwd = dtensor_loss(z, targets, run.mesh())
    expected, (dz,) = with_grads(lambda z: F.cross_entropy(z, targets, reduction="sum"), (z,))
    run.expect("loss", "F.cross_entropy under loss_parallel() equals the unsplit loss (fp64)",
               *compare(loss_d.full_tensor(), expected, rtol=1e-12, atol=1e-12))
    ok, detail = compare(zd.grad.full_tensor(), dz, rtol=1e-12, atol=1e-12)
    placement = zd.grad.placements[0]
    sharded = placement.is_shard(zd.grad.ndim - 1)
    run.expect("grad", "its gradient stays sharded along the vocabulary (placement Shard(vocab dim)) and equals the unsplit one",
               ok and sharded, f"placement {placement} ({'sharded' if sharded else 'NOT sharded'} along dim "
               f"{zd.grad.ndim - 1}); {detail}")
    expect_counts(run, "counts", "CommDebugMode under loss_parallel(): 3 all-reduces forward, 0 backward",
                  fwd, bwd, {"all_reduce": 3}, {})
    emb = dtensor_embedding(E, run.world)
    # `* 1.0` turns the module's output (an AsyncCollectiveTensor) into a plain tensor, waiting for
    # its collective inside the counted region.
    out, efwd = measure.collectives(lambda: emb(ids) * 1.0)
    ok, detail = compare(out, F.embedding(ids, E), rtol=0, atol=1e-12)
    run.expect("embedding", "RowwiseParallel nn.Embedding equals F.embedding, with 1 all-reduce",
               ok and efwd.counts == {"all_reduce": 1}, f"{detail}; CommDebugMode {efwd.counts}")


@companion.section("memory", "Memory per rank: T·V/N logits instead of T·V")
def memory(run):
    T, V, D = run.options["tokens"], run.options["vocab"], run.options["width"]
    H, W = (t.to(run.device) for t in drawn(SEED, (T, D), (V, D), dtype=torch.float32))
    z_i, sizes = measure.allocations(lambda: local_logits(H, W, run.rank, run.world))
    kept, largest = measure.storage_bytes(z_i), max(sizes, default=0)
    want = T * (V // run.world) * 4
    run.expect("logits", "computing this rank's logits allocates no tensor above T·V/N·4 bytes, and keeps T·V/N·4",
               largest <= want and kept == want,
               f"largest new tensor {largest} B, kept {kept} B; T·V/N·4 = {T}·{V}/{run.world}·4 = {want} B "
               f"(T·V·4 = {T * V * 4} B on one device)")


@companion.section("drift", "How close is 'the same'? Training with and without loss parallel, fp32 and fp64")
def drift(run):
    """A few SGD steps of an output layer W (V, D) on hidden states H (T, D): the one-device loss
    F.cross_entropy(H W^T) on every rank, and the vocab-parallel one (each rank its rows of W)."""
    T, V, D = run.options["tokens"], run.options["vocab"], run.options["width"]
    steps, lr = run.options["iterations"], run.options["lr"]
    rows = []
    for dtype, first_tol, last_tol in ((torch.float64, 1e-12, 1e-10), (torch.float32, 1e-5, 1e-4)):
        name = str(dtype).removeprefix("torch.")
        g = torch.Generator().manual_seed(SEED)
        H0 = torch.randn(T, D, generator=g, dtype=torch.float64).to(dtype).to(run.device)
        W0 = (torch.randn(V, D, generator=g, dtype=torch.float64) / math.sqrt(D)).to(dtype).to(run.device)
        y = torch.randint(0, V, (T,), generator=g).to(run.device)
        start, end = vocab_range(V, run.rank, run.world)
        H1, W1 = H0.clone().requires_grad_(), W0.clone().requires_grad_()
        H2, W2 = H0.clone().requires_grad_(), W0[start:end].clone().requires_grad_()
        single = train(lambda: backward(F.cross_entropy(H1 @ W1.T, y)), [H1, W1], steps, lr)
        parallel = train(lambda: backward(vp_cross_entropy(CopyToTP.apply(H2, None) @ W2.T, y, start).mean()),
                         [H2, W2], steps, lr)
        diffs = [abs(a - b) for a, b in zip(single, parallel)]
        rows.append({"dtype": name, "single": single, "parallel": parallel, "diff": diffs})
        run.expect(f"{name}", f"{name}: the losses agree to {first_tol:g} at step 1 and {last_tol:g} after {steps} steps",
                   diffs[0] <= first_tol and max(diffs) <= last_tol,
                   "|diff| per step: " + ", ".join(f"{d:.1e}" for d in diffs))
        run.info(f"{name}: one device {fmt(single, 6)}, vocab parallel {fmt(parallel, 6)}")
    run.data("drift", rows)
    a, b, c = SEED_ITER2
    run.info(f"seed 003 at iteration 2 (a whole transformer; the seed names neither its optimizer nor its dtype): "
             f"{a:.5f} / {b:.5f} / {c:.5f}, differences {abs(a - b):.1e} and {abs(b - c):.1e}; one data point, "
             "not a tolerance")
