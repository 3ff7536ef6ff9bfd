"""Every lesson is valid (`lessonkit check`, which the session's build runs: the reference
passes every check, each known-wrong solution fails the checks it names, CPython gives every
solution its golden report in every language, prose, widgets, titles), and grades the same in
Pyodide: the golden report's checks, statuses, titles and messages for the reference and the
known-wrong solutions that between them fail every check (tests/gallery.py), and CPython's
answers to the page's "try with my code" calls (every lesson in one Pyodide start:
tests/pyodide_node)."""
import re

import pytest

from authorkit import golden
from gallery import gallery
from lessonkit import load_lesson
from sitebuild.testing import shared_build_log

# One worker: pyodide_results grades every lesson in one Node run, once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pyodide-node")]


def test_lesson_check_is_clean(lesson_dir, tmp_path_factory):
    """The session's build of lessons/ ran `lessonkit check` on this lesson, and a lesson it
    finds a problem in fails that build with the problem's `path:line: message` (checking the
    lessons again here would cost as much as the build's check)."""
    log = shared_build_log(tmp_path_factory)
    if log is None:
        pytest.skip("the site comes from $TP_SITE_DIST: its build checked the lessons")
    assert f"[build] checking lessons/{lesson_dir.name}\n" in log, log


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


def goldens(lesson_dir, lang="en") -> dict[str, list]:
    """{solution name: its golden checks in `lang`, shaped as a report's}, for the gallery's."""
    lesson = load_lesson(lesson_dir)
    return {name: golden.expected(lesson, name, lang) for name in gallery(lesson)}


def test_pyodide_gives_the_golden_verdicts_and_cpythons_answers(lesson_dir, cpython_calls, pyodide_results):
    """Statuses of every check for every solution, and the answers to the lesson's "try with
    my code" calls where tests/lessons/conftest.py gives some."""
    expected = goldens(lesson_dir)
    got = pyodide_results[lesson_dir.name]
    assert set(got["reports"]) == set(expected)
    for name, want in expected.items():
        mine = got["reports"][name]
        assert (mine["lesson"], mine["passed"]) == (lesson_dir.name, all(c["status"] == "passed" for c in want))
        assert {c["id"]: c["status"] for c in mine["checks"]} == {c["id"]: c["status"] for c in want}, name
    assert got["reports"][golden.REFERENCE]["passed"]
    assert comparable(got["calls"]) == comparable(cpython_calls(lesson_dir))


def test_pyodide_gives_the_golden_messages(lesson_dir, pyodide_results):
    """Titles and messages, in the language the page grades in by default."""
    got = pyodide_results[lesson_dir.name]["reports"]
    for name, want in goldens(lesson_dir).items():
        assert golden.comparable(got[name]["checks"]) == golden.comparable(want), name
