"""The command line: exit codes, readable and JSON output, `check`."""
import json
import os
import re
import subprocess
import sys

from lessonkit import load_lesson

from conftest import REPO, TP_MLP, make_lesson

ENV = {**os.environ, "PYTHONPATH": str(REPO / "py")}


def lessonkit(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "lessonkit", *map(str, args)], cwd=cwd,
                          env=ENV, capture_output=True, text=True, timeout=300)


def test_grade_passing_solution_exits_0():
    run = lessonkit("grade", TP_MLP, TP_MLP / "reference.py")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tp-mlp: Tensor-parallel MLP (Megatron-LM)" in run.stdout
    assert "PASS  Your solution.py runs and defines gelu(x)" in run.stdout
    assert "checks passed" in run.stdout


def wrong_file(tmp_path, name):
    """The tp-mlp known-wrong solution `name`, as a solution.py to grade."""
    path = tmp_path / "solution.py"
    path.write_text(load_lesson(TP_MLP).wrong_solution(name).source)
    return path


def test_grade_failing_solution_exits_1_and_json(tmp_path):
    run = lessonkit("grade", TP_MLP, wrong_file(tmp_path, "no_allreduce"), "--json")
    assert run.returncode == 1
    report = json.loads(run.stdout)
    assert report["schema"] == "lessonkit.report/1" and report["passed"] is False
    statuses = {c["id"]: c["status"] for c in report["checks"]}
    assert statuses["test_tp_mlp::test_worked_example"] == "failed"
    assert statuses["test_gelu::test_python_floats"] == "passed"


def test_grade_readable_failure(tmp_path):
    run = lessonkit("grade", TP_MLP, wrong_file(tmp_path, "erf_gelu"))
    assert run.returncode == 1
    assert "   FAIL  gelu agrees with the tanh formula (positive)" in run.stdout
    assert "exact erf form" in run.stdout


def test_usage_and_lesson_errors_exit_2(tmp_path):
    assert lessonkit().returncode == 2
    assert lessonkit("grade", TP_MLP).returncode == 2
    missing = lessonkit("grade", TP_MLP, tmp_path / "nope.py")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = lessonkit("grade", tmp_path / "no-lesson", TP_MLP / "reference.py")
    assert bad.returncode == 2 and "no such lesson folder" in bad.stderr


def test_check_without_argument_checks_every_lesson(tmp_path):
    # A small lesson: this is about finding ./lessons/* and saying OK. The real lessons are
    # checked by the session's build (tests/lessons/test_grading.py), and `check` passes a copy of
    # one in test_check_reports_golden_drift_at_its_line_and_update_writes_it.
    make_lesson(tmp_path / "lessons")
    (tmp_path / "lessons" / "notes").mkdir()  # no lesson.toml: not a lesson
    run = lessonkit("check", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[0] == "lessons/toy: OK", run.stdout


def test_check_reports_located_problems(lesson_copy):
    (lesson_copy / "reference.py").write_text(
        (TP_MLP / "reference.py").read_text().replace("0.044715", "0.0447"))
    (lesson_copy / "wrong.toml").write_text(
        '[[mistake]]\nname = "relu"\nfails = ["test_shard_mlp::*", "test_nothing::here"]\n'
        'replace = "# the all-reduce"\nwith = "# the all-reduce, unchanged"\n')
    run = lessonkit("check", lesson_copy)
    assert run.returncode == 1
    out = run.stdout
    assert f"{lesson_copy}/reference.py:1: the reference does not pass test_gelu::test_values[positive]" in out
    assert (f"{lesson_copy}/wrong.toml:3: relu: should fail test_shard_mlp::test_example_split, a check "
            "it is aimed at (`fails`), but it passes") in out
    assert f"{lesson_copy}/wrong.toml:3: relu: `fails` names 'test_nothing::here', which matches no check" in out


def test_check_reports_golden_drift_at_its_line_and_update_writes_it(lesson_copy):
    """A message that changes is drift, shown where the golden file has it, with the golden and
    the new text; --update writes the new report, and check is clean again."""
    toml = lesson_copy / "lesson.toml"  # the copy has no companion files: none to check
    toml.write_text(toml.read_text().split("[companion]")[0])
    golden = lesson_copy / "golden" / "relu.json"
    text = golden.read_text()
    assert "ReLU" in text
    golden.write_text(text.replace("ReLU", "RELU", 1))
    run = lessonkit("check", lesson_copy)
    assert run.returncode == 1
    first = next(c for c in json.loads(text)["checks"] if "ReLU" in c.get("message", {}).get("en", ""))
    line = next(n for n, s in enumerate(text.splitlines(), 1) if f'"id": "{first["id"]}"' in s)
    assert f"{golden}:{line}: {first['id']}: the en message drifted" in run.stdout, run.stdout
    assert "--update" in run.stdout and "RELU" in run.stdout
    updated = lessonkit("check", "--update", lesson_copy)
    assert updated.returncode == 0 and f"updated {golden}" in updated.stdout, updated.stdout
    assert golden.read_text() == text
    assert lessonkit("check", lesson_copy).returncode == 0


def test_check_reports_format_errors(lesson_copy):
    toml = lesson_copy / "lesson.toml"
    toml.write_text(toml.read_text().replace('widgets = ["tp-mlp-example", "row-split"]',
                                             'widgets = ["tp-mlp-example", "no-such-widget"]'))
    run = lessonkit("check", lesson_copy)
    assert run.returncode == 1
    assert re.search(rf"{re.escape(str(lesson_copy))}/lesson.toml:\d+: widget 'no-such-widget' has no file",
                     run.stdout)
    assert f"{lesson_copy}/widgets/row-split.js:1: widget 'row-split' is not declared" in run.stdout
    assert f"{lesson_copy}/lesson.md:" in run.stdout and "'row-split' is not listed" in run.stdout


def test_check_unknown_folder_exits_2(tmp_path):
    assert lessonkit("check", tmp_path / "missing").returncode == 2
