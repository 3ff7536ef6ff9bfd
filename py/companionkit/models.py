"""Torch models the companions share, whole and sharded by PyTorch's own tensor-parallel API
(ColwiseParallel, RowwiseParallel), to compare with a lesson's hand-written f and g. The
activation is the lesson's own, so a mutation of the lesson's GeLU reaches these models too."""

import torch


class MLP(torch.nn.Module):
    """Y = activation(X A) B as torch modules; nn.Linear stores weight as (out, in), i.e. A.T and B.T."""

    def __init__(self, A, B, activation):
        super().__init__()
        self.up = torch.nn.Linear(A.shape[0], A.shape[1], bias=False, dtype=A.dtype)
        self.down = torch.nn.Linear(B.shape[0], B.shape[1], bias=False, dtype=B.dtype)
        self.activation = activation
        with torch.no_grad():
            self.up.weight.copy_(A.T)
            self.down.weight.copy_(B.T)

    def forward(self, x):
        return self.down(self.activation(self.up(x)))


def tensor_parallel(module, device, world, plan):
    """`module` on `device`, sharded by `parallelize_module` with `plan` ({submodule name:
    ColwiseParallel(), ...}) on a 1-D device mesh of all `world` ranks."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = init_device_mesh(device.type, (world,), mesh_dim_names=("tp",))
    return parallelize_module(module.to(device), mesh, plan)


def dtensor_mlp(device, world, A, B, activation):
    """The MLP sharded by PyTorch's tensor-parallel API: `up` by columns (each rank a block of A's
    columns), `down` by rows (the same block of B's rows)."""
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

    return tensor_parallel(MLP(A, B, activation), device, world, {"up": ColwiseParallel(), "down": RowwiseParallel()})


def expect_dtensor_mlp(run, A, B, activation, X, G):
    """PyTorch's tensor-parallel MLP (dtensor_mlp) against the unsplit one: Y = model(X) and the
    backward of sum(Y · G), each under CommDebugMode, then two verdicts: "grads" (its local weight
    gradients are column block i of dL/dA and row block i of dL/dB) and "dX", both against
    formulas.mlp_grads. Returns (model, Y, forward Traffic, backward Traffic) for the lesson's own."""
    from .comparing import compare, compare_all
    from .formulas import mlp_grads
    from .measure import passes
    from .shards import block

    dX, dA, dB = mlp_grads(X, A.to(run.device), B.to(run.device), G)
    cols = block(A.shape[1], run.rank, run.world)
    model = dtensor_mlp(run.device, run.world, A, B, activation)
    Xt = X.clone().requires_grad_()
    Y, fwd, bwd = passes(lambda: model(Xt), lambda Y: (Y * G).sum().backward())
    run.expect("grads", "its local weight gradients are dA[:, block i] and dB[block i, :]",
               *compare_all([("dA", model.up.weight.grad.to_local().T, dA[:, cols]),
                             ("dB", model.down.weight.grad.to_local().T, dB[cols, :])]))
    run.expect("dX", "its dL/dX equals the unsplit one",
               *(compare(Xt.grad, dX) if Xt.grad is not None else (False, "no gradient reached X")))
    return model, Y, fwd, bwd
