"""The tensor-parallel MLP Y = GeLU(XA)B checked with torch.distributed.

One module for both front ends: `companion.ipynb` spawns worker processes that run `worker`, and
`tp_mlp_check.py` (under torchrun) calls `run_checks` directly, so the notebook and the script can
never check different things.

Conventions: X is (T, D) tokens, A is (D, F), B is (F, D). Rank i holds A_i = A[:, block i] and
B_i = B[block i, :], with block i = columns/rows i*F/N .. (i+1)*F/N - 1, as in the lesson.
"""

import json
import math
import os
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn.functional as F

# The lesson's worked example: one token, D = 2, F = 4, split over 2 GPUs.
EXAMPLE_X = [[1.0, 2.0]]
EXAMPLE_A = [[1.0, 0.0, -1.0, 2.0], [0.0, 1.0, 1.0, -1.0]]
EXAMPLE_B = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]
EXAMPLE_Y = (1.682, 2.796)
EXAMPLE_PARTIALS = ((0.841, 1.955), (0.841, 0.841))

# The row-split counterexample: y = xW with W cut by rows between two GPUs.
ROW_X = [1.0, 2.0, -1.0, 3.0]
ROW_W = [[2.0, -1.0], [1.0, 2.0], [3.0, 0.0], [-2.0, 1.0]]
ROW_PARTIALS = ([4.0, 3.0], [-9.0, 3.0])
ROW_SUM = [-5.0, 6.0]
ROW_RELU_AFTER = [0.0, 6.0]
ROW_RELU_BEFORE = [4.0, 6.0]

# Megatron-LM (Shoeybi et al. 2019, appendix D.2): strong-scaling speedup on 1/2/4/8 GPUs.
MEGATRON_SPEEDUP = {1: 1.0, 2: 1.64, 4: 2.34, 8: 2.98}

# Shapes of the correctness checks: small so that CI on two CPU cores stays fast, F divisible
# by every N up to 8.
T, D, FF = 8, 32, 128
SEED = 0

# bf16 keeps 8 significant bits (eps = 2**-7). Each rank rounds its partial output to bf16 and the
# all-reduce adds in bf16, so TP and unsplit bf16 results may differ by a few units of eps times
# the output's magnitude: we allow 4 eps relative to max|Y|.
BF16_ULPS = 4


@dataclass
class Ctx:
    rank: int
    world: int
    device: torch.device
    echo: bool  # print lines as they come (torchrun) or only return them (notebook)


class Report:
    """Rank 0's record of every check; each verdict is agreed by all ranks."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.checks = []  # {"number", "name", "passed", "lines"}
        self.timing = []  # rows of check 8
        self.bf16_errors = []  # rows of check 2's bf16 table
        self._number = None
        self._pending = []
        self.titles = {}  # check number -> title

    def section(self, number, title):
        self._number = number
        self.titles[number] = title
        if self.ctx.rank == 0 and self.ctx.echo:
            print(f"\n== Check {number}: {title} ==", flush=True)

    def say(self, text):
        """A line of rank 0's output; it is filed with the next verdict."""
        if self.ctx.rank != 0:
            return
        if self.ctx.echo:
            print(text, flush=True)
        self._pending.append(text)

    def check(self, name, ok, compared):
        """Record one verdict: it passes only if it passed on every rank."""
        passed = agree(ok, self.ctx)
        self.say(f"{'PASS' if passed else 'FAIL'}  {name}: {compared}")
        if self.ctx.rank == 0:
            self.checks.append({"number": self._number, "name": name, "passed": passed, "lines": self._pending})
            self._pending = []
        return passed

    def to_dict(self):
        return {"world": self.ctx.world, "device": str(self.ctx.device), "titles": {str(k): v for k, v in self.titles.items()}, "checks": self.checks,
                "timing": self.timing, "bf16_errors": self.bf16_errors}


def agree(ok, ctx):
    """True only if `ok` is true on every rank (a MIN all-reduce of 0/1)."""
    flag = torch.tensor([1 if ok else 0], dtype=torch.int32, device=ctx.device)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def max_diff(a, b):
    return (a.double() - b.double()).abs().max().item()


def fmt(t, digits=3):
    """A tensor as a short tuple of rounded numbers, for the printed comparisons."""
    values = [round(v, digits) + 0.0 for v in t.detach().double().flatten().tolist()]
    return "(" + ", ".join(f"{v:.{digits}f}" for v in values) + ")"


def ints(t):
    """Whole numbers as the lesson writes them: [4, 3], not [4.0, 3.0]."""
    return "[" + ", ".join(f"{v:g}" for v in t.tolist()) + "]"


def close(actual, expected, **tolerances):
    """torch.testing.assert_close as a boolean, with PyTorch's defaults unless told otherwise."""
    try:
        torch.testing.assert_close(actual, expected, **tolerances)
        return True
    except AssertionError:
        return False


# ---- the model ---------------------------------------------------------------------------------


def gelu_formula(x):
    """The lesson's GPT-2 GeLU: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def full_weights(d, f, dtype=torch.float64, seed=SEED):
    """One full A and B from one seed, identical on every rank (generated on CPU, so the same
    numbers whatever the device)."""
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(d, f, generator=g, dtype=torch.float64) / math.sqrt(d)
    B = torch.randn(f, d, generator=g, dtype=torch.float64) / math.sqrt(f)
    return A.to(dtype), B.to(dtype)


def inputs(t, d, dtype=torch.float64, seed=SEED + 1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(t, d, generator=g, dtype=torch.float64).to(dtype)


def block(f, rank, world):
    """The slice of the hidden dimension F that `rank` owns."""
    size = f // world
    return slice(rank * size, (rank + 1) * size)


def shard(A, B, rank, world, device):
    """Rank's own A_i (columns) and B_i (rows), cloned so that they hold only 1/N of the storage:
    a slice alone is a view that keeps the whole matrix alive (even B's row block, which is
    already contiguous)."""
    cols = block(A.shape[1], rank, world)
    own = dict(memory_format=torch.contiguous_format)
    return A[:, cols].clone(**own).to(device), B[cols, :].clone(**own).to(device)


def reference_mlp(X, A, B):
    return F.gelu(X @ A, approximate="tanh") @ B


def partial_mlp(X, A_i, B_i):
    """What one rank computes from its shard alone: Y_i = GeLU(X A_i) B_i."""
    return F.gelu(X @ A_i, approximate="tanh") @ B_i


# ---- f and g, Megatron-LM's conjugate operators -------------------------------------------------

# Every all-reduce of the f/g model goes through here, so check 6 can count calls and bytes.
COMM_LOG = []


def all_reduce_sum(t):
    COMM_LOG.append((tuple(t.shape), t.numel(), t.numel() * t.element_size()))
    dist.all_reduce(t)
    return t


class CopyToTP(torch.autograd.Function):
    """f: identity forward; all-reduce backward. Each rank's dX covers only its columns of A, so
    the true dX is the sum over ranks."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return all_reduce_sum(grad.clone())


class ReduceFromTP(torch.autograd.Function):
    """g: all-reduce forward; identity backward. Every rank gets the full Y, and the gradient of
    a sum with respect to each term is the incoming gradient itself."""

    @staticmethod
    def forward(ctx, y_partial):
        return all_reduce_sum(y_partial.clone())

    @staticmethod
    def backward(ctx, grad):
        return grad


def tp_mlp(X, A_i, B_i, with_f=True):
    """The Megatron-LM MLP on one rank: f, then the local shard, then g."""
    x = CopyToTP.apply(X) if with_f else X
    return ReduceFromTP.apply(partial_mlp(x, A_i, B_i))


# ---- the checks --------------------------------------------------------------------------------


def check_lesson_numbers(ctx, rep):
    rep.section(1, "the lesson's numbers, with torch")
    dev = ctx.device
    X = torch.tensor(EXAMPLE_X, dtype=torch.float64, device=dev)
    A = torch.tensor(EXAMPLE_A, dtype=torch.float64)
    B = torch.tensor(EXAMPLE_B, dtype=torch.float64)
    Y = reference_mlp(X, A.to(dev), B.to(dev))
    rep.check("unsplit Y = GeLU(XA)B", fmt(Y) == fmt(torch.tensor(EXAMPLE_Y)),
              f"torch {fmt(Y)} vs lesson {EXAMPLE_Y}")
    for gpu, expected in enumerate(EXAMPLE_PARTIALS):
        Y_i = partial_mlp(X, *shard(A, B, gpu, 2, dev))
        rep.check(f"GPU{gpu} partial Y_{gpu} (2-way split)", fmt(Y_i) == fmt(torch.tensor(expected)),
                  f"torch {fmt(Y_i)} vs lesson {expected}")
    if A.shape[1] % ctx.world == 0:
        # The same example with a real all-reduce over this run's ranks.
        Y_i = partial_mlp(X, *shard(A, B, ctx.rank, ctx.world, dev))
        parts = [torch.empty_like(Y_i) for _ in range(ctx.world)]
        dist.all_gather(parts, Y_i)
        Y_tp = all_reduce_sum(Y_i.clone())
        rep.say("partials per rank: " + ", ".join(fmt(p) for p in parts))
        rep.check("all_reduce of the partials over all N ranks", max_diff(Y_tp, Y) < 1e-12,
                  f"N = {ctx.world}: {fmt(Y_tp)} vs unsplit {fmt(Y)}, max |diff| {max_diff(Y_tp, Y):.1e}")
    x = torch.linspace(-6, 6, 1201, dtype=torch.float64, device=dev)
    diff = max_diff(F.gelu(x, approximate="tanh"), gelu_formula(x))
    rep.check("F.gelu(approximate='tanh') = lesson formula", diff < 1e-12,
              f"max |diff| on [-6, 6], fp64: {diff:.1e}; GeLU(1) = {gelu_formula(torch.tensor(1.0)).item():.3f}, "
              f"GeLU(0) = {gelu_formula(torch.tensor(0.0)).item():.3f}")
    one = gelu_formula(torch.tensor(1.0, dtype=torch.float64))
    two = gelu_formula(torch.tensor(2.0, dtype=torch.float64))
    rep.check("GeLU(1+1) != GeLU(1)+GeLU(1)", f"{two.item():.3f}" == "1.955" and f"{2 * one.item():.3f}" == "1.682",
              f"GeLU(2) = {two.item():.3f}, 2*GeLU(1) = {2 * one.item():.3f}")


def check_forward(ctx, rep):
    rep.section(2, "forward: all_reduce of Y_i equals the unsplit GeLU(XA)B")
    dev = ctx.device
    A64, B64 = full_weights(D, FF)
    X64 = inputs(T, D)
    truth = reference_mlp(X64, A64, B64)
    for dtype, rule in ((torch.float64, "max |diff| <= 1e-12"), (torch.float32, "assert_close defaults")):
        A, B, X = A64.to(dtype), B64.to(dtype), X64.to(dtype).to(dev)
        Y_ref = reference_mlp(X, A.to(dev), B.to(dev))
        Y_tp = tp_mlp(X, *shard(A, B, ctx.rank, ctx.world, dev))
        ok = max_diff(Y_tp, Y_ref) <= 1e-12 if dtype == torch.float64 else close(Y_tp, Y_ref)
        rep.check(f"{str(dtype)[6:]} TP vs unsplit ({rule})", ok,
                  f"max |diff| {max_diff(Y_tp, Y_ref):.2e}, bitwise equal: {torch.equal(Y_tp, Y_ref)}")

    # Column-parallel half: each entry of XA_i is the same dot product over D, in the same order,
    # as the matching entry of XA; no sum crosses a rank boundary.
    A, X = A64.float(), X64.float().to(dev)
    cols = block(FF, ctx.rank, ctx.world)
    H_full = F.gelu(X @ A.to(dev), approximate="tanh")[:, cols]
    H_i = F.gelu(X @ A[:, cols].contiguous().to(dev), approximate="tanh")
    rep.check("fp32 column half GeLU(X A_i) bitwise equal to GeLU(XA)[:, block i]", torch.equal(H_i, H_full),
              f"max |diff| {max_diff(H_i, H_full):.1e}")
    # Row-parallel half: the unsplit matmul adds F products in one pass; TP adds F/N per rank and
    # then the N partials. Floating-point addition is not associative, so only closeness holds.
    B = B64.float()
    H = F.gelu(X @ A.to(dev), approximate="tanh")
    Y_ref = H @ B.to(dev)
    Y_tp = all_reduce_sum(H[:, cols] @ B[cols, :].to(dev))
    rep.say(f"fp32 row half: max |diff| {max_diff(Y_tp, Y_ref):.2e}, bitwise equal: {torch.equal(Y_tp, Y_ref)} "
            "(the sum over F is grouped differently: per block, then across ranks)")

    # bf16: compare with the fp64 truth, for the unsplit model and for splits into N = 1..8.
    bf = torch.bfloat16
    A, B, X = A64.to(bf), B64.to(bf), X64.to(bf).to(dev)
    Y_unsplit = reference_mlp(X, A.to(dev), B.to(dev))
    Y_tp = tp_mlp(X, *shard(A, B, ctx.rank, ctx.world, dev))
    scale = truth.abs().max().item()
    tol = BF16_ULPS * torch.finfo(bf).eps * scale
    for n in (1, 2, 4, 8):
        # One process adds the N bf16 partials in rank order, as a bf16 all-reduce would.
        Y_n = sum(partial_mlp(X, *shard(A, B, i, n, dev)) for i in range(n))
        rep.bf16_errors.append({"N": n, "kind": "simulated", "max_err": max_diff(Y_n, truth.to(dev))})
    rep.bf16_errors.append({"N": ctx.world, "kind": "all_reduce", "max_err": max_diff(Y_tp, truth.to(dev))})
    rep.bf16_errors.append({"N": 1, "kind": "unsplit", "max_err": max_diff(Y_unsplit, truth.to(dev))})
    rep.say("bf16 max |error| against the fp64 result (max |Y| = %.3f):" % scale)
    rep.say("  N  how            max |err|")
    for row in rep.bf16_errors:
        rep.say(f"  {row['N']:<2} {row['kind']:<14} {row['max_err']:.2e}")
    rep.say("Each rank rounds its partial to bf16 before the sum, and every addition of the all-reduce "
            "rounds again, so more ranks mean more roundings and a different order of additions.")
    ok = max_diff(Y_tp, Y_unsplit) <= tol
    rep.check(f"bf16 TP vs unsplit bf16 (|diff| <= {BF16_ULPS} eps * max|Y| = {tol:.3f})", ok,
              f"max |diff| {max_diff(Y_tp, Y_unsplit):.2e}")


def check_backward(ctx, rep):
    rep.section(3, "backward with f and g")
    dev = ctx.device
    A, B = full_weights(D, FF)
    X = inputs(T, D).to(dev)
    G = inputs(T, D, seed=SEED + 2).to(dev)  # the gradient arriving from the next layer
    cols = block(FF, ctx.rank, ctx.world)

    Xr, Ar, Br = (t.clone().to(dev).requires_grad_() for t in (X, A, B))
    (reference_mlp(Xr, Ar, Br) * G).sum().backward()

    results = {}
    for with_f in (True, False):
        Xt = X.clone().requires_grad_()
        A_i, B_i = (t.requires_grad_() for t in shard(A, B, ctx.rank, ctx.world, dev))
        (tp_mlp(Xt, A_i, B_i, with_f=with_f) * G).sum().backward()
        results[with_f] = (Xt.grad, A_i.grad, B_i.grad)

    dX, dA_i, dB_i = results[True]
    rep.check("with f: dA_i = dA[:, block i] on every rank", close(dA_i, Ar.grad[:, cols]),
              f"max |diff| {max_diff(dA_i, Ar.grad[:, cols]):.1e}")
    rep.check("with f: dB_i = dB[block i, :] on every rank", close(dB_i, Br.grad[cols, :]),
              f"max |diff| {max_diff(dB_i, Br.grad[cols, :]):.1e}")
    rep.check("with f: dX = reference dX on every rank", close(dX, Xr.grad),
              f"max |diff| {max_diff(dX, Xr.grad):.1e}")

    dX, dA_i, dB_i = results[False]
    rep.check("without f: dA_i, dB_i still right", close(dA_i, Ar.grad[:, cols]) and close(dB_i, Br.grad[cols, :]),
              f"max |diff| {max(max_diff(dA_i, Ar.grad[:, cols]), max_diff(dB_i, Br.grad[cols, :])):.1e}")
    summed = all_reduce_sum(dX.clone())
    rep.check("without f: dX is wrong (only this rank's share)", not close(dX, Xr.grad) and close(summed, Xr.grad),
              f"max |dX - reference| {max_diff(dX, Xr.grad):.2e}; after summing over ranks "
              f"{max_diff(summed, Xr.grad):.1e}. The layer before would train on a partial gradient.")


class MLP(torch.nn.Module):
    """The same MLP as torch modules; nn.Linear stores weight as (out, in), i.e. A.T and B.T."""

    def __init__(self, A, B):
        super().__init__()
        self.up = torch.nn.Linear(A.shape[0], A.shape[1], bias=False, dtype=A.dtype)
        self.down = torch.nn.Linear(B.shape[0], B.shape[1], bias=False, dtype=B.dtype)
        with torch.no_grad():
            self.up.weight.copy_(A.T)
            self.down.weight.copy_(B.T)

    def forward(self, x):
        return self.down(F.gelu(self.up(x), approximate="tanh"))


def dtensor_mlp(ctx, A, B):
    """The MLP sharded by PyTorch's tensor-parallel API on a 1-D mesh of all ranks."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    mesh = init_device_mesh(ctx.device.type, (ctx.world,), mesh_dim_names=("tp",))
    model = MLP(A, B).to(ctx.device)
    return parallelize_module(model, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})


def check_dtensor(ctx, rep):
    rep.section(4, "PyTorch's tensor-parallel API (ColwiseParallel, RowwiseParallel)")
    dev = ctx.device
    A, B = full_weights(D, FF)
    X = inputs(T, D).to(dev)
    G = inputs(T, D, seed=SEED + 2).to(dev)
    cols = block(FF, ctx.rank, ctx.world)
    Xr, Ar, Br = (t.clone().to(dev).requires_grad_() for t in (X, A, B))
    Y_ref = reference_mlp(Xr, Ar, Br)
    (Y_ref * G).sum().backward()

    model = dtensor_mlp(ctx, A, B)
    Xt = X.clone().requires_grad_()
    Y = model(Xt)
    (Y * G).sum().backward()
    up_local = model.up.weight.to_local()  # (F/N, D): this rank's rows of A.T
    rep.say(f"up.weight {model.up.weight.placements}, local {tuple(up_local.shape)}; "
            f"down.weight {model.down.weight.placements}, local {tuple(model.down.weight.to_local().shape)}")
    rep.check("DTensor output = unsplit Y", close(Y, Y_ref), f"max |diff| {max_diff(Y, Y_ref):.1e}")
    dA_i = model.up.weight.grad.to_local().T
    dB_i = model.down.weight.grad.to_local().T
    rep.check("DTensor local grads = dA[:, block i], dB[block i, :]",
              close(dA_i, Ar.grad[:, cols]) and close(dB_i, Br.grad[cols, :]),
              f"max |diff| {max(max_diff(dA_i, Ar.grad[:, cols]), max_diff(dB_i, Br.grad[cols, :])):.1e}")
    rep.check("DTensor dX = reference dX", close(Xt.grad, Xr.grad), f"max |diff| {max_diff(Xt.grad, Xr.grad):.1e}")
    return model


def check_row_split(ctx, rep):
    rep.section(5, "the row-split counterexample: a nonlinearity must wait for the sum")
    x = torch.tensor(ROW_X, dtype=torch.float64, device=ctx.device)
    W = torch.tensor(ROW_W, dtype=torch.float64, device=ctx.device)
    parts = [x[2 * i:2 * i + 2] @ W[2 * i:2 * i + 2] for i in range(2)]
    rep.check("partials of the two GPUs", [p.tolist() for p in parts] == list(ROW_PARTIALS),
              f"{ints(parts[0])} and {ints(parts[1])} vs lesson [4, 3] and [-9, 3]")
    if len(ROW_X) % ctx.world == 0:
        rows = block(len(ROW_X), ctx.rank, ctx.world)
        total = all_reduce_sum(x[rows] @ W[rows])
        rep.check("all_reduce of row blocks over all N ranks = xW", total.tolist() == ROW_SUM == (x @ W).tolist(),
                  f"N = {ctx.world}: {ints(total)} vs lesson [-5, 6]")
        relu_before = all_reduce_sum(torch.relu(x[rows] @ W[rows]))
        gelu_before = all_reduce_sum(F.gelu(x[rows] @ W[rows], approximate="tanh"))
    else:
        total = parts[0] + parts[1]
        relu_before = torch.relu(parts[0]) + torch.relu(parts[1])
        gelu_before = F.gelu(parts[0], approximate="tanh") + F.gelu(parts[1], approximate="tanh")
    relu_after = torch.relu(total)
    rep.check("ReLU after the sum", relu_after.tolist() == ROW_RELU_AFTER, f"{ints(relu_after)} vs lesson [0, 6]")
    two_way_before = (torch.relu(parts[0]) + torch.relu(parts[1])).tolist()
    rep.check("ReLU before the sum (wrong) on 2 GPUs", two_way_before == ROW_RELU_BEFORE,
              f"{ints(torch.tensor(two_way_before))} vs lesson [4, 6]; over N = {ctx.world} ranks: {ints(relu_before)}")
    gelu_after = F.gelu(total, approximate="tanh")
    rep.check("GeLU: before the sum differs from after", not close(gelu_before, gelu_after),
              f"after {fmt(gelu_after)}, before {fmt(gelu_before)}")


def check_communication(ctx, rep, dtensor_model):
    rep.section(6, "communication in one forward and backward")
    from torch.distributed.tensor.debug import CommDebugMode

    dev = ctx.device
    A, B = full_weights(D, FF, dtype=torch.float32)
    X = inputs(T, D, dtype=torch.float32).to(dev).requires_grad_()
    A_i, B_i = (t.requires_grad_() for t in shard(A, B, ctx.rank, ctx.world, dev))

    def count(run):
        with CommDebugMode() as mode:
            out = run()
        return out, {str(op).split(".")[-1]: n for op, n in mode.get_comm_counts().items()}

    COMM_LOG.clear()
    Y, fwd = count(lambda: tp_mlp(X, A_i, B_i))
    fwd_log = list(COMM_LOG)
    COMM_LOG.clear()
    _, bwd = count(lambda: Y.sum().backward())
    bwd_log = list(COMM_LOG)
    elems = T * D
    rep.say(f"f/g model: forward collectives {fwd}, backward {bwd}; all_reduce sizes forward "
            f"{[n for _, n, _ in fwd_log]}, backward {[n for _, n, _ in bwd_log]} elements")
    rep.check("f/g model: 1 all-reduce forward, 1 backward, T*D elements each",
              sum(fwd.values()) == 1 and sum(bwd.values()) == 1
              and [n for _, n, _ in fwd_log] == [elems] and [n for _, n, _ in bwd_log] == [elems],
              f"forward {sum(fwd.values())}, backward {sum(bwd.values())}, T*D = {T}*{D} = {elems}")

    Xd = inputs(T, D).to(dev).requires_grad_()
    Yd, dfwd = count(lambda: dtensor_model(Xd))
    _, dbwd = count(lambda: Yd.sum().backward())
    rep.check("DTensor model: 1 all-reduce forward, 1 backward (CommDebugMode)",
              dfwd == {"all_reduce": 1} and dbwd == {"all_reduce": 1}, f"forward {dfwd}, backward {dbwd}")

    n = ctx.world
    payload = elems * X.element_size()
    ring = 2 * (n - 1) / n * payload
    rep.say(f"payload T*D*4 bytes = {payload} B; a ring all-reduce sends (and receives) 2(N-1)/N of it per rank: "
            f"2*{n - 1}/{n} * {payload} = {ring:.0f} B, twice per step (forward and backward)")
    sent = [nbytes for _, _, nbytes in fwd_log + bwd_log]
    rep.check("bytes per all-reduce = T*D*element size", sent == [payload, payload], f"{sent} vs {payload} each")


def check_memory(ctx, rep):
    rep.section(7, "memory: each rank holds 1/N of the weights")
    A, B = full_weights(D, FF, dtype=torch.float32)
    whole = A.nbytes + B.nbytes
    if ctx.device.type == "cuda":
        torch.cuda.synchronize(ctx.device)
        torch.cuda.reset_peak_memory_stats(ctx.device)
        before = torch.cuda.memory_allocated(ctx.device)
        A_i, B_i = shard(A, B, ctx.rank, ctx.world, ctx.device)
        held = torch.cuda.max_memory_allocated(ctx.device) - before
        how = "torch.cuda.max_memory_allocated growth"
    else:
        A_i, B_i = shard(A, B, ctx.rank, ctx.world, ctx.device)
        held = A_i.untyped_storage().nbytes() + B_i.untyped_storage().nbytes()
        how = "storage bytes of A_i and B_i"
    cols = block(FF, ctx.rank, ctx.world)
    pinned = A[:, cols].untyped_storage().nbytes() + B[cols, :].untyped_storage().nbytes()
    rep.say(f"full A and B: {whole} B; rank 0 shard: A_i {tuple(A_i.shape)}, B_i {tuple(B_i.shape)}; {how}: {held} B. "
            f"(Plain slices A[:, block], B[block, :] would still pin {pinned} B: views share the full storage.)")
    rep.check("weights per rank = 1/N of the whole", held == whole // ctx.world,
              f"{held} B vs {whole} / {ctx.world} = {whole // ctx.world} B")


def _synced(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def median_ms(step, device, warmup, repeats):
    for _ in range(warmup):
        step()
    _synced(device)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        _synced(device)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def check_timing(ctx, rep, sizes, tokens, warmup, repeats):
    rep.section(8, "timing: median forward and forward+backward after warm-up")
    dev = ctx.device
    finite = True
    for d in sizes:
        f = 4 * d
        A, B = full_weights(d, f, dtype=torch.float32)
        X = inputs(tokens, d, dtype=torch.float32).to(dev)
        A_i, B_i = (t.requires_grad_() for t in shard(A, B, ctx.rank, ctx.world, dev))
        row = {"N": ctx.world, "D": d, "F": f, "T": tokens}
        # The single-device baseline runs on rank 0 alone, with all the cores the N ranks share.
        if ctx.rank == 0:
            Af, Bf = A.to(dev).requires_grad_(), B.to(dev).requires_grad_()
            threads = torch.get_num_threads()
            if dev.type == "cpu":
                torch.set_num_threads(min(threads * ctx.world, os.cpu_count() or 1))
            row["ref_fwd_ms"] = median_ms(lambda: reference_mlp(X, Af, Bf), dev, warmup, repeats)
            row["ref_fwdbwd_ms"] = median_ms(lambda: reference_mlp(X, Af, Bf).sum().backward(), dev, warmup, repeats)
            torch.set_num_threads(threads)
        dist.barrier()
        row["tp_fwd_ms"] = median_ms(lambda: tp_mlp(X, A_i, B_i), dev, warmup, repeats)
        row["tp_fwdbwd_ms"] = median_ms(lambda: tp_mlp(X, A_i, B_i).sum().backward(), dev, warmup, repeats)
        # Every rank's time counts: the step is as slow as the slowest rank.
        slowest = torch.tensor([row["tp_fwd_ms"], row["tp_fwdbwd_ms"]], dtype=torch.float64, device=dev)
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        row["tp_fwd_ms"], row["tp_fwdbwd_ms"] = slowest.tolist()
        if ctx.rank == 0:
            row["speedup_fwdbwd"] = row["ref_fwdbwd_ms"] / row["tp_fwdbwd_ms"]
            finite = finite and all(math.isfinite(v) and v > 0 for k, v in row.items() if k.endswith("_ms"))
            rep.timing.append(row)
    rep.say(timing_table(rep.timing))
    rep.say("Megatron-LM, strong scaling on GPUs: " +
            ", ".join(f"{n} GPU{'s' if n > 1 else ''} {s}x" for n, s in MEGATRON_SPEEDUP.items()))
    if dev.type == "cpu":
        rep.say("On CPU, gloo makes TP slower rather than faster: the unsplit run already uses every core, so "
                "splitting adds no compute, while each all-reduce copies the activations through the loopback "
                "network stack, on the same cores. GPUs gain because each one brings its own compute and "
                "memory, and NVLink makes the all-reduce cheap next to the matmuls.")
    rep.check("timings measured (no speed is asserted: see the table)", finite,
              f"{len(sizes)} sizes, {warmup} warm-up + {repeats} timed steps each")


def timing_table(rows):
    lines = [" N     D     F    T  ref fwd ms  TP fwd ms  ref f+b ms  TP f+b ms  speedup f+b"]
    for r in rows:
        lines.append(f"{r['N']:>2} {r['D']:>5} {r['F']:>5} {r['T']:>4} {r['ref_fwd_ms']:>11.2f} {r['tp_fwd_ms']:>10.2f}"
                     f" {r['ref_fwdbwd_ms']:>11.2f} {r['tp_fwdbwd_ms']:>10.2f} {r['speedup_fwdbwd']:>11.2f}x")
    return "\n".join(lines)


# Check 8's widths D and token counts T: small on CPU (CI has two cores), large enough on GPUs
# for the matmuls to outweigh kernel launches, as in Megatron-LM's runs.
TIMING_SHAPES = {"cpu": ((256, 512), 64), "cuda": ((1024, 4096), 2048)}


def run_checks(ctx, sizes=None, tokens=None, warmup=3, repeats=10):
    """All eight checks on this rank; every rank must call it. Returns rank 0's report."""
    default_sizes, default_tokens = TIMING_SHAPES[ctx.device.type]
    sizes, tokens = sizes or default_sizes, tokens or default_tokens
    if ctx.world < 2:
        raise ValueError("tensor parallelism needs at least 2 ranks (torchrun --nproc_per_node=2 or more)")
    if FF % ctx.world:
        raise ValueError(f"the hidden size F = {FF} must be divisible by the number of ranks N = {ctx.world}")
    torch.manual_seed(SEED)
    rep = Report(ctx)
    check_lesson_numbers(ctx, rep)
    check_forward(ctx, rep)
    check_backward(ctx, rep)
    dtensor_model = check_dtensor(ctx, rep)
    check_row_split(ctx, rep)
    check_communication(ctx, rep, dtensor_model)
    check_memory(ctx, rep)
    check_timing(ctx, rep, sizes, tokens, warmup, repeats)
    if ctx.rank == 0:
        rep.say("\n" + summary_table([rep.to_dict()]))
    return rep.to_dict()


def summary_table(reports):
    """One line per check and one column per world size, PASS or FAIL."""
    worlds = [r["world"] for r in reports]
    names = []
    for r in reports:
        for c in r["checks"]:
            key = (c["number"], c["name"])
            if key not in names:
                names.append(key)
    names.sort(key=lambda key: key[0])  # stable: checks that only some N ran stay in place
    header = f"{'#':>2}  {'check':<72}" + "".join(f"  N={w:<4}" for w in worlds)
    lines = [header, "-" * len(header)]
    for number, name in names:
        cells = []
        for r in reports:
            verdict = [c["passed"] for c in r["checks"] if (c["number"], c["name"]) == (number, name)]
            cells.append("  " + ("PASS" if verdict and verdict[0] else "FAIL" if verdict else "-").ljust(6))
        lines.append(f"{number:>2}  {name[:72]:<72}" + "".join(cells))
    total = sum(len(r["checks"]) for r in reports)
    failed = sum(not c["passed"] for r in reports for c in r["checks"])
    lines.append(f"{total - failed} of {total} checks passed" + ("" if not failed else f", {failed} FAILED"))
    return "\n".join(lines)


def show(reports, number):
    """Print what rank 0 reported for one check, for every world size that ran."""
    for r in reports:
        print(f"--- N = {r['world']} ({r['device']}): {r['titles'][str(number)]}")
        for c in r["checks"]:
            if c["number"] == number:
                print("\n".join(c["lines"]))


def failures(reports):
    return [f"N={r['world']} check {c['number']}: {c['name']}" for r in reports for c in r["checks"] if not c["passed"]]


# ---- process set-up ----------------------------------------------------------------------------


def choose_backend():
    """NCCL with one process per GPU when there are at least two GPUs; otherwise gloo on CPU."""
    if torch.cuda.is_available() and torch.cuda.device_count() >= 2:
        return "nccl", torch.cuda.device_count()
    return "gloo", 0


def device_for(backend, local_rank):
    if backend == "nccl":
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank)
    return torch.device("cpu")


def worker(rank, world, backend, port, out_path, options):
    """Entry point of one spawned process (the notebook's launcher)."""
    if backend == "gloo":
        # N processes share the machine's cores; one thread each avoids oversubscription.
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    device = device_for(backend, rank)
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            device_id=device if backend == "nccl" else None)
    try:
        ctx = Ctx(rank, world, device, echo=False)
        report = run_checks(ctx, **options)
        if rank == 0:
            with open(out_path, "w") as fh:
                json.dump(report, fh)
    finally:
        dist.destroy_process_group()
    exit_now(0)


def exit_now(status):
    """Leave the process without running C++ static destructors. About one run in six on CPU,
    torch 2.13's gloo teardown aborts *after* destroy_process_group ("terminate called without
    an active exception") while a background thread is still alive; by then every check has
    finished and its report is written, so skipping the interpreter's shutdown loses nothing."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(world, backend, **options):
    """Spawn `world` processes running every check; return rank 0's report."""
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "report.json")
        mp.spawn(worker, args=(world, backend, free_port(), out_path, options), nprocs=world, join=True)
        with open(out_path) as fh:
            return json.load(fh)


def plot_speedup(reports):
    """Speedup of TP forward+backward against N, per size, beside Megatron-LM's GPU figures.
    Uses matplotlib's object API, so it needs no GUI backend."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    ns = sorted(MEGATRON_SPEEDUP)
    ax.plot(ns, [MEGATRON_SPEEDUP[n] for n in ns], "o-", label="Megatron-LM, GPUs (paper)")
    ax.plot(ns, ns, ":", color="grey", label="ideal")
    rows = [row for r in reports for row in r["timing"]]
    for d in sorted({row["D"] for row in rows}):
        mine = sorted((row["N"], row["speedup_fwdbwd"]) for row in rows if row["D"] == d)
        ax.plot([1] + [n for n, _ in mine], [1.0] + [s for _, s in mine], "s--",
                label=f"this run, D={d} ({reports[0]['device']})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ns, [str(n) for n in ns])
    ax.set_title("Tensor-parallel MLP: strong scaling")
    ax.set_xlabel("N (ranks)")
    ax.set_ylabel("speedup of forward+backward vs 1 device")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig
