"""Every case of the catalogue (cases/*.py) graded in CPython, in the two ways learner code
meets the grader: in this process, as the non-isolated page's single worker does it (same
engine, same interpreter as the grader: `test_in_process`), and split, learner code in a child
process of its own as the command line and the cross-origin-isolated page grade (`test_split`,
`test_cli`). Both must give exactly the verdicts the case's header names, with learner-facing
messages and no grader internals in them. Then the cases whose outcome rests on Pyodide itself
(its Python's messages, its missing threads, its package set, numpy there) graded in Pyodide
(`test_in_pyodide`), one interpreter for all of them; what the page itself does with a case (its
timers, workers and channel) is tests/browser/test_hardening.py's.

Hostile cases (`# attacks:`) are written to get a verdict they have not earned: they run only
through the command line here, a process of its own whose grader never runs learner code (in
this process they would attack the test run itself, and those aimed at the grader may win: one
interpreter protects no verdict from code written to cheat, docs/threat-model.md; the hostile
cases aimed at the page run in the non-isolated page too, tests/browser/test_hardening.py). No
hostile case may pass, cut the report short or run past the whole run's limit by much. The
other cases are graded split by the command line's own function (`lessonkit.grade`, a fresh
child process for each) in this process: what `lessonkit grade` adds to it, its arguments and
its printed report, is tested on its own (test_cli_text_report_quotes_learner_output,
test_isolation.py, test_learner_process.py)."""
from __future__ import annotations

import json
import re
import sys
import time

import pytest

from catalogue import ROOT, TOTAL_SECONDS, TP_MLP, all_cases, copy_lesson, run_cli, tree

from lessonkit import grade, load_lesson
from lessonkit.channel import InProcess

CASES = all_cases()
IN_PROCESS = [c for c in CASES if not c.child_only and not c.hostile]
HOSTILE = [c for c in CASES if c.hostile]
PLAIN = [c for c in CASES if not c.hostile]
# Graded in Pyodide (one interpreter, as the non-isolated page's worker grades): the cases whose
# outcome rests on Pyodide rather than on the page, which grades them with this same engine
# (tests/browser/test_hardening.py says why): Python 3.12's own exit, input and syntax error
# paths, its import of a package it lacks, numpy 2.0.2 for wasm comparing lying and odd numbers,
# and threads, which Python cannot start there (last: the only hostile one, which would attack
# the cases after it in an interpreter that could).
IN_PYODIDE = ["lying_objects", "nan_result", "odd_numbers", "os_exit", "sys_exit",
              "raise_systemexit", "input_call", "import_unavailable", "syntax_error",
              "thread_tampering"]
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


@pytest.mark.parametrize("case", PLAIN, ids=[c.name for c in PLAIN])
def test_split(case, lesson_dir):
    report = grade(load_lesson(lesson_dir), case.source).to_dict()
    assert case.problems(report["checks"], report["stdout"], "split") == []
    assert report["passed"] is case.expected_pass("split")
    assert tree(TP_MLP / "checks") == REPO_CHECKS


@pytest.mark.parametrize("case", HOSTILE, ids=[c.name for c in HOSTILE])
def test_cli(case, lesson_dir, tmp_path):
    solution = tmp_path / "solution.py"
    solution.write_text(case.source)
    started = time.perf_counter()
    result = run_cli("grade", lesson_dir, solution, "--json", timeout=HANG_S)
    seconds = time.perf_counter() - started
    report = json.loads(result.stdout)  # one JSON document, whatever the learner printed
    assert case.hostile_problems(report["checks"], report["stdout"], report["passed"]) == [], \
        f"{case.attacks} ({seconds:.1f} s)"
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


@pytest.fixture(scope="module")
def pyodide_reports(tmp_path_factory) -> dict:
    """Every IN_PYODIDE case graded in one Pyodide under Node (tests/pyodide_node), in order:
    {name: report}."""
    sys.path.insert(0, str(ROOT / "tests" / "pyodide_node"))
    from harness import grade_in_pyodide, missing
    if missing():
        pytest.skip(missing())
    lesson = copy_lesson(TP_MLP, tmp_path_factory.mktemp("pyodide") / "tp-mlp")
    by_name = {c.name: c for c in CASES}
    _, results = grade_in_pyodide(lesson, {name: by_name[name].source for name in IN_PYODIDE})
    return {r["name"]: r["report"] for r in results}


@pytest.mark.xdist_group("catalogue-in-pyodide")  # one test worker, one Node run
@pytest.mark.parametrize("name", IN_PYODIDE)
def test_in_pyodide(name, pyodide_reports):
    case = next(c for c in CASES if c.name == name)
    report = pyodide_reports[name]
    assert case.problems(report["checks"], report["stdout"], "one") == []
    assert report["passed"] is case.expected_pass("one")
