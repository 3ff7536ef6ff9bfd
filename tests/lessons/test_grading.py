"""Every lesson is valid (`lessonkit check`: the reference passes every check, each wrong/
solution fails the checks it names, prose, widgets, titles), and grades the same in Pyodide as
in CPython."""
import pytest

from lessonkit.cli import check_lesson


def test_lesson_check_is_clean(lesson_dir):
    assert check_lesson(lesson_dir) == []


@pytest.mark.slow
def test_pyodide_gives_the_same_verdicts_as_cpython(lesson_dir, cpython_verdicts, pyodide_verdicts):
    expected = cpython_verdicts(lesson_dir)
    got = pyodide_verdicts[lesson_dir.name]
    assert set(got) == set(expected)
    for name in expected:
        assert got[name] == expected[name], name
    assert set(expected["reference"].values()) == {"passed"}
