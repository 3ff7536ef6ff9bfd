"""Megatron-LM's communication operators for tensor (and sequence) parallelism, written once for
every companion, with Megatron's names: f = copy to the tensor-parallel region (identity forward,
all-reduce backward), g = reduce from it (all-reduce forward, identity backward), and the sequence-
parallel pair, scatter to / gather from the sequence-parallel region. `group=None` is every rank."""

import torch
import torch.distributed as dist

# torch 2.13 renamed all_gather_into_tensor and reduce_scatter_tensor (both now warn); a download
# may meet an older torch, which has only the old names.
_gather_into = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_scatter_from = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def all_reduce_sum(t, group=None):
    """Sums `t` over the ranks of `group`, in place; returns it."""
    dist.all_reduce(t, group=group)
    return t


def all_gather_list(t, group=None):
    """Every rank's `t`, in rank order (a list): to read each GPU's share of a worked example."""
    parts = [torch.empty_like(t) for _ in range(dist.get_world_size(group))]
    dist.all_gather(parts, t.contiguous(), group=group)
    return parts


def reduce_scatter(partial, group=None):
    """The sum of every rank's (T, ...) partial; this rank keeps its T/N rows."""
    world = dist.get_world_size(group)
    out = partial.new_empty((partial.shape[0] // world,) + tuple(partial.shape[1:]))
    _scatter_from(out, partial.contiguous(), group=group)
    return out


def all_gather(chunk, group=None):
    """Every rank's (T/N, ...) chunk stacked in rank order: the whole (T, ...)."""
    world = dist.get_world_size(group)
    out = chunk.new_empty((chunk.shape[0] * world,) + tuple(chunk.shape[1:]))
    _gather_into(out, chunk.contiguous(), group=group)
    return out


class CopyToTP(torch.autograd.Function):
    """f (Megatron-LM's copy_to_tensor_model_parallel_region): identity forward; all-reduce
    backward, because each rank's dL/dX covers only its shard's columns."""

    @staticmethod
    def forward(ctx, x, group=None):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, grad):
        return all_reduce_sum(grad.clone(), ctx.group), None


class ReduceFromTP(torch.autograd.Function):
    """g (reduce_from_tensor_model_parallel_region): all-reduce forward; identity backward,
    because the output is a plain sum of the ranks' partials and each partial gets all of dY."""

    @staticmethod
    def forward(ctx, y_partial, group=None):
        return all_reduce_sum(y_partial.clone(), group)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class ReduceScatterToSP(torch.autograd.Function):
    """Megatron's _ReduceScatterToSequenceParallelRegion: reduce-scatter forward, all-gather
    backward (every rank's partial contributed to every row)."""

    @staticmethod
    def forward(ctx, partial, group=None):
        ctx.group = group
        return reduce_scatter(partial, group)

    @staticmethod
    def backward(ctx, grad):
        return all_gather(grad, ctx.group), None


def tp_region(partial, x, *shard, group=None, with_f=True):
    """Megatron's tensor-parallel region around a column-parallel then row-parallel pair: f (copy
    to), this rank's partial(x, *shard), g (reduce from). `with_f=False` leaves f out, the mistake
    whose dL/dx is only this rank's share."""
    x = CopyToTP.apply(x, group) if with_f else x
    return ReduceFromTP.apply(partial(x, *shard), group)


def expect_count(run, key, title, traffic, want):
    """One verdict on CommDebugMode's counts (measure.Traffic) of one pass: exactly `want`
    ({collective: count}; an empty dict: no communication)."""
    return run.expect(key, title, traffic.counts == want, f"counted {traffic.counts}, wanted {want}")


def expect_counts(run, key, title, forward, backward, want_forward, want_backward):
    """One verdict on CommDebugMode's counts (measure.Traffic) of a forward and a backward pass:
    both must be exactly the wanted {collective: count} (an empty dict: no communication)."""
    ok = forward.counts == want_forward and backward.counts == want_backward
    return run.expect(key, title, ok, f"forward {forward.counts}, backward {backward.counts} "
                                      f"(wanted {want_forward}, {want_backward})")
