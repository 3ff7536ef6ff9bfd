"""The f and g operators checked with torch.distributed: the backward pass of the tensor-parallel
MLP and a few training steps of a two-block TP model against one device.

Conventions as in the lesson: X is (T, D) tokens, A is (D, F), B is (F, D); rank i holds
A_i = A[:, block i] and B_i = B[block i, :], block i = i*F/N .. (i+1)*F/N - 1. The block, f, g,
then the local shard, is tp-mlp's (companionkit.mlp.tp_mlp, named tp_block here).
"""
import torch

from companionkit import Companion, examples, measure
from companionkit.formulas import gelu_tanh as gelu_formula, mlp_grads as reference_grads
from companionkit.comparing import compare_all, fmt, max_diff, printed
from companionkit.mlp import expect_grads, gelu, shard, tp_grads, tp_mlp as tp_block
from companionkit.models import dtensor_mlp, expect_dtensor_mlp, sgd_step
from companionkit.shards import block, mlp_weights, seeded
from companionkit.tp import CopyToTP, ReduceFromTP, expect_counts, tp_region  # noqa: F401 (the notebook prints f, g and the region)

# The lesson's worked example (tp-mlp's): one token X = (1, 2), D = 2, F = 4, 2 GPUs, dY = (1, 1).
# (companionkit.examples.mlp; its Y is examples.MLP_Y)
EXAMPLE_DY = [[1.0, 1.0]]
EXAMPLE_SHARES = ((1.083, 1.086), (-0.166, 1.166))  # GPU 0's and GPU 1's dX_i
EXAMPLE_DX = (0.917, 2.252)
EXAMPLE_DB = (((0.841, 0.841), (1.955, 1.955)), ((0.841, 0.841), (0.0, 0.0)))  # rows of dB_i

# Our losses are O(1) and float32 keeps ~7 digits (eps 1.2e-7): 1e-5 relative, about 80 eps, leaves
# room for sums taken in another order at every step.
LOSS_RTOL = 1e-5
SEED = 0

companion = Companion(__name__, lesson="fg-backward", options={
    "tokens": 8, "width": 16, "hidden": 64, "steps": 5, "lr": 0.05})


# ---- the checks --------------------------------------------------------------------------------

@companion.section("example", "The lesson's worked example backwards (ranks 0 and 1 are GPU 0 and GPU 1)")
def example(run):
    keys = [("Y", "forward: g's all-reduce gives Y = (1.682, 2.796)"),
            ("shares", "each GPU's own dX_i is (1.083, 1.086) and (−0.166, 1.166)"),
            ("dX", "f's backward all-reduce gives dX = (0.917, 2.252) on both GPUs"),
            ("dB", "each GPU's dB_i holds its rows of dB: (0.841, 0.841), (1.955, 1.955) | (0.841, 0.841), (0, 0)")]
    group = run.example_group(keys)
    if group is None:
        return
    X, A, B = examples.mlp(run.device)
    A_i, B_i = (t.to(run.device) for t in shard(A, B, run.rank, 2))
    dY = torch.tensor(EXAMPLE_DY, dtype=torch.float64, device=run.device)
    Y = tp_block(X, A_i, B_i, group=group)
    # Without f, X's gradient on a rank is only what flows back through its own shard.
    share = tp_grads(X, A_i, B_i, dY, with_f=False, group=group)[0]
    dX, _, dB_i = tp_grads(X, A_i, B_i, dY, group=group)
    (key_y, t_y), (key_s, t_s), (key_x, t_x), (key_b, t_b) = keys
    run.expect(key_y, t_y, printed(Y, [examples.MLP_Y]), f"all_reduce gave {fmt(Y)}")
    examples.expect_per_gpu(run, key_s, t_s, share, EXAMPLE_SHARES, group)
    run.expect(key_x, t_x, printed(dX, [EXAMPLE_DX]), f"this rank's dX {fmt(dX)}")
    examples.expect_per_gpu(run, key_b, t_b, dB_i, EXAMPLE_DB, group)


@companion.section("grads", "Backward with f and g: each rank's dA_i, dB_i are its slices, dX is whole (fp64)")
def grads(run):
    T, D, FF = run.options["tokens"], run.options["width"], run.options["hidden"]
    dev = run.device
    A, B = mlp_weights(D, FF, SEED)
    X, G = seeded(T, D, seed=SEED + 2).to(dev), seeded(T, D, seed=SEED + 3).to(dev)
    expect_grads(run, A, B, X, G)

    # bf16: the same backward on bf16 shards against fp64 gradients of the same rounded tensors,
    # allowed 16 bf16 eps of each gradient's magnitude (two GEMMs, GeLU' and the all-reduce round).
    title = "bf16: dA_i, dB_i and dX within 16 bf16 eps · their magnitude of fp64 gradients of the same inputs"
    if not run.has_bf16("bf16", title):
        return
    Ab, Bb, Xb, Gb = (t.to(torch.bfloat16) for t in (A, B, X, G))
    dXb, dAb, dBb = reference_grads(Xb.double(), Ab.double().to(dev), Bb.double().to(dev), Gb.double())
    dX, dA_i, dB_i = tp_grads(Xb, *(t.to(dev) for t in shard(Ab, Bb, run.rank, run.world)), Gb)
    cols = block(FF, run.rank, run.world)
    ok, detail = compare_all([("dA_i", dA_i, dAb[:, cols]), ("dB_i", dB_i, dBb[cols, :]), ("dX", dX, dXb)], ulps=16)
    run.expect("bf16", title, ok and dX.dtype == torch.bfloat16, detail)


def two_blocks(X, params, group=None):
    """The model trained below: two MLP blocks one after the other, each with its f and g."""
    A0, B0, A1, B1 = params
    return tp_block(tp_block(X, A0, B0, group=group), A1, B1, group=group)


@companion.section("training", "A two-block TP model trained for a few steps against one device (fp32)")
def training(run):
    T, D, FF = run.options["tokens"], run.options["width"], run.options["hidden"]
    steps, lr = run.options["steps"], run.options["lr"]
    dev, cols = run.device, block(FF, run.rank, run.world)
    full = [w.to(dev) for seed in (SEED + 10, SEED + 20) for w in mlp_weights(D, FF, seed, torch.float32)]
    X = seeded(T, D, seed=SEED + 4, dtype=torch.float32).to(dev)
    target = seeded(T, D, seed=SEED + 5, dtype=torch.float32).to(dev)

    # One device: the unsplit weights with the lesson's GeLU formula, trained with plain SGD.
    one = [w.clone().requires_grad_() for w in full]
    # N ranks: each holds its shards A_i, B_i of both blocks.
    mine = [t.clone().requires_grad_() for A, B in (full[0:2], full[2:4]) for t in shard(A, B, run.rank, run.world)]

    loss_gap, grad_gap, one_losses = 0.0, 0.0, []
    for _ in range(steps):
        Y1 = gelu_formula(gelu_formula(X @ one[0]) @ one[1] @ one[2]) @ one[3]
        loss1 = ((Y1 - target) ** 2).mean()
        loss1.backward()
        loss = ((two_blocks(X, mine) - target) ** 2).mean()
        loss.backward()
        one_losses.append(loss1.item())
        loss_gap = max(loss_gap, abs(loss.item() - loss1.item()) / max(1.0, abs(loss1.item())))
        for p, q, part in zip(mine, one, [(slice(None), cols), (cols, slice(None))] * 2):
            grad_gap = max(grad_gap, max_diff(p.grad, q.grad[part]) / max(1e-12, q.grad.abs().max().item()))
        sgd_step(mine, lr)
        with torch.no_grad():
            for q in one:
                q -= lr * q.grad
                q.grad = None
    run.info("one-device losses per iteration: " + ", ".join(f"{v:.6f}" for v in one_losses))
    run.expect("loss", f"the TP loss equals the one-device loss at every iteration (relative {LOSS_RTOL:g})",
               loss_gap <= LOSS_RTOL, f"largest relative difference over {steps} iterations {loss_gap:.1e}")
    run.expect("grads", "at every iteration each rank's gradients are the slices of the one-device gradients",
               grad_gap <= 1e-5, f"largest difference, relative to each gradient's max, {grad_gap:.1e}")
    gaps = [max_diff(p, q[part]) for p, q, part in zip(mine, one, [(slice(None), cols), (cols, slice(None))] * 2)]
    run.expect("weights", "after training, each rank's shards are the slices of the one-device weights",
               max(gaps) <= 1e-5, f"largest |difference| {max(gaps):.1e} (allowed 1e-5)")


@companion.section("comm", "Communication: one all-reduce forward (g), one backward (f), none for the weights")
def comm(run):
    T, D, FF = run.options["tokens"], run.options["width"], run.options["hidden"]
    dev = run.device
    A, B = mlp_weights(D, FF, SEED, torch.float32)
    X = seeded(T, D, seed=SEED + 2, dtype=torch.float32).to(dev).requires_grad_()
    A_i, B_i = (t.to(dev).requires_grad_() for t in shard(A, B, run.rank, run.world))
    _, fwd, bwd = measure.passes(lambda: tp_block(X, A_i, B_i))
    expect_counts(run, "counts", "CommDebugMode: exactly 1 all-reduce in the forward pass and 1 in the backward pass",
                  fwd, bwd, {"all_reduce": 1}, {"all_reduce": 1})
    shapes = [tuple(c.shape) for c in fwd.calls + bwd.calls]
    run.expect("sizes", "each carries T·D elements (Y, then dL/dX); nothing of a weight's shape is sent",
               shapes == [(T, D), (T, D)], f"the collectives received tensors of shapes {shapes}; T·D = {T}·{D}")


@companion.section("dtensor", "PyTorch's ColwiseParallel/RowwiseParallel: same gradients, same two all-reduces")
def dtensor(run):
    T, D, FF = run.options["tokens"], run.options["width"], run.options["hidden"]
    dev = run.device
    A, B = mlp_weights(D, FF, SEED)
    X, G = seeded(T, D, seed=SEED + 2).to(dev), seeded(T, D, seed=SEED + 3).to(dev)
    _, _, fwd, bwd = expect_dtensor_mlp(run, A, B, gelu, X, G)
    expect_counts(run, "counts", "with an input that requires grad: 1 all-reduce forward, 1 backward",
                  fwd, bwd, {"all_reduce": 1}, {"all_reduce": 1})

    # An input that needs no gradient (the model's first layer, say): f's all-reduce is skipped.
    model = dtensor_mlp(dev, run.world, A, B, gelu)
    Y = model(X.clone())
    _, bwd = measure.collectives(lambda: (Y * G).sum().backward())
    run.expect("no-input-grad", "with an input that does not require grad the backward pass has no all-reduce",
               bwd.counts.get("all_reduce", 0) == 0, f"backward {bwd.counts}")
