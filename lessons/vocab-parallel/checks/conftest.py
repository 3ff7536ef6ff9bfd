"""Shared pieces of the vocab-parallel checks: the correct math and the classic wrong answers
(used only after the learner's call has returned), the lesson's hand-sized examples, and
random problems drawn one GPU at a time."""
from types import SimpleNamespace

import numpy as np
import pytest

from lessonkit.checking import CheckFailed, TimedOutBefore, call, describe, expect_close
from lessonkit.checkmath import cross_entropy, gpu_count, logsumexp, multiple, onehot, picked
from lessonkit.checkmath import softmax as softmax_rows
from lessonkit.fixtures import ref_fixture
from lessonkit.i18n import _
from lessonkit.learner import LearnerError


def f64(shards):
    return [np.asarray(s, dtype=np.float64) for s in shards]


def owned_range(V, rank, n):
    return rank * (V // n), (rank + 1) * (V // n)


# --- the embedding -------------------------------------------------------------------------

def embedding(ids, shards):
    """E[ids] from the shards: the table they make up, looked up."""
    return np.concatenate(f64(shards))[np.asarray(ids)]


def owns(ids, rank, size):
    """Which of `ids` GPU `rank` owns, each GPU holding `size` of them."""
    return (ids >= rank * size) & (ids < (rank + 1) * size)


def embedding_shares(ids, shards, index_global=False):
    """Y_i, GPU i's masked lookup (zeros for the ids it does not own): its share of E[ids];
    `index_global` indexes the shard with the global id (clipped to it), the classic mistake."""
    ids, shards = np.asarray(ids), f64(shards)
    size = len(shards[0])
    return [np.where(owns(ids, r, size)[:, None],
                     s[out_of_shard(ids if index_global else ids - r * size, size, "clip")], 0.0)
            for r, s in enumerate(shards)]


def out_of_shard(rows, size, mode):
    """Row indices moved into 0..size-1 as the learner's indexing did: clipped to the shard's
    edge (mode="clip") or wrapped around it (mode="wrap"). Not np.take(mode=...): it casts its
    indices to np.intp "safely", and where np.intp is int32 (Pyodide, wasm32) it refuses the
    int64 ids that rng.integers draws with a TypeError, which drops the hint in the browser."""
    return np.clip(rows, 0, size - 1) if mode == "clip" else rows % size


def embedding_no_mask(ids, shards, mode):
    """Every GPU looks up id - start without masking the ids it does not own; numpy clips
    or wraps the out-of-range ones instead of failing."""
    ids, shards = np.asarray(ids), f64(shards)
    size = len(shards[0])
    return sum(s[out_of_shard(ids - r * size, size, mode)] for r, s in enumerate(shards))


# --- the loss ------------------------------------------------------------------------------

def full_logits(shards):
    return np.concatenate(f64(shards), axis=1)


def target_logit(shards, targets):
    return picked(full_logits(shards), targets)


def loss(shards, targets):
    return cross_entropy(full_logits(shards), targets)


def loss_local_max(shards, targets):
    """Each GPU sums exp(z - its own max) and the sums are added without rescaling them to the
    global max; the global max is added back at the end."""
    shards = f64(shards)
    m = np.max([s.max(axis=1) for s in shards], axis=0)
    s = sum(np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1) for x in shards)
    return m + np.log(s) - target_logit(shards, targets)


def loss_target_not_masked(shards, targets, other):
    """The target's logit summed over every GPU, not only its owner: the others add the entry
    at column 0 (other="zero": Megatron's masked target, its logit never zeroed) or at the
    wrapped column target mod V/n (other="wrap")."""
    shards, targets = f64(shards), np.asarray(targets)
    w = shards[0].shape[1]
    picked = 0.0
    for r, s in enumerate(shards):
        col = np.where(owns(targets, r, w), targets - r * w, 0 if other == "zero" else targets % w)
        picked = picked + s[np.arange(len(targets)), col]
    return loss(shards, targets) + target_logit(shards, targets) - picked


def loss_max_not_added(shards, targets):
    z = full_logits(shards)
    return logsumexp(z) - z.max(axis=1) - target_logit(shards, targets)


def softmax(shards):
    return softmax_rows(full_logits(shards))


def split(full, n):
    """A (T, V) array as the stacked (n, T, V/n) slices, GPU order."""
    return np.stack(np.split(full, n, axis=1))


def grad(shards, targets, p=None):
    """GPU i's slice of p - onehot(target), stacked: shape (n, T, V/n); p is softmax(z) unless
    a classic mistake's probabilities are given."""
    p = softmax(shards) if p is None else p
    return split(p - onehot(targets, p.shape[1]), len(shards))


def grad_local_softmax(shards, targets):
    """Each GPU normalises over its own slice only."""
    return grad(shards, targets, np.concatenate([softmax_rows(x) for x in shards], axis=1))


def grad_local_max(shards, targets):
    """exp(z - own max) divided by the sum of every GPU's exp(z - own max)."""
    e = [np.exp(x - x.max(axis=1, keepdims=True)) for x in f64(shards)]
    total = sum(x.sum(axis=1, keepdims=True) for x in e)
    return grad(shards, targets, np.concatenate([x / total for x in e], axis=1))


ref = ref_fixture(globals())


def call_lookup(solution, name, *args):
    """`call`, with a hint added when the learner's code indexed outside a shard (of the
    table for vp_embedding, of the logits for the loss and its gradient)."""
    try:
        return call(solution, name, *args)
    except LearnerError as exc:
        if "IndexError" not in exc.message:
            raise
        if "integer" in exc.message:  # numpy's words for a float used as an index
            raise LearnerError(exc.message + "\n" + _(
                "Hint: an index here is not an integer. Ids, start and end are integers: "
                "V / n is a float in Python 3, so use V // n, and keep id - start an integer "
                "array.")) from None
        if name != "vp_embedding":
            raise LearnerError(exc.message + "\n" + _(
                "Hint: an IndexError here usually means a GPU looked for a target that is not "
                "in its slice. logit_shards[i] holds only the columns start..end-1 of the "
                "logits: only the GPU that owns token p's target finds it, at column "
                "target - start; the other GPUs contribute 0 for it.")) from None
        raise LearnerError(exc.message + "\n" + _(
            "Hint: an IndexError here usually means a GPU looked up an id that is not in its "
            "shard. E_shards[i] holds only rows start..end-1 of the table: mask the ids GPU i "
            "does not own (they contribute zeros), and look up id - start for the ones it "
            "does.")) from None


def range_note(solution, V, n):
    """A hint naming the learner's own vocab_range when it is wrong for this V and n, else None
    (also when it cannot be asked: not written yet, an error, out of time). A lookup or loss
    built on a wrong range puts some id in no GPU's range, or in two, and the result can then
    look like any of the classic mistakes; the range is what to fix."""
    for rank in range(n):
        try:
            got = call(solution, "vocab_range", V, rank, n).got
            pair = tuple(int(v) for v in got)
        except (LearnerError, TimedOutBefore, TypeError, ValueError, OverflowError):
            return None
        start, end = owned_range(V, rank, n)
        if pair != (start, end):
            return _("Hint: your vocab_range({V}, {rank}, {n}) returns {got}, but GPU {rank} "
                     "owns ids {start} … {last}: it should return ({start}, {end}). If this "
                     "function uses vocab_range, fix that first (its checks are above): an id "
                     "that no GPU owns, or that two GPUs own, comes out wrong.", V=V, rank=rank,
                     n=n, got=describe(got), start=start, last=end - 1, end=end)
    return None


def expect_close_range(solution, V, n, c, expected, *, mistakes, **how):
    """expect_close, except that when the result is wrong and the learner's own vocab_range
    is too, the message names the range instead of a classic mistake's hint."""
    try:
        return expect_close(c, expected, mistakes=mistakes, **how)
    except CheckFailed:
        note = range_note(solution, V, n)
        if note is None:
            raise
    try:
        expect_close(c, expected, **how)
    except CheckFailed as exc:
        raise CheckFailed(str(exc) + "\n" + note) from None


def labelled_table(V, D):
    """E[v, d] = 10 v + d: every row says which id it belongs to."""
    return 10.0 * np.arange(V)[:, None] + np.arange(D)[None, :]


@pytest.fixture
def emb_example():
    """The prose's example: V = 8 over n = 2 GPUs, D = 2, ids (5, 1, 6)."""
    E = labelled_table(8, 2)
    return SimpleNamespace(ids=np.array([5, 1, 6]), shards=[E[:4].copy(), E[4:].copy()])


@pytest.fixture
def ce_example():
    """The prose's (and the widget's) example: V = 8 over n = 2 GPUs, two tokens."""
    z = np.array([[1.0, 3.0, 0.0, 2.0, 4.0, 1.0, 0.0, 2.0],
                  [0.0, 5.0, 1.0, 2.0, 1.0, 0.0, 2.0, 1.0]])
    return SimpleNamespace(shards=[z[:, :4].copy(), z[:, 4:].copy()], targets=np.array([1, 6]))


@pytest.fixture
def megatron_example():
    """Megatron-LM's own unit test (tests/unit_tests/tensor_parallel/test_cross_entropy.py):
    TP = 4, each GPU's local logits 0..7 tiled to (16, 32), targets 0, 2, ..., 30."""
    local = np.tile(np.arange(8.0), (16, 4))
    return SimpleNamespace(shards=[local.copy() for _ in range(4)],
                           targets=np.arange(0, 32, 2),
                           losses=np.tile([10.2309, 8.2309, 6.2309, 4.2309], 4))


def random_logits(seed, T, V, n, scale=3.0):
    """n slices of logits in [-scale, scale], drawn independently (no full row exists anywhere
    to be remembered), with targets spread over every GPU."""
    rng = np.random.default_rng(seed)
    shards = [rng.uniform(-scale, scale, size=(T, V // n)) for _ in range(n)]
    targets = rng.integers(0, V, size=T)
    targets[: min(T, n)] = [owned_range(V, r, n)[0] + r % (V // n) for r in range(min(T, n))]
    return shards, targets


@pytest.fixture
def fresh_logits(fresh):
    """(shards, targets) drawn afresh on every run: 1 to 8 GPUs, 1 to 32 tokens."""
    n = gpu_count(fresh, 8)
    T, V = int(fresh.integers(1, 33)), multiple(fresh, n, 1, 9)
    return random_logits(int(fresh.integers(2**32)), T, V, n)
