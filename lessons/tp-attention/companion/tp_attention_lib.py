"""Tensor-parallel self-attention checked with torch.distributed: Q, K, V column-parallel (whole
heads per rank), the output projection row-parallel, one all-reduce per pass.

Conventions as in the lesson: X is (T, D) tokens, Wq, Wk, Wv, Wo are (D, D),
out = concat_h(softmax(Q_h K_hᵀ/√d_head) V_h) Wo, causal.
Rank i holds heads i·H/N … (i+1)·H/N − 1: columns block i of Wq, Wk, Wv and rows block i of Wo.
The block itself (shard, heads, partial_attention, tp_attention) is companionkit.attention, which
tp-cost runs inside its layer.
"""
import torch

from companionkit import Companion, compare, examples, measure
from companionkit.attention import partial_attention, shard, tp_attention
from companionkit.comparing import compare_all, expect_in, max_diff, printed
from companionkit.formulas import attention, with_grads
from companionkit.models import Attention, tensor_parallel, with_weights
from companionkit.shards import block, drawn, seeded
from companionkit.tp import expect_count, tp_region  # noqa: F401 (the notebook prints the region)

# The lesson's worked example: T = 3, D = 4, 2 heads, Wq = Wk = Wv = I, on 2 GPUs.
EXAMPLE_X = [[1.0, 0.0, 0.0, 2.0], [0.0, 2.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]
EXAMPLE_WO = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
EXAMPLE_HEADS = 2
EXAMPLE_Y = ((1.0, 0.0, 3.0, 2.0), (0.726, 2.558, 0.716, 2.549), (1.198, 1.802, 1.802, 2.407))
EXAMPLE_PARTIALS = (((1.0, 0.0, 1.0, 0.0), (0.056, 1.888, 0.056, 1.888), (0.599, 1.203, 0.599, 1.203)),
                    ((0.0, 0.0, 2.0, 2.0), (0.670, 0.670, 0.660, 0.660), (0.599, 0.599, 1.203, 1.203)))

# The lesson's counts: per transformer layer 2 all-reduces forward and 2 backward, one of each
# for the attention block.
LESSON_FORWARD = {"all_reduce": 1}
LESSON_BACKWARD = {"all_reduce": 1}
# PyTorch's plan makes wq, wk, wv three ColwiseParallel modules: each all-reduces the gradient of
# its own input, 3 in the backward pass (Megatron-LM fuses them into one GEMM and pays one).
PLAN_FORWARD = {"all_reduce": 1}
PLAN_BACKWARD = {"all_reduce": 3}
SEED = 0

companion = Companion(__name__, lesson="tp-attention", options={"tokens": 8, "width": 32, "heads": 8})


# ---- the subject -------------------------------------------------------------------------------

def dtensor_attention(device, world, W, d_head):
    """The block as torch modules (companionkit.models.Attention, tp-transformer's) sharded by
    PyTorch's tensor-parallel API, the plan of its TP tutorial."""
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

    plan = {"wq": ColwiseParallel(), "wk": ColwiseParallel(), "wv": ColwiseParallel(), "wo": RowwiseParallel()}
    D = W[0].shape[0]
    whole = with_weights(Attention(D, D // d_head, dtype=W[0].dtype), dict(zip(("wq", "wk", "wv", "wo"), W)))
    return tensor_parallel(whole, device, world, plan)


# ---- what to expect: plain torch on the full tensors ------------------------------------------

def full_weights(d, dtype=torch.float64, seed=SEED):
    """Wq, Wk, Wv, Wo from one seed, identical on every rank and device (drawn on CPU)."""
    return tuple(drawn(seed, *[(d, d)] * 4, fan_in=True, dtype=dtype))


def sizes(run):
    T, D, H = run.options["tokens"], run.options["width"], run.options["heads"]
    return T, D, H, D // H


# ---- the checks --------------------------------------------------------------------------------

@companion.section("example", "The worked example on 2 ranks: T = 3, D = 4, 2 heads")
def example(run):
    titles = {"partials": "each rank's partial output is the lesson's Y_i",
              "Y": "the all-reduce of the partials is the lesson's Y"}
    group = run.example_group(titles.items())
    if group is None:
        return
    X, Wo = (torch.tensor(v, dtype=torch.float64, device=run.device) for v in (EXAMPLE_X, EXAMPLE_WO))
    I = torch.eye(4, dtype=torch.float64, device=run.device)
    mine = shard((I, I, I, Wo), EXAMPLE_HEADS, run.rank, 2)
    examples.expect_per_gpu(run, "partials", titles["partials"], partial_attention(X, mine, 4 // EXAMPLE_HEADS),
                            EXAMPLE_PARTIALS, group)
    Y = tp_attention(X, mine, 4 // EXAMPLE_HEADS, group)
    run.expect("Y", titles["Y"], printed(Y, EXAMPLE_Y), f"max |Y - lesson| = {max_diff(Y, EXAMPLE_Y):.1e}; first row {Y[0].tolist()}")


@companion.section("forward", "Forward: heads split over the ranks, one all-reduce, against one device")
def forward(run):
    T, D, H, d = sizes(run)
    title = "the TP output equals the unsplit attention (fp64)"
    if not run.divides(H, "heads", [("output", title)]):
        return
    W = tuple(m.to(run.device) for m in full_weights(D))
    X = seeded(T, D, seed=SEED + 1).to(run.device)
    Y = tp_attention(X, shard(W, H, run.rank, run.world), d)
    run.expect("output", title, *compare(Y, attention(X, *W, H)))
    # fp32 and bf16: the TP output on rounded inputs against the fp64 reference of the same inputs,
    # allowed 64 eps (fp32) or 16 eps (bf16: its roundings of the scores, softmax and products) of max|Y|.
    def rounded(dtype):
        W_low, X_low = [m.to(dtype) for m in W], X.to(dtype)
        return (tp_attention(X_low, shard(W_low, H, run.rank, run.world), d),
                attention(X_low.double(), *(m.double() for m in W_low), H))

    for dtype, key, ulps in ((torch.float32, "fp32", 64), (torch.bfloat16, "bf16", 16)):
        expect_in(run, key, f"{key}: the TP output within {ulps} {key} eps · max|Y| of fp64 attention on the same inputs",
                  dtype, rounded, ulps)


def full_grads(run, W, X, H, dY):
    """The unsplit attention's dL/dW (rank's blocks: columns of Wq, Wk, Wv, rows of Wo) and dL/dX."""
    Y, (dX, dWq, dWk, dWv, dWo) = with_grads(lambda X, *W: attention(X, *W, H), (X, *W), dY)
    cols = block(X.shape[1], run.rank, run.world)
    return Y, [dWq[:, cols], dWk[:, cols], dWv[:, cols], dWo[cols, :]], dX


@companion.section("backward", "Backward: every rank's weight gradients are its block of the full ones")
def backward(run):
    T, D, H, d = sizes(run)
    if not run.divides(H, "heads", [("grads", "dWq_i, dWk_i, dWv_i, dWo_i are rank i's blocks of the full gradients")]):
        return
    W = tuple(m.to(run.device) for m in full_weights(D))
    X, dY = seeded(T, D, seed=SEED + 1).to(run.device), seeded(T, D, seed=SEED + 2).to(run.device)
    _, wants, dX = full_grads(run, W, X, H, dY)
    mine = tuple(m.requires_grad_() for m in shard(W, H, run.rank, run.world))
    Xt = X.clone().requires_grad_()
    tp_attention(Xt, mine, d).backward(dY)
    run.expect("grads", "dWq_i, dWk_i, dWv_i, dWo_i are rank i's blocks of the full gradients",
               *compare_all(zip(("dWq", "dWk", "dWv", "dWo"), (m.grad for m in mine), wants)))
    run.expect("dX", "dL/dX after f's all-reduce equals the unsplit dL/dX", *compare(Xt.grad, dX))


@companion.section("comm", "Collectives counted with CommDebugMode against the lesson's numbers")
def comm(run):
    T, D, H, d = sizes(run)
    if not run.divides(H, "heads", [("forward", "forward: one all-reduce (g), as the lesson counts"),
                            ("backward", "backward: one all-reduce (f), as the lesson counts")]):
        return
    W = tuple(m.to(run.device) for m in full_weights(D))
    mine = tuple(m.requires_grad_() for m in shard(W, H, run.rank, run.world))
    X = seeded(T, D, seed=SEED + 1).to(run.device).requires_grad_()
    _, fwd, bwd = measure.passes(lambda: tp_attention(X, mine, d))
    run.expect("forward", "forward: one all-reduce (g), as the lesson counts", fwd.counts == LESSON_FORWARD,
               f"counted {fwd.counts}, lesson {LESSON_FORWARD}; {[(c.op, c.shape) for c in fwd.calls]}")
    expect_count(run, "backward", "backward: one all-reduce (f), as the lesson counts", bwd, LESSON_BACKWARD)
    payload = fwd.calls[0].nbytes if fwd.calls else 0
    run.info(f"the forward all-reduce carries the whole (T, D) = ({T}, {D}) output: {payload} bytes per rank")


@companion.section("plan", "PyTorch's TP API: ColwiseParallel for wq, wk, wv and RowwiseParallel for wo")
def plan(run):
    T, D, H, d = sizes(run)
    titles = {"output": "parallelize_module's output and input gradient equal the unsplit ones",
              "grads": "its sharded weight gradients are the blocks of the full ones",
              "counts": "CommDebugMode: forward {all_reduce: 1}, backward {all_reduce: 3}"}
    if not run.divides(H, "heads", titles.items()):
        return
    W = tuple(m.to(run.device) for m in full_weights(D))
    X = seeded(T, D, seed=SEED + 1).to(run.device)
    expected, wants, dX = full_grads(run, W, X, H, torch.ones_like(X))
    model = dtensor_attention(run.device, run.world, W, d)
    Xt = X.clone().requires_grad_()
    Y, fwd, bwd = measure.passes(lambda: model(Xt))
    run.expect("output", titles["output"], *compare_all([("output", Y, expected), ("dX", Xt.grad, dX)]))
    # nn.Linear keeps weight as W.T: ColwiseParallel shards its rows (W's columns), RowwiseParallel
    # its columns (W's rows), so rank i's local gradient is its block of dW, transposed.
    got = [getattr(model, name).weight.grad.to_local().T for name in ("wq", "wk", "wv", "wo")]
    run.expect("grads", titles["grads"], *compare_all(zip(("wq", "wk", "wv", "wo"), got, wants)))
    run.expect("counts", titles["counts"], fwd.counts == PLAN_FORWARD and bwd.counts == PLAN_BACKWARD,
               f"forward {fwd.counts}, backward {bwd.counts}; the lesson's Megatron-LM block: "
               f"forward {LESSON_FORWARD}, backward {LESSON_BACKWARD} (Q, K, V fused)")


@companion.section("memory", "Weight memory per rank: 1/N of the block's weights")
def memory(run):
    T, D, H, d = sizes(run)
    title = "each rank stores 1/N of Wq, Wk, Wv, Wo"
    if not run.divides(H, "heads", [("weights", title)]):
        return
    W = full_weights(D)
    measure.expect_share(run, "weights", title, lambda: shard(W, H, run.rank, run.world), measure.storage_bytes(*W))
