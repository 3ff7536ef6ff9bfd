"""The tp-mlp lesson: the reference passes, each known-wrong solution fails the checks it is
aimed at (`fails`), and the tolerances accept float32 and reject float16 / the erf GeLU. What the
known-wrong solutions get is read from the lesson's golden reports, which `lessonkit check`
proves the grader still gives (tests/lessons/test_grading.py), instead of grading them again."""
import pytest

from authorkit import golden
from lessonkit import grade, load_lesson

from conftest import TP_MLP

WRONG = [w.name for w in load_lesson(TP_MLP).wrong]


def graded(lesson, name, lang="en") -> dict[str, dict]:
    """{check id: check} of the golden report of solution `name`."""
    return {c["id"]: c for c in golden.expected(lesson, name, lang)}


def test_reference_passes_every_check(tp_mlp):
    report = grade(tp_mlp, tp_mlp.reference.read_text())
    assert report.passed, [(c.id, c.message) for c in report.checks if c.status != "passed"]
    assert len(report.checks) >= 25


def test_the_gallery_covers_the_issue():
    names = set(WRONG)
    assert len(names) >= 15
    assert {"a_split_by_rows", "gelu_after_allreduce", "no_allreduce", "erf_gelu",
            "wrong_constant", "gpu_order_reversed", "b_rows_mismatched", "overlapping_shards",
            "strided_columns", "ignores_shards", "relu", "float16", "gelu_mutates",
            "n_ignored", "untouched_starter"} <= names


@pytest.mark.parametrize("name", WRONG)
def test_wrong_solution_fails_what_it_is_aimed_at(tp_mlp, name):
    checks = graded(tp_mlp, name)
    named = tp_mlp.wrong_solution(name).named(list(checks))
    assert named, f"{name}: its `fails` names no existing check"
    assert all(checks[cid]["status"] != "passed" for cid in named)


def test_float32_implementation_passes(tp_mlp):
    source = tp_mlp.reference.read_text().replace("dtype=float", "dtype=np.float32")
    source = source.replace("np.sqrt(2.0 / np.pi)", "np.float32(np.sqrt(2.0 / np.pi))")
    source = source.replace("for A_i, B_i in shards]",
                            "for A_i, B_i in ((a.astype(np.float32), b.astype(np.float32)) "
                            "for a, b in shards)]")
    assert "float32" in source
    report = grade(tp_mlp, source)
    assert report.passed, [(c.id, c.message) for c in report.checks if c.status != "passed"]


def test_hints_name_the_mistake(tp_mlp):
    def message(name, check_id):
        return graded(tp_mlp, name)[check_id]["message"]

    assert "exact erf form" in message("erf_gelu", "test_gelu::test_values[positive]")
    assert "float16" in message("float16", "test_gelu::test_values[positive]")
    assert "shares side by side, never added up" in message("no_allreduce", "test_tp_mlp::test_worked_example")
    assert "GeLU after adding up" in message("gelu_after_allreduce",
                                             "test_tp_mlp::test_worked_example")
    assert "reverse order" in message("gpu_order_reversed",
                                      "test_shard_mlp::test_contiguous_blocks[D=3 F=12 n=3]")
    assert "every n-th column" in message("strided_columns",
                                          "test_shard_mlp::test_contiguous_blocks[D=3 F=12 n=3]")
    assert "You split A by rows; tensor parallelism here splits A by columns" in message(
        "a_split_by_rows", "test_shard_mlp::test_count_and_shapes[D=2 F=4 n=2]")
    assert "np.sum without an axis" in message("sum_without_axis",
                                                "test_tp_mlp::test_worked_example")
    assert "n is ignored" in message("n_ignored",
                                     "test_shard_mlp::test_count_and_shapes[D=3 F=12 n=4]")
    assert "ReLU" in message("relu", "test_gelu::test_values[negative]")
    assert "constants" in message("wrong_constant", "test_gelu::test_values[positive]")
    assert "in place" in message("gelu_mutates", "test_gelu::test_input_unchanged")
    assert "raise NotImplementedError" in message("untouched_starter",
                                                  "test_tp_mlp::test_worked_example")


def test_worked_example_numbers_in_the_message(tp_mlp):
    message = graded(tp_mlp, "no_allreduce")["test_tp_mlp::test_worked_example"]["message"]
    assert "expected: [1.682384, 2.79579 ]" in message
    assert "[[0.841192, 1.954598], [0.841192, 0.841192]]" in message


def test_row_slices_of_any_size_are_named_as_a_row_split(tp_mlp):
    """A[i*w:(i+1)*w] slices rows with the column width: whole-width blocks, named as rows."""
    source = (TP_MLP / "reference.py").read_text().replace(
        "A[:, i * width:(i + 1) * width]", "A[i * width:(i + 1) * width]")
    assert source != (TP_MLP / "reference.py").read_text()
    c = grade(tp_mlp, source).check("test_shard_mlp::test_count_and_shapes[D=3 F=12 n=4]")
    assert c.status == "failed" and "has shape (3, 12)" in c.message
    assert "You split A by rows" in c.message and "Check the slice bounds" not in c.message


def test_messages_in_polish(tp_mlp):
    c = graded(tp_mlp, "sum_without_axis", lang="pl")["test_tp_mlp::test_worked_example"]
    assert c["title"] == "tp_mlp odtwarza przykład z lekcji: Y ≈ (1,682; 2,796)"
    assert "zwróciło tablicę o kształcie ()" in c["message"] and "np.sum bez osi" in c["message"]
