"""What the generic suite cannot know about the sequence-parallel lesson: each classic mistake is
named in its message, a float32 solution passes, and the widgets' JavaScript gives the lesson's
numbers."""
import json
import subprocess
from pathlib import Path

import pytest

from authorkit import golden
from lessonkit import grade, load_lesson
from lessonkit.learner_process import LearnerProcess

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "lessons" / "sequence-parallel"


@pytest.fixture(scope="module")
def lesson():
    return load_lesson(LESSON)


@pytest.fixture(scope="module")
def learner(lesson):
    """One learner process for the module's gradings (grade() would start one for each)."""
    with LearnerProcess(lesson) as process:
        yield process


# known-wrong solution -> (a check it fails, words its message must contain), read from its golden
# report (which `lessonkit check` proves the grader gives) instead of grading it again
NAMED = {
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
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_each_classic_mistake_is_named(lesson, name):
    check_id, words = NAMED[name]
    check = next(c for c in golden.expected(lesson, name, "en") if c["id"] == check_id)
    assert check["status"] == "failed", (check["status"], check["message"])
    assert words in check["message"], check["message"]


def test_float32_solution_passes(lesson, learner):
    source = (LESSON / "reference.py").read_text(encoding="utf-8").replace("dtype=float", "dtype=np.float32")
    source = source.replace("    Z = all_gather(", "    shards = [(a.astype(np.float32), b.astype(np.float32)) for a, b in shards]\n    Z = all_gather(")
    assert source.count("float32") >= 4
    report = grade(lesson, source, learner=learner)
    assert report.passed, [(c.id, c.message) for c in report.checks if c.status != "passed"]


def test_widget_math_gives_the_lesson_numbers():
    script = """
import { spMlpBlock, activationBytes, commBytes, GIB } from "./lessons/sequence-parallel/widget-lib/sp-math.js";
const A = [[1, 0, -1, 2], [0, 1, 1, -1]], B = [[1, 0], [0, 1], [1, 1], [2, 0]];
const X = [[0, 2], [1, 3], [3, 1], [2, 2], [1, -1], [0.5, 2], [4, 0], [-2, 1]];
const block = (n) => spMlpBlock(X.slice(0, 4 * (n > 2 ? 2 : 1)), [1, 1], [0, 0], A, B, n);
const gib = [[1, false, "none"], [8, false, "none"], [8, true, "none"], [8, false, "selective"], [8, true, "selective"]]
  .map(([t, sp, r]) => (activationBytes(2048, 1, 12288, 96, t, sp, r) / GIB).toFixed(3));
console.log(JSON.stringify({
  example: block(2).outputs.map((c) => c.map((r) => r.map((v) => +v.toFixed(3)))),
  diffs: [1, 2, 4].map((n) => block(n).maxDiff),
  gib,
  comm: [commBytes(2048, 1, 12288, 8, false).total, commBytes(2048, 1, 12288, 8, true).total],
}));
"""
    run = subprocess.run(["node", "--import", "./tests/widgets/widget-kit.mjs", "--input-type=module", "-e", script],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["example"] == [[[1.789, 4.796], [2.789, 5.796]], [[9.788, 0.796], [2, 2]]]
    assert max(out["diffs"]) < 1e-12
    assert out["gib"] == ["2.672", "0.539", "0.334", "0.305", "0.100"]
    assert out["comm"][0] == out["comm"][1]
