"""`lessonkit check` on authoring mistakes: each one reported once, as `path:line: message`
at the place to fix. Each test breaks the valid toy lesson in one way."""
import pytest

from lessonkit import LessonError, load_lesson
from authorkit.cli import check_lesson

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


@pytest.mark.parametrize("mistakes", ["", None], ids=["empty wrong.toml", "no wrong.toml"])
def test_a_lesson_needs_wrong_solutions(tmp_path, mistakes):
    folder = make_lesson(tmp_path, mistakes=mistakes)
    path, line, message = only(check_lesson(folder))
    assert path.endswith("toy/wrong.toml") and line == 1 and "no known-wrong solutions" in message


def test_a_starter_that_returns_instead_of_raising_is_located(tmp_path):
    starter = TOY_STARTER.replace('    """Half of x."""\n    raise NotImplementedError',
                                  '    """Half of x."""\n    return x / 2')
    folder = make_lesson(tmp_path, starter=starter)
    path, line, message = only(check_lesson(folder))
    assert path.endswith("starter.py") and line == 6 and "halve must `raise NotImplementedError`" in message


def mistake(fails='"test_toy::test_double", "test_toy::test_halve[*]"', edit="/ 2", to="/ 3", name="half_right"):
    return f"""\
# a comment above the mistake
[[mistake]]
name = "{name}"
fails = [{fails}]
replace = "{edit}"
with = "{to}"
"""


def test_a_wrong_solution_that_passes_everything_it_names_is_one_clear_line(tmp_path):
    folder = make_lesson(tmp_path, mistakes=mistake(edit="# unused", to="# still unused"),
                         reference=TOY_REFERENCE + "# unused\n")
    path, line, message = only(check_lesson(folder))
    assert path.endswith("toy/wrong.toml") and line == 2
    assert message.startswith("half_right: this solution may be correct: it passes every check its "
                              "`fails` names (3)")


def test_a_wrong_solution_that_slips_through_some_checks_names_them(tmp_path):
    folder = make_lesson(tmp_path, mistakes=mistake())
    path, line, message = only(check_lesson(folder))
    assert (path.split("/")[-1], line) == ("wrong.toml", 2)
    assert message == "half_right: should fail test_toy::test_double, but it passes"


def test_a_whole_file_wrong_solution_with_the_old_header_is_still_proved(tmp_path):
    """wrong/*.py headed `# catches:` (lessons written before wrong.toml) is graded as before."""
    wrong = ("# catches: test_toy::test_double, test_toy::test_halve[*]\n"
             + TOY_REFERENCE.replace("/ 2", "/ 3"))
    folder = make_lesson(tmp_path, wrong={"half_right.py": wrong})
    path, line, message = only(check_lesson(folder))
    assert path.endswith("wrong/half_right.py") and line == 1
    assert message == "half_right: should fail test_toy::test_double, but it passes"


@pytest.mark.parametrize("text, line, words", [
    (mistake(edit="return np.asarray(x, dtype=float) / 3"), 5,
     "mistake 'half_right': its `replace` text occurs 0 times in reference.py, it must occur exactly "
     "once (closest line: 'return np.asarray(x, dtype=float) / 2')"),
    (mistake(edit="np.asarray"), 5, "occurs 2 times in reference.py"),
    (mistake(name="Half Right"), 3, "a mistake needs a `name` of letters, digits"),
    (mistake(name="reference"), 3, "a mistake needs a `name`"),
    (mistake(fails=""), 4, "mistake 'half_right': `fails` must list the checks it must fail"),
    (mistake() + mistake(), 9, "two mistakes are named 'half_right'"),
    (mistake().replace("with =", "whith ="), 6, "unknown key `whith` (did you mean `with`?)"),
    (mistake().replace('"/ 3"', '["/ 3"]'), 5, "`replace` and `with` must both be strings, or lists"),
    (mistake().replace('replace = "/ 2"\nwith = "/ 3"\n', 'file = "wrong/nope.py"\n'), 5,
     "`file` 'wrong/nope.py' is not a file in the lesson folder"),
    (mistake().replace('replace = "/ 2"\nwith = "/ 3"\n', ""), 2, "give `replace` and `with`"),
    ("[[mistake]\n", 1, "invalid TOML"),
], ids=["not found", "twice", "bad name", "reserved name", "no fails", "same name", "misspelt key",
        "string and list", "no such file", "nothing to grade", "bad TOML"])
def test_a_broken_mistake_is_located_in_wrong_toml(tmp_path, text, line, words):
    folder = make_lesson(tmp_path, mistakes=text)
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert (info.value.path.split("/")[-1], info.value.line) == ("wrong.toml", line), info.value
    assert words in info.value.message, info.value.message


def test_a_mistake_can_name_a_test_id_with_a_comma(tmp_path):
    checks = TOY_CHECKS + '''

@pytest.mark.parametrize("x", [2.0], ids=["x=2, y=4"])
def test_pair(solution, x):
    """double of a pair"""
    expect_close(call(solution, "double", x), 2 * x, rtol=1e-12, atol=0)
'''
    folder = make_lesson(tmp_path, checks={"test_toy.py": checks}, mistakes=mistake(
        fails='"test_toy::test_double", "test_toy::test_pair[x=2, y=4]"', edit="2 * np", to="3 * np"))
    wrong = load_lesson(folder).wrong_solution("half_right")
    assert wrong.fails == ("test_toy::test_double", "test_toy::test_pair[x=2, y=4]")
    assert check_lesson(folder) == []


def test_several_edits_and_whole_files(tmp_path):
    both = mistake().replace('replace = "/ 2"\nwith = "/ 3"',
                             'replace = ["2 *", "/ 2"]\nwith = ["3 *", "/ 3"]')
    whole = '''
[[mistake]]
name = "starter"
fails = ["test_toy::*"]
file = "starter.py"

[[mistake]]
name = "own_file"
fails = ["test_toy::test_halve[*]"]
file = "wrong/own_file.py"
'''
    own = TOY_REFERENCE.replace("/ 2", "/ 4")
    folder = make_lesson(tmp_path, mistakes=both + whole, wrong={"own_file.py": own})
    lesson = load_lesson(folder)
    assert [w.name for w in lesson.wrong] == ["half_right", "starter", "own_file"]
    assert lesson.wrong_solution("half_right").source == TOY_REFERENCE.replace("2 *", "3 *").replace("/ 2", "/ 3")
    assert lesson.wrong_solution("starter").source == TOY_STARTER
    assert lesson.wrong_solution("own_file").source == own  # no `# catches:` needed: wrong.toml names it
    assert check_lesson(folder) == []


