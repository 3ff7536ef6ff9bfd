"""`lessonkit check` on authoring mistakes: each one reported once, as `path:line: message`
at the place to fix. Each test breaks the valid toy lesson in one way."""
import pytest

from lessonkit import LessonError, load_lesson
from lessonkit.cli import check_lesson

from conftest import TOY_CHECKS, TOY_REFERENCE, TOY_STARTER, TOY_TOML, make_lesson


def test_the_toy_lesson_is_valid(toy_dir):
    assert check_lesson(toy_dir) == []


def only(problems):
    assert len(problems) == 1, problems
    path, line, message = problems[0].split(":", 2)
    return path, int(line), message.strip()


@pytest.mark.parametrize("doc", ['"""   """', '""""""', "x = 1"], ids=["whitespace", "empty", "none"])
def test_a_check_without_a_title_is_located_at_its_def(tmp_path, doc):
    checks = TOY_CHECKS.replace('    """double leaves its input alone"""', f"    {doc}")
    folder = make_lesson(tmp_path, checks={"test_toy.py": checks})
    path, line, message = only(check_lesson(folder))
    lines = (folder / "checks" / "test_toy.py").read_text().splitlines()
    assert path.endswith("checks/test_toy.py") and lines[line - 1].startswith("def test_double_unchanged")
    assert "has no docstring" in message


@pytest.mark.parametrize("before, after, line, where", [
    ('summary = "Two functions."', 'sumary = "Two functions."', 3, "unknown key `sumary` (did you mean `summary`?)"),
    ('summary = "Half of x."', 'sumary = "Half of x."', 25, "unknown key `sumary` in [[functions]] (did you mean `summary`?)"),
    ("recursion = 200", "recursoin = 200", 15, "unknown limit `recursoin` (did you mean `recursion`?)"),
])
def test_a_misspelt_key_is_reported_as_itself_at_its_line(tmp_path, before, after, line, where):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace(before, after))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert (info.value.line, info.value.message) == (line, where)


@pytest.mark.parametrize("empty_folder", [True, False], ids=["empty wrong/", "no wrong/"])
def test_a_lesson_needs_wrong_solutions(tmp_path, empty_folder):
    folder = make_lesson(tmp_path, wrong={})
    if empty_folder:
        (folder / "wrong").mkdir()
    path, line, message = only(check_lesson(folder))
    assert path.endswith("toy/wrong") and line == 1 and "no known-wrong solutions" in message


def test_a_starter_that_returns_instead_of_raising_is_located(tmp_path):
    starter = TOY_STARTER.replace('    """Half of x."""\n    raise NotImplementedError',
                                  '    """Half of x."""\n    return x / 2')
    folder = make_lesson(tmp_path, starter=starter)
    path, line, message = only(check_lesson(folder))
    assert path.endswith("starter.py") and line == 6 and "halve must `raise NotImplementedError`" in message


def test_a_wrong_solution_that_passes_everything_it_names_is_one_clear_line(tmp_path):
    wrong = "# catches: test_toy::test_double, test_toy::test_halve[*]\n" + TOY_REFERENCE
    folder = make_lesson(tmp_path, wrong={"not_wrong.py": wrong})
    path, line, message = only(check_lesson(folder))
    assert path.endswith("wrong/not_wrong.py") and line == 1
    assert message.startswith("this solution may be correct: it passes every check its header names (3)")


def test_a_wrong_solution_that_slips_through_some_checks_names_them(tmp_path):
    wrong = ("# catches: test_toy::test_double, test_toy::test_halve[*]\n"
             + TOY_REFERENCE.replace("/ 2", "/ 3"))
    folder = make_lesson(tmp_path, wrong={"half_right.py": wrong})
    path, line, message = only(check_lesson(folder))
    assert message == "should fail test_toy::test_double, but it passes"
