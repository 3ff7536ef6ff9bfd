"""Torch models the companions share, whole and sharded by PyTorch's own tensor-parallel API
(ColwiseParallel, RowwiseParallel), to compare with a lesson's hand-written f and g, and the
plain SGD step they are trained with. The
activation is the lesson's own, so a mutation of the lesson's GeLU reaches these models too.
`Attention` and `Transformer` are the shape of PyTorch's own tensor-parallel test model
(test_tp_examples.py), which tp-attention and tp-transformer shard with PyTorch's plans."""

import torch
import torch.nn.functional as F


class MLP(torch.nn.Module):
    """Y = activation(X A) B as torch modules; nn.Linear stores weight as (out, in), i.e. A.T and B.T."""

    def __init__(self, A, B, activation):
        super().__init__()
        self.up = torch.nn.Linear(A.shape[0], A.shape[1], bias=False, dtype=A.dtype)
        self.down = torch.nn.Linear(B.shape[0], B.shape[1], bias=False, dtype=B.dtype)
        self.activation = activation
        with_weights(self, {"up": A, "down": B})

    def forward(self, x):
        return self.down(self.activation(self.up(x)))


def sgd_step(params, lr):
    """One step of plain SGD, p -= lr · p.grad, gradients cleared. Under tensor parallelism each
    rank updates the shards it owns with their own gradients: no communication."""
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None


def train(step, params, steps, lr):
    """`steps` steps of plain SGD (sgd_step) on the list `params`: step() runs one forward and
    backward pass and returns the loss. Returns the losses as numbers, each before its update (a
    DTensor loss: its whole value)."""
    losses = []
    for _ in range(steps):
        loss = step().detach()
        losses.append(float(loss.full_tensor() if hasattr(loss, "full_tensor") else loss))
        sgd_step(params, lr)
    return losses


def backward(loss):
    """`loss` after its backward pass: a train step written as one expression."""
    loss.backward()
    return loss


def with_weights(module, weights):
    """`module` with each named nn.Linear's weight set to W.T ({name: W}, W as (in, out) the way
    the lessons write their matrices: nn.Linear keeps (out, in))."""
    with torch.no_grad():
        for name, W in weights.items():
            module.get_submodule(name).weight.copy_(W.T)
    return module


class Attention(torch.nn.Module):
    """Causal multi-head self-attention over (..., tokens, width): wq, wk, wv, wo bias-free. The
    number of heads is read from wq's output width (head_dim = dim // heads, view(-1)), so the same
    module runs whole or with its heads sharded over the ranks."""

    def __init__(self, dim, heads, dtype=None):
        super().__init__()
        self.head_dim = dim // heads
        self.wq, self.wk, self.wv, self.wo = (torch.nn.Linear(dim, dim, bias=False, dtype=dtype) for _ in range(4))

    def forward(self, x):
        q, k, v = (w(x).unflatten(-1, (-1, self.head_dim)).transpose(-3, -2) for w in (self.wq, self.wk, self.wv))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # scores / sqrt(head_dim)
        return self.wo(o.transpose(-3, -2).flatten(-2))


class FeedForward(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1, self.w2 = torch.nn.Linear(dim, 4 * dim), torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x), approximate="tanh"))


class Block(torch.nn.Module):
    """A pre-LN transformer block: x + attention(LN(x)), then h + feed_forward(LN(h))."""

    def __init__(self, dim, heads):
        super().__init__()
        self.attention_norm, self.attention = torch.nn.LayerNorm(dim), Attention(dim, heads)
        self.ffn_norm, self.feed_forward = torch.nn.LayerNorm(dim), FeedForward(dim)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(torch.nn.Module):
    """test_tp_examples.py's model without dropout: token and position embeddings, `layers`
    blocks, a final LayerNorm and a bias-free output layer."""

    def __init__(self, vocab, dim, heads, max_tokens, layers=2):
        super().__init__()
        self.tok_embeddings = torch.nn.Embedding(vocab, dim)
        self.pos_embeddings = torch.nn.Embedding(max_tokens, dim)
        self.layers = torch.nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm, self.output = torch.nn.LayerNorm(dim), torch.nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens) + self.pos_embeddings(torch.arange(tokens.shape[1], device=tokens.device))
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


def tensor_parallel(module, device, world, plan):
    """`module` on `device`, sharded by `parallelize_module` with `plan` ({submodule name:
    ColwiseParallel(), ...}) on a 1-D device mesh of all `world` ranks. Every rank holds the same
    seeded module, so each shards its own copy (src_data_rank=None): no scatter from rank 0."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = init_device_mesh(device.type, (world,), mesh_dim_names=("tp",))
    return parallelize_module(module.to(device), mesh, plan, src_data_rank=None)


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
