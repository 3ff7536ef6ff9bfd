"""The grader collects a lesson's checks once and runs them again in later runs where learner
code never runs in its interpreter (the isolated page's grader worker, a command line's grader
process: here, a LearnerProcess channel), and afresh on every run where it does (InProcess).
Counted, not timed: how many times the checks were collected."""
from __future__ import annotations

import pytest

from lessonkit import grade, load_lesson, runner
from lessonkit.channel import InProcess
from lessonkit.learner_process import LearnerProcess

from conftest import TOY_CHECKS, TOY_REFERENCE, make_lesson


@pytest.fixture
def collections(monkeypatch):
    """How many times the checks were collected (pytest configured, check files imported)."""
    made = []
    real = runner._Collected.__init__

    def counting(self, lesson):
        made.append(lesson.id)
        real(self, lesson)

    monkeypatch.setattr(runner._Collected, "__init__", counting)
    # No collection kept from another test.
    monkeypatch.setattr(runner, "_KEPT", {})
    return made


def statuses(report):
    return {c.id: c.status for c in report.checks}


def grade_twice(lesson, source, channel):
    return [grade(lesson, source, learner=channel) for _ in range(2)]


def test_kept_across_runs_only_where_learner_code_runs_elsewhere(tmp_path, collections):
    lesson = load_lesson(make_lesson(tmp_path))
    with LearnerProcess(lesson) as child:
        first, second = grade_twice(lesson, TOY_REFERENCE, child)
        assert collections == ["toy"]
        # A wrong solution right after the reference: the kept checks judge it afresh.
        wrong = grade(lesson, TOY_REFERENCE.replace("return 2 *", "return 3 *"), learner=child)
    assert first.passed and second.passed
    assert statuses(first) == statuses(second)
    assert statuses(wrong)["test_toy::test_double"] == "failed"
    assert collections == ["toy"]
    first, second = grade_twice(lesson, TOY_REFERENCE, InProcess())
    assert first.passed and second.passed
    assert collections == ["toy"] * 3


def test_changed_check_files_are_collected_again(tmp_path, collections):
    folder = make_lesson(tmp_path)
    lesson = load_lesson(folder)
    with LearnerProcess(lesson) as child:
        assert grade(lesson, TOY_REFERENCE, learner=child).passed
        (folder / "checks" / "test_toy.py").write_text(
            TOY_CHECKS.replace("expect_close(c, 2 * x,", "expect_close(c, 4 * x,"))
        report = grade(lesson, TOY_REFERENCE, learner=child)
    assert statuses(report)["test_toy::test_double"] == "failed"
    assert collections == ["toy", "toy"]


# Check code that keeps what the learner's function returned past its test, at module level:
# rebinding a global, and appending to a module-level list. Each asserts it saw only this
# run's value: a kept collection would carry the earlier run's into the next.
KEEPS_RESULTS = '''\
import numpy as np

from lessonkit.checking import call

SEEN = []
LAST = None


def test_double(solution):
    """double is remembered in a list"""
    SEEN.append(call(solution, "double", np.array([1.0])))
    assert len(SEEN) == 1, f"{len(SEEN)} results kept"


def test_halve(solution):
    """halve is remembered in a global"""
    global LAST
    assert LAST is None, "a result kept"
    LAST = call(solution, "halve", 4.0)
'''


def test_check_code_that_keeps_a_result_gets_the_checks_afresh(tmp_path, collections):
    lesson = load_lesson(make_lesson(tmp_path, checks={"test_toy.py": KEEPS_RESULTS},
                                     mistakes=None))
    with LearnerProcess(lesson) as child:
        reports = [grade(lesson, TOY_REFERENCE, learner=child) for _ in range(3)]
    assert [r.passed for r in reports] == [True, True, True], [statuses(r) for r in reports]
    assert collections == ["toy"] * 3


def test_a_run_stopped_inside_a_check_leaves_nothing_for_the_next(tmp_path, collections):
    """Stop (KeyboardInterrupt) inside a check's fixture: the next run sets it up afresh."""
    checks = TOY_CHECKS + '''

import itertools

STOPS = itertools.count()


@pytest.fixture
def doubled(solution):
    value = call(solution, "double", np.array([5.0]))
    if next(STOPS) == 0:
        raise KeyboardInterrupt  # the first run is stopped here
    yield value


def test_doubled(doubled):
    """a fixture's value"""
    expect_close(doubled, np.array([10.0]), rtol=1e-9, atol=0)
'''
    lesson = load_lesson(make_lesson(tmp_path, checks={"test_toy.py": checks}, mistakes=None))
    with LearnerProcess(lesson) as child:
        stopped = grade(lesson, TOY_REFERENCE, learner=child)
        again = grade(lesson, TOY_REFERENCE, learner=child)
    assert "Stopped" in stopped.check("test_toy::test_doubled").message
    assert again.passed, statuses(again)
