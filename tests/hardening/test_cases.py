"""Every case of the catalogue (cases/*.py) graded in CPython: in this process, as the
non-isolated page's single worker does it (same engine, same interpreter as the grader), and
through the command line, which keeps learner code out of the grader's process. Both must give
exactly the verdicts the case's header names, with learner-facing messages and no grader
internals in them.

Hostile cases (`# attacks:`) are written to get a verdict they have not earned: they run only
through the command line here, where the grader's process never runs learner code (in this
process they would attack the test run itself, and those aimed at the grader may win: one
interpreter protects no verdict from code written to cheat, docs/threat-model.md; the hostile
cases aimed at the page run in the non-isolated page too, tests/browser/test_hardening.py). No
hostile case may pass, cut the report short or run past the whole run's limit by much."""
from __future__ import annotations

import json
import re
import time

import pytest

from catalogue import TOTAL_SECONDS, TP_MLP, all_cases, run_cli, tree

from lessonkit import grade, load_lesson
from lessonkit.channel import InProcess

CASES = all_cases()
IN_PROCESS = [c for c in CASES if not c.child_only and not c.hostile]
REPO_CHECKS = tree(TP_MLP / "checks")
# "No hang": a run ends within the whole run's limit (the hardening copy's, conftest.py) plus a
# generous allowance for starting Python twice on a loaded machine; times are reported by
# --durations, never asserted tightly.
HANG_S = 3 * TOTAL_SECONDS + 30


@pytest.mark.parametrize("case", IN_PROCESS, ids=[c.name for c in IN_PROCESS])
def test_in_process(case, lesson_dir):
    before = tree(lesson_dir)
    report = grade(load_lesson(lesson_dir), case.source, learner=InProcess()).to_dict()
    assert case.problems(report["checks"], report["stdout"], "one") == []
    assert report["passed"] is case.expected_pass("one")
    assert tree(lesson_dir) == before, "the checks folder was changed and not put back"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cli(case, lesson_dir, tmp_path):
    solution = tmp_path / "solution.py"
    solution.write_text(case.source)
    started = time.perf_counter()
    result = run_cli("grade", lesson_dir, solution, "--json", timeout=HANG_S)
    seconds = time.perf_counter() - started
    report = json.loads(result.stdout)  # one JSON document, whatever the learner printed
    if case.hostile:
        assert case.hostile_problems(report["checks"], report["stdout"], report["passed"]) == [], \
            f"{case.attacks} ({seconds:.1f} s)"
    else:
        assert case.problems(report["checks"], report["stdout"], "split") == []
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
