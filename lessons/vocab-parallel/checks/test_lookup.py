"""Checks of vp_embedding(ids, E_shards): masked lookups on each GPU, then their sum."""
import numpy as np

from lessonkit.checking import expect_unchanged, missed_sum
from lessonkit.checkmath import gpu_count
from lessonkit.fixtures import cases
from lessonkit.i18n import _

# A lookup copies rows, so a float64 solution is exact; float32 (~1e-7 relative) passes too.
# A wrong row is off by O(1).
RTOL, ATOL = 1e-6, 1e-6


def mistakes(ref, ids, shards):
    return [
        (_("GPU i looked up every id, not only the ones it owns, so ids outside its range "
           "picked up a wrong row (numpy clipped the index to the shard's edge) and added it "
           "to the sum. Mask them: an id outside [start, end) contributes zeros on GPU i."),
         lambda: ref.embedding_no_mask(ids, shards, "clip")),
        (_("GPU i looked up every id, not only the ones it owns, so ids outside its range "
           "wrapped around to another row of its shard and were added to the sum. Mask them: "
           "an id outside [start, end) contributes zeros on GPU i."),
         lambda: ref.embedding_no_mask(ids, shards, "wrap")),
        (_("you indexed GPU i's shard with the global id. E_shards[i] starts at id start, so "
           "the row of id v is E_shards[i][v - start]."),
         lambda: sum(ref.embedding_shares(ids, shards, index_global=True))),
    ] + missed_sum(ref.embedding_shares(ids, shards), total="E[ids]", share="Y")


def random_problem(seed, V, D, T, n, dtype=np.float64):
    """Shards drawn independently, one GPU at a time, and ids that hit every GPU."""
    rng = np.random.default_rng(seed)
    shards = [rng.normal(size=(V // n, D)).astype(dtype) for _ in range(n)]
    ids = rng.integers(0, V, size=T)
    ids[: min(T, n)] = [r * (V // n) + (V // n - 1) * (r % 2) for r in range(min(T, n))]
    return ids, shards


def expect_lookup(solution, ref, ids, shards):
    c = ref.call_lookup(solution, "vp_embedding", ids, shards)
    ref.expect_close_range(solution, len(shards[0]) * len(shards), len(shards), c,
                           ref.embedding(ids, shards), rtol=RTOL, atol=ATOL,
                           mistakes=mistakes(ref, ids, shards))
    return c


def test_example(solution, ref, emb_example):
    """vp_embedding reproduces the lesson's example: ids (5, 1, 6) over 2 GPUs give rows 5, 1, 6 of E"""
    expect_lookup(solution, ref, emb_example.ids, emb_example.shards)


@cases("V,D,T,n", [(6, 3, 5, 1), (12, 4, 10, 3), (32, 5, 20, 2), (64, 8, 32, 8), (16, 2, 16, 16)],
       shown="V,n")
def test_random(solution, ref, V, D, T, n):
    """vp_embedding equals E[ids] for random tables and ids on every GPU"""
    ids, shards = random_problem(1000 * V + n, V, D, T, n)
    expect_lookup(solution, ref, ids, shards)


def test_repeated_ids_on_last_gpu(solution, ref):
    """vp_embedding looks up repeated ids that all belong to the last GPU"""
    _ids, shards = random_problem(3, 16, 3, 1, 4)
    expect_lookup(solution, ref, np.array([15, 12, 15, 13, 12]), shards)


def test_one_token(solution, ref):
    """vp_embedding returns shape (1, D) for a single token"""
    _ids, shards = random_problem(4, 12, 5, 1, 3)
    expect_lookup(solution, ref, np.array([7]), shards)


def test_float32_table(solution, ref):
    """vp_embedding works on a float32 table"""
    ids, shards = random_problem(5, 24, 4, 12, 4, dtype=np.float32)
    expect_lookup(solution, ref, ids, shards)


def test_inputs_unchanged(solution, ref):
    """vp_embedding leaves ids and the shards unchanged"""
    ids, shards = random_problem(6, 16, 3, 8, 4)
    expect_unchanged(ref.call_lookup(solution, "vp_embedding", ids, shards))


def test_fresh(solution, ref, fresh):
    """vp_embedding equals E[ids] for a table and ids drawn afresh on every run"""
    n = gpu_count(fresh, 8)
    V, D, T = n * int(fresh.integers(1, 9)), int(fresh.integers(1, 9)), int(fresh.integers(1, 33))
    ids, shards = random_problem(int(fresh.integers(2**32)), V, D, T, n)
    expect_lookup(solution, ref, ids, shards)
