"""Every lesson is valid (`lessonkit check`, which the session's build runs: the reference
passes every check, each wrong/ solution fails the checks it names, prose, widgets, titles), and
grades the same in Pyodide as in CPython: the same checks and statuses, the same messages for
the reference and every wrong/ solution, and the same answers to the page's "try with my code"
calls (every lesson in one Pyodide start: tests/pyodide_node)."""
import re

import pytest

from sitebuild.testing import shared_build_log

# One worker: pyodide_results grades every lesson in one Node run, once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pyodide-node")]

# Which entry is "largest" among equal differences (a symmetric mistake such as ReLU for GeLU
# is off by the same amount at x and -x) depends on the last bit of libm's tanh and exp, which
# differs between glibc and Pyodide's; the difference itself and the rest of the message do not.
TIE = re.compile(r"largest difference at index \[[^\]]*\]: expected \S+, got \S+ ")
# A check named test_drawn_* draws its arguments afresh on every run, so that no table of
# answers passes (lessons/tp-cost): its message names different numbers in each runtime, and
# only its status can be compared.
DRAWN = re.compile(r"::test_drawn_")


def test_lesson_check_is_clean(lesson_dir, tmp_path_factory):
    """The session's build of lessons/ ran `lessonkit check` on this lesson, and a lesson it
    finds a problem in fails that build with the problem's `path:line: message` (checking the
    lessons again here would cost as much as the build's check)."""
    log = shared_build_log(tmp_path_factory)
    if log is None:
        pytest.skip("the site comes from $TP_SITE_DIST: its build checked the lessons")
    assert f"[build] checking lessons/{lesson_dir.name}\n" in log, log


def outcomes(report: dict, messages: bool) -> dict:
    return {c["id"]: (c["status"], TIE.sub("largest difference ", c["message"])
                      if messages and not DRAWN.search(c["id"]) else None)
            for c in report["checks"]}


# WebAssembly has no floating-point status flags, so numpy in Pyodide cannot warn about an
# overflow or an invalid value; CPython's warnings go to the captured output.
FP_WARNING = re.compile(r"^\S+:\d+: RuntimeWarning: .* encountered in .*\n(  .*\n)?", re.M)


def comparable(value):
    """A run_calls answer with numbers to 12 significant digits (the two runtimes' libm may
    differ in the last bit) and without numpy's floating-point warnings."""
    if isinstance(value, dict):
        return {k: FP_WARNING.sub("", v) if k == "stdout" else comparable(v) for k, v in value.items()}
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def test_pyodide_gives_the_same_verdicts_and_answers_as_cpython(lesson_dir, cpython_results, pyodide_results):
    """Statuses of every check for every solution, and the answers to the lesson's "try with
    my code" calls where tests/lessons/conftest.py gives some."""
    expected = cpython_results(lesson_dir)
    got = pyodide_results[lesson_dir.name]
    assert set(got["reports"]) == set(expected["reports"])
    for name, report in expected["reports"].items():
        mine = got["reports"][name]
        assert (mine["schema"], mine["lesson"], mine["passed"]) == (report["schema"], report["lesson"], report["passed"])
        assert outcomes(mine, messages=False) == outcomes(report, messages=False), name
    assert expected["reports"]["reference"]["passed"]
    assert comparable(got["calls"]) == comparable(expected["calls"])


def test_pyodide_gives_the_same_messages_as_cpython(lesson_dir, cpython_results, pyodide_results):
    expected = cpython_results(lesson_dir)["reports"]
    got = pyodide_results[lesson_dir.name]["reports"]
    for name, report in expected.items():
        assert outcomes(got[name], messages=True) == outcomes(report, messages=True), name
