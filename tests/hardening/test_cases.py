"""Every case of the catalogue (cases/*.py) graded in CPython twice: in this process, as the
browser's worker does it (same engine, same process as the grader), and through the command
line, which grades in a child process. Both must give exactly the verdicts the case's header
names, with learner-facing messages and no grader internals in them."""
from __future__ import annotations

import json
import re

import pytest

from catalogue import TP_MLP, all_cases, run_cli, tree

from lessonkit import grade, load_lesson

CASES = all_cases()
IN_PROCESS = [c for c in CASES if not c.child_only]
REPO_CHECKS = tree(TP_MLP / "checks")


@pytest.mark.parametrize("case", IN_PROCESS, ids=[c.name for c in IN_PROCESS])
def test_in_process(case, lesson_dir):
    before = tree(lesson_dir)
    report = grade(load_lesson(lesson_dir), case.source).to_dict()
    assert case.problems(report["checks"], report["stdout"]) == []
    expected_pass = all(e.statuses == {"passed"} for e in case.expects)
    assert report["passed"] is expected_pass
    assert tree(lesson_dir) == before, "the checks folder was changed and not put back"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cli(case, lesson_dir, tmp_path):
    solution = tmp_path / "solution.py"
    solution.write_text(case.source)
    result = run_cli("grade", lesson_dir, solution, "--json")
    report = json.loads(result.stdout)  # one JSON document, whatever the learner printed
    assert case.problems(report["checks"], report["stdout"]) == []
    assert result.returncode == (0 if report["passed"] else 1)
    assert tree(TP_MLP / "checks") == REPO_CHECKS


def test_cli_text_report_quotes_learner_output(lesson_dir, tmp_path):
    """Text that imitates a passing report shows only as the learner's indented output."""
    case = next(c for c in CASES if c.name == "forge_report")
    solution = tmp_path / "solution.py"
    solution.write_text(case.source)
    result = run_cli("grade", lesson_dir, solution)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    forged = [i for i, line in enumerate(lines) if "All 29 checks passed" in line]
    assert forged and all(lines[i].startswith("  ") for i in forged)
    assert lines.index("Your output:") < forged[0]
    passed, total = map(int, re.match(r"(\d+) of (\d+) checks passed", lines[-1]).groups())
    assert 0 < passed < total
