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


def test_a_wrong_solution_that_passes_everything_is_one_clear_line(tmp_path):
    folder = make_lesson(tmp_path, mistakes=mistake(edit="# unused", to="# still unused"),
                         reference=TOY_REFERENCE + "# unused\n")
    path, line, message = only(check_lesson(folder))
    assert path.endswith("toy/wrong.toml") and line == 2
    assert message.startswith("half_right: this solution passes every check: it may be correct")


def test_a_wrong_solution_that_slips_through_some_checks_names_them(tmp_path):
    folder = make_lesson(tmp_path, mistakes=mistake())
    path, line, message = only(check_lesson(folder))
    assert (path.split("/")[-1], line) == ("wrong.toml", 4)  # the line of `fails` that names it
    assert message == (f"half_right: should fail test_toy::test_double, {AIMED}")


AIMED = ("a check it is aimed at (`fails`), but it passes: the edit no longer breaks what it "
         "meant to, or the check stopped catching it")


def test_fails_names_the_aimed_at_checks_and_the_golden_report_pins_the_rest(tmp_path):
    """`fails` names the checks a mistake is aimed at, and it must fail at least those; its
    golden report pins every other check's status and message. The broken variants: a mistake
    that stops failing a check it is not aimed at shows as drift at that check in
    golden/<name>.json; one that stops failing its aimed-at check is reported in wrong.toml, at
    the line that names the check, as well."""
    edits = ('replace = ["2 * np", "/ 2"]\nwith = ["3 * np", "/ 3"]', 'replace = "/ 2"\nwith = "/ 3"',
             'replace = "2 * np"\nwith = "3 * np"')
    both, halve_only, double_only = (
        mistake(fails='"test_toy::test_halve[four]"').replace('replace = "/ 2"\nwith = "/ 3"', e)
        for e in edits)
    folder = make_lesson(tmp_path, mistakes=both)
    assert check_lesson(folder, update=True) == []
    golden = folder / "golden" / "half_right.json"
    assert '"test_toy::test_double",\n      "status": "failed"' in golden.read_text()
    assert check_lesson(folder) == []

    (folder / "wrong.toml").write_text(halve_only)
    status, message = check_lesson(folder)  # it fails test_double no more: nothing to say
    assert status.startswith(f"{golden}:8: test_toy::test_double: the status drifted")
    assert 'golden: "failed"\n  now:    "passed"' in status
    assert message.startswith(f"{golden}:8: test_toy::test_double: the en message drifted")

    (folder / "wrong.toml").write_text(double_only)
    problems = check_lesson(folder)
    assert problems[0] == f"{folder / 'wrong.toml'}:4: half_right: should fail test_toy::test_halve[four], {AIMED}"
    drifted = {p.split(": ")[1] for p in problems[1:] if "status drifted" in p}
    assert drifted == {"test_toy::test_halve[four]", "test_toy::test_halve[minus one]"}
    assert all(p.startswith(f"{golden}:") for p in problems[1:])


def test_a_pattern_that_matches_no_check_is_located_at_its_line(tmp_path):
    fails = '\n  "test_toy::test_double",\n  "test_toy::test_halv[*]",\n'
    folder = make_lesson(tmp_path, mistakes=mistake(fails=fails, edit="2 * np", to="3 * np"))
    path, line, message = only(check_lesson(folder))
    assert (path.split("/")[-1], line) == ("wrong.toml", 6)
    assert message == ("half_right: `fails` names 'test_toy::test_halv[*]', which matches no "
                       "check (closest: 'test_toy::test_halve[four]')")


def test_a_whole_file_wrong_solution_with_the_old_header_is_still_proved(tmp_path):
    """wrong/*.py headed `# catches:` (lessons written before wrong.toml) is graded as before."""
    wrong = ("# catches: test_toy::test_double, test_toy::test_halve[*]\n"
             + TOY_REFERENCE.replace("/ 2", "/ 3"))
    folder = make_lesson(tmp_path, wrong={"half_right.py": wrong})
    path, line, message = only(check_lesson(folder))
    assert path.endswith("wrong/half_right.py") and line == 1
    assert message == f"half_right: should fail test_toy::test_double, {AIMED}"


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


