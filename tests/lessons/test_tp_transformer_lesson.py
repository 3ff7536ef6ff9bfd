"""What the generic suite cannot know about the tp-transformer lesson: the given tpsim keeps its
contract (counts, refused calls, copies, gradients), each classic mistake is named in its
message, and a float32 solution passes."""
import sys
from pathlib import Path

import numpy as np
import pytest

from authorkit import golden
from lessonkit import grade, load_lesson

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "lessons" / "tp-transformer"
sys.path.insert(0, str(LESSON))
import tpsim  # noqa: E402

sys.path.remove(str(LESSON))


@pytest.fixture(scope="module")
def lesson():
    return load_lesson(LESSON)


def test_simdist_collectives_and_counts():
    d = tpsim.SimDist(2)
    a, b = np.arange(4.0).reshape(2, 2), np.ones((2, 2), dtype=np.float32)
    out = d.all_reduce([a, a + 1])
    assert all((o == 2 * a + 1).all() for o in out) and out[0] is not out[1]
    assert d.all_reduce([1.0, 2.0])[1] == 3.0
    assert (d.all_gather([a, a])[1] == np.concatenate([a, a])).all()
    rs = d.reduce_scatter([b, b])
    assert rs[0].dtype == np.float32 and (rs[1] == 2).all() and rs[1].shape == (1, 2)
    assert d.counts == {"all_reduce": 2, "all_gather": 1, "reduce_scatter": 1}
    assert d.counts["never"] == 0
    d.reset()
    assert sum(d.counts.values()) == 0


@pytest.mark.parametrize("op,xs", [("all_reduce", [np.ones(2)]), ("all_gather", [np.ones((2, 2)), np.ones((2, 3))]),
                                   ("reduce_scatter", [np.ones((3, 2)), np.ones((3, 2))])])
def test_simdist_refuses_bad_input_uncounted(op, xs):
    d = tpsim.SimDist(2)
    with pytest.raises(ValueError, match=op):
        getattr(d, op)(xs)
    assert d.counts[op] == 0


def test_local_backwards_match_finite_differences():
    rng = np.random.default_rng(0)
    x, g, b = rng.normal(size=(3, 6)), rng.normal(size=6), rng.normal(size=6)
    Wq, Wk, Wv = (rng.normal(size=(6, 6)) for _ in range(3))
    dy = rng.normal(size=(3, 6))
    y, cache = tpsim.layernorm_forward(x, g, b)
    dx, dg, _db = tpsim.layernorm_backward(dy, cache)
    O, hc = tpsim.heads_forward(x, Wq, Wk, Wv, 3)
    hx, dWq, _dWk, _dWv = tpsim.heads_backward(dy, x, hc)
    e = 1e-6
    x2 = x.copy(); x2[1, 2] += e
    assert abs(((tpsim.layernorm_forward(x2, g, b)[0] - y) * dy).sum() / e - dx[1, 2]) < 1e-4
    assert abs(((tpsim.heads_forward(x2, Wq, Wk, Wv, 3)[0] - O) * dy).sum() / e - hx[1, 2]) < 1e-4
    W2 = Wq.copy(); W2[4, 1] += e
    assert abs(((tpsim.heads_forward(x, W2, Wk, Wv, 3)[0] - O) * dy).sum() / e - dWq[4, 1]) < 1e-4
    g2 = g.copy(); g2[3] += e
    assert abs(((tpsim.layernorm_forward(x, g2, b)[0] - y) * dy).sum() / e - dg[3]) < 1e-4
    assert abs((tpsim.gelu(1.3 + e) - tpsim.gelu(1.3)) / e - tpsim.gelu_grad(1.3)) < 1e-5


# known-wrong solution -> (a check it fails, words its message must contain), read from its golden
# report (which `lessonkit check` proves the grader gives) instead of grading it again
NAMED = {
    "wo_columns": ("test_shard_block::test_worked_example", "Wo was split by columns"),
    "heads_interleaved": ("test_shard_block::test_random_blocks[D=8 heads=4 F=16 n=2]", "interleaved"),
    "a_rows": ("test_shard_block::test_worked_example", "A was split by rows"),
    "residual_every_partial": ("test_block_forward::test_worked_example[without sp]", "counted n = 2 times"),
    "own_partial": ("test_block_forward::test_worked_example[without sp]", "the sum over ranks is missing"),
    "scale_sqrt_d": ("test_block_forward::test_worked_example[without sp]", "scaled by 1/√D"),
    "scale_shard_width": ("test_block_forward::test_random_blocks[T=4 D=8 heads=2 F=16 n=1-without sp]", "one wide head"),
    "ln_grads_unsummed": ("test_block_backward::test_worked_example[with sp]", "not summed over ranks"),
    "ln_output_kept_whole": ("test_block_backward::test_worked_example[with sp]", "all-gathered only twice"),
    "extra_all_reduce": ("test_block_backward::test_worked_example[without sp]", "one all-reduce too many"),
    "sgd_rank0": ("test_train_tp::test_matches_one_device[n=2]", "rank 0's shard only"),
    "loss_rank0": ("test_train_tp::test_matches_one_device[n=2 sp]", "rank 0's chunk alone"),
    "shard_views": ("test_shard_block::test_copies", "share memory with params"),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_each_classic_mistake_is_named(lesson, name):
    check_id, words = NAMED[name]
    check = next(c for c in golden.expected(lesson, name, "en") if c["id"] == check_id)
    assert check["status"] == "failed", (check["status"], check["message"])
    assert words in check["message"], check["message"]


def test_float32_solution_passes(lesson):
    source = (LESSON / "reference.py").read_text(encoding="utf-8")
    source = source.replace("def block_forward(dist, X, shards, n_heads, sp=False):\n",
                            "def block_forward(dist, X, shards, n_heads, sp=False):\n"
                            "    X = [np.asarray(x, dtype=np.float32) for x in X]\n"
                            "    shards = [{k: np.asarray(v, dtype=np.float32) for k, v in s.items()} for s in shards]\n")
    source = source.replace("    dist = tpsim.SimDist(n)\n", "    dist = tpsim.SimDist(n)\n    X = X.astype(np.float32)\n")
    assert source.count("float32") == 3
    report = grade(lesson, source)
    assert report.passed, [(c.id, c.message) for c in report.checks if c.status != "passed"]
