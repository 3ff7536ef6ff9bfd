"""Each lesson's classic mistakes are named in the grader's message: for a known-wrong solution,
a check it fails and words its message must contain, read from the lesson's golden report (which
`lessonkit check` proves the grader gives) instead of grading it again."""
from pathlib import Path

import pytest

from authorkit import golden
from lessonkit import load_lesson

LESSONS = Path(__file__).resolve().parents[2] / "lessons"

# lesson -> known-wrong solution -> (a check it fails, words its message must contain)
NAMED = {
    "sequence-parallel": {
        "rs_own_partial": ("test_reduce_scatter::test_worked_example", "its own partial only"),
        "rs_as_all_reduce": ("test_reduce_scatter::test_worked_example", "that is an all-reduce"),
        "ag_reversed": ("test_all_gather::test_worked_example", "reverse GPU order"),
        "ln_sample_variance": ("test_layernorm::test_worked_example", "sample variance"),
        "ln_eps_outside_sqrt": ("test_layernorm::test_worked_example", "outside the square root"),
        "residual_every_partial": ("test_sp_mlp_block::test_worked_example", "counted n = 2 times"),
        "residual_forgotten": ("test_sp_mlp_block::test_worked_example", "the residual is missing"),
        "bytes_34_for_tp": ("test_activation_bytes::test_gpt3[t=8 TP: 0.539 GiB]", "10 + 24/t"),
        "bytes_attention_unsplit_with_sp": ("test_activation_bytes::test_gpt3[t=8 TP + SP: 0.334 GiB]",
                                            "not divided by t"),
        "bytes_gib": ("test_activation_bytes::test_gpt3[t=1: 2.672 GiB]", "you returned GiB"),
        "bytes_any_recompute": ("test_activation_bytes::test_unknown_recompute[full]", "should raise ValueError"),
    },
    "tp-cost": {
        "ring_no_divide": ("test_ring_bytes::test_worked_example[1000 bytes on 4 GPUs: 1500]", "2(n−1) chunks of the whole buffer"),
        "ring_no_two": ("test_ring_bytes::test_worked_example[1000 bytes on 4 GPUs: 1500]", "you left out the factor 2"),
        "latency_once": ("test_allreduce_seconds::test_worked_example[1 MB on 8 GPUs at 300 GB/s with 5e-6 s per step]",
                         "you paid the latency once"),
        "gib_per_second": ("test_allreduce_seconds::test_worked_example[1 GB on 2 GPUs at 100 GB/s: 0.01 s]", "2³⁰ bytes per second"),
        "forward_only": ("test_tp_layer_seconds::test_megatron_d2[t=2]", "you counted the forward pass only"),
        "compute_not_split": ("test_tp_layer_seconds::test_megatron_d2[t=2]", "the compute was not divided by t"),
        "two_allreduces": ("test_tp_layer_seconds::test_megatron_d2[t=2]", "Counting 2 all-reduces"),
        "node_boundary": ("test_best_tp_degree::test_dgx2h", "at t = gpus_per_node you used the inter-server bandwidth"),
        "ties_larger": ("test_best_tp_degree::test_ties[every t ties: 1]", "on a tie you returned the larger t"),
        "no_value_error_for_n": ("test_bad_arguments::test_value_error[ring_allreduce_bytes: n = 0]", "should raise ValueError"),
    },
    "tp-transformer": {
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
    },
}


@pytest.fixture(scope="module")
def lessons():
    return {slug: load_lesson(LESSONS / slug) for slug in NAMED}


@pytest.mark.parametrize("slug,name", [(slug, name) for slug, named in NAMED.items() for name in sorted(named)])
def test_each_classic_mistake_is_named(lessons, slug, name):
    check_id, words = NAMED[slug][name]
    check = next(c for c in golden.expected(lessons[slug], name, "en") if c["id"] == check_id)
    assert check["status"] == "failed", (check["status"], check["message"])
    assert words in check["message"], check["message"]
