"""The lesson format: loading, validation, and located errors."""
import shutil

import pytest

from lessonkit import LessonError, grade, load_lesson
from authorkit.cli import check_lesson

from conftest import TOY_REFERENCE, TOY_TOML, TP_MLP, make_lesson


def test_real_lesson_loads(tp_mlp):
    assert tp_mlp.id == "tp-mlp"
    assert [f.name for f in tp_mlp.functions] == ["gelu", "shard_mlp", "tp_mlp"]
    assert tp_mlp.function("shard_mlp").params == ("A", "B", "n")
    assert tp_mlp.limits.check_seconds == 5.0 and tp_mlp.limits.output_lines == 200
    assert tp_mlp.packages == ["numpy"]
    assert tp_mlp.reference is not None and len(tp_mlp.wrong) >= 15
    assert all(w.fails and w.source for w in tp_mlp.wrong)


def test_error_text_is_path_line_message():
    err = LessonError("lessons/x/lesson.toml", 7, "bad thing")
    assert str(err) == "lessons/x/lesson.toml:7: bad thing"
    assert (err.path, err.line, err.message) == ("lessons/x/lesson.toml", 7, "bad thing")


def test_bad_toml_names_its_line(tmp_path):
    broken = TOY_TOML.replace('summary = "Two functions."', 'summary = "Two functions.')
    folder = make_lesson(tmp_path, toml=broken)
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.path.endswith("lesson.toml")
    assert info.value.line == 3
    assert "invalid TOML" in info.value.message


@pytest.mark.parametrize("missing", ["starter.py", "lesson.toml"])
def test_missing_file(toy_dir, missing):
    (toy_dir / missing).unlink()
    with pytest.raises(LessonError) as info:
        load_lesson(toy_dir)
    assert info.value.path == str(toy_dir / missing)
    assert info.value.line == 1 and "missing file" in info.value.message


def test_missing_checks_folder(toy_dir):
    shutil.rmtree(toy_dir / "checks")
    with pytest.raises(LessonError, match="checks"):
        load_lesson(toy_dir)


WIDGET = 'export const calls = [{calls}];\n\nexport function mount(el, ctx) {{\n  el.textContent = "hi";\n}}\n'


def with_widget(folder, name="doubler", calls='"double"', declare=True, place=True):
    """Give the toy lesson a widget file; declare it in lesson.toml and place it in lesson.md."""
    (folder / "widgets").mkdir(exist_ok=True)
    (folder / "widgets" / f"{name}.js").write_text(WIDGET.format(calls=calls))
    if declare:
        toml = folder / "lesson.toml"
        toml.write_text(toml.read_text().replace("widgets = []", f'widgets = ["{name}"]'))
    if place:
        (folder / "lesson.md").write_text(f"# Toy\n\n{{{{ widget: {name} }}}}\n")
    return folder


def located(problems, needle):
    """The one problem containing `needle`, as (path, line, message)."""
    [hit] = [p for p in problems if needle in p]
    path, line, message = hit.split(":", 2)
    return path, int(line), message.strip()


def test_a_declared_placed_widget_with_declared_calls_is_valid(toy_dir):
    with_widget(toy_dir)
    assert check_lesson(toy_dir) == []


def test_widget_calling_an_undeclared_function_is_located(toy_dir):
    with_widget(toy_dir, calls='"double", "shard_mlp"')
    path, line, message = located(check_lesson(toy_dir), "shard_mlp")
    assert path.endswith("widgets/doubler.js") and line == 1
    assert "lesson.toml does not declare" in message and "double, halve" in message


def test_calls_must_be_a_list_of_names(toy_dir):
    with_widget(toy_dir, calls="double")
    path, line, message = located(check_lesson(toy_dir), "`calls` must be")
    assert path.endswith("doubler.js") and line == 1


def test_widget_without_calls_or_mount(toy_dir):
    with_widget(toy_dir)
    (toy_dir / "widgets" / "doubler.js").write_text("export function show(el) {}\n")
    problems = check_lesson(toy_dir)
    assert located(problems, "export const calls")[0].endswith("doubler.js")
    assert located(problems, "export function mount")[0].endswith("doubler.js")


def test_declared_widget_without_file_is_located_in_lesson_toml(toy_dir):
    with_widget(toy_dir)
    (toy_dir / "widgets" / "doubler.js").unlink()
    path, line, message = located(check_lesson(toy_dir), "has no file")
    assert path.endswith("lesson.toml") and line == 7


def test_widget_file_not_declared_is_located(toy_dir):
    with_widget(toy_dir, declare=False, place=False)
    path, line, message = located(check_lesson(toy_dir), "not declared")
    assert path.endswith("widgets/doubler.js") and line == 1


def test_declared_widget_never_placed_is_located_in_lesson_toml(toy_dir):
    with_widget(toy_dir, place=False)
    path, line, message = located(check_lesson(toy_dir), "never places it")
    assert path.endswith("lesson.toml") and line == 7


def test_placeholder_of_an_unknown_widget_is_located(toy_dir):
    with_widget(toy_dir)
    (toy_dir / "lesson.md").write_text("# Toy\n\n{{ widget: doubler }}\n\n{{ widget: nope }}\n")
    path, line, message = located(check_lesson(toy_dir), "'nope'")
    assert path.endswith("lesson.md") and line == 5 and "not listed" in message


@pytest.mark.parametrize("prose, line", [
    ("See {{ widget: doubler }} here.\n", 3),
    ("Some text\n{{ widget: doubler }}\n", 4),
], ids=["inside a sentence", "no blank line before"])
def test_placeholder_not_alone_on_its_line_is_located(toy_dir, prose, line):
    with_widget(toy_dir)
    (toy_dir / "lesson.md").write_text("# Toy\n\n" + prose + "\n{{ widget: doubler }}\n")
    path, found, message = located(check_lesson(toy_dir), "alone on its line")
    assert path.endswith("lesson.md") and found == line


def test_results_come_in_the_teaching_order_of_checks(tmp_path):
    first = 'def test_z(solution):\n    """z first"""\n\n\ndef test_a(solution):\n    """then a"""\n'
    last = 'def test_b(solution):\n    """b last"""\n'
    folder = make_lesson(tmp_path, checks={"test_zz_intro.py": first, "test_aa_more.py": last})
    ids = [c.id for c in grade(load_lesson(folder), TOY_REFERENCE).checks]
    assert ids == ["load", "test_zz_intro::test_z", "test_zz_intro::test_a", "test_aa_more::test_b"]


@pytest.mark.parametrize("checks, message", [
    ('["test_toy", "test_gone"]', "`checks` names 'test_gone', but there is no checks/test_gone.py"),
    ('["test_toy", "test_toy"]', "`checks` names 'test_toy' twice"),
    ("[]", "it leaves out test_toy"),
])
def test_checks_must_list_every_check_file_once(tmp_path, checks, message):
    folder = make_lesson(tmp_path)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace('checks = ["test_toy"]', f"checks = {checks}"))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 8 and message in info.value.message


def test_missing_checks_key_suggests_the_line(tmp_path):
    folder = make_lesson(tmp_path)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace('checks = ["test_toy"]\n', ""))
    with pytest.raises(LessonError, match=r'missing required key `checks`: .* checks = \["test_toy"\]'):
        load_lesson(folder)


def test_starter_signature_must_match(tmp_path):
    starter = 'def double(x):\n    raise NotImplementedError\n\n\ndef halve(y, z):\n    pass\n'
    folder = make_lesson(tmp_path, starter=starter)
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    err = info.value
    assert err.path.endswith("starter.py") and err.line == 5
    assert "halve(y, z)" in err.message and "lesson.toml:24" in err.message


def test_starter_must_define_every_function(tmp_path):
    folder = make_lesson(tmp_path, starter="def double(x):\n    pass\n")
    with pytest.raises(LessonError, match=r"starter.py:1: does not define halve\(x\)"):
        load_lesson(folder)


def test_reference_signature_checked_too(tmp_path):
    folder = make_lesson(tmp_path, reference="def double(x):\n    pass\n\n\ndef halve():\n    pass\n")
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.path.endswith("reference.py") and info.value.line == 5


def test_id_must_match_folder(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace('id = "toy"', 'id = "other"'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 1 and "folder name" in info.value.message


def test_a_lesson_loads_from_inside_its_folder(tmp_path, monkeypatch):
    # `lessonkit grade . solution.py` run in the lesson's folder: "." is that folder.
    folder = make_lesson(tmp_path)
    monkeypatch.chdir(folder)
    assert load_lesson(".").id == "toy"


def test_bad_limit_located(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace("check_seconds = 0.5",
                                                         'check_seconds = "soon"'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 11 and "check_seconds" in info.value.message


def test_bad_signature_located(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace('signature = "halve(x)"',
                                                         'signature = "halve x"'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 24


def test_wrong_solution_needs_header(tmp_path):
    folder = make_lesson(tmp_path, mistakes=None, wrong={"bad.py": "def double(x):\n    return x\n"})
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.path.endswith("bad.py") and info.value.line == 1


def test_wrong_header_patterns(tmp_path):
    folder = make_lesson(tmp_path, mistakes=None, wrong={"w.py": "# catches: test_toy::test_halve[*], load\n"})
    wrong = load_lesson(folder).wrong[0]
    ids = ["load", "test_toy::test_double", "test_toy::test_halve[four]",
           "test_toy::test_halve[minus one]"]
    assert wrong.named(ids) == ["test_toy::test_halve[four]", "test_toy::test_halve[minus one]",
                                "load"]


def test_shipped_subset_loads(tmp_path):
    """What the browser gets: lesson.toml, starter.py and checks/ only."""
    target = tmp_path / "tp-mlp"
    target.mkdir()
    for name in ("lesson.toml", "starter.py"):
        shutil.copy(TP_MLP / name, target / name)
    shutil.copytree(TP_MLP / "checks", target / "checks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    lesson = load_lesson(target)
    assert lesson.reference is None and lesson.wrong == []
    assert [p.name for p in lesson.check_files] == [p.name for p in load_lesson(TP_MLP).check_files]


def test_missing_companion_file_located(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML + '\n[companion]\nnotebook = "companion.ipynb"\n')
    problems = check_lesson(folder)
    lines = (folder / "lesson.toml").read_text().splitlines()
    [located] = [p for p in problems if "companion" in p]
    path, line, message = located.split(":", 2)
    assert path.endswith("lesson.toml") and lines[int(line) - 1].startswith("notebook")
    assert "'companion.ipynb'" in message
    (folder / "companion.ipynb").write_text("{}")
    assert not [p for p in check_lesson(folder) if "companion" in p]


def test_solution_after_failed_runs(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace('order = 9', 'order = 9\nsolution_after_failed_runs = 3'))
    assert load_lesson(folder).solution_after_failed_runs == 3
    (folder / "lesson.toml").write_text(TOY_TOML.replace('order = 9', 'order = 9\nsolution_after_failed_runs = -1'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 5 and "0 or more" in info.value.message
    (folder / "lesson.toml").write_text(TOY_TOML)
    assert load_lesson(folder).solution_after_failed_runs == 0


HELPERS = "import numpy as np\n\nSCALE = 2.0\n\n\ndef scaled(x):\n    return SCALE * np.asarray(x, dtype=float)\n"


def with_given(tmp_path):
    folder = make_lesson(tmp_path, reference=
                         "import helpers\n\n\ndef double(x):\n    return helpers.scaled(x)\n\n\n"
                         "def halve(x):\n    return helpers.scaled(x) / 4\n",
                         mistakes='[[mistake]]\nname = "zero"\nfails = ["test_toy::test_double", '
                                  '"test_toy::test_halve[*]"]\nreplace = ["scaled(x)\\n", "scaled(x) / 4"]\n'
                                  'with = ["scaled(x) * 0\\n", "scaled(x) * 0"]\n')
    (folder / "helpers.py").write_text(HELPERS)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace("widgets = []", 'widgets = []\ngiven = ["helpers.py"]'))
    return folder


def test_given_code_is_importable_by_the_learner(tmp_path):
    folder = with_given(tmp_path)
    lesson = load_lesson(folder)
    assert lesson.given == {"helpers": HELPERS}
    assert check_lesson(folder) == []


def test_given_code_is_fresh_for_every_grading_run(tmp_path):
    lesson = load_lesson(with_given(tmp_path))
    tamper = ("import helpers\nhelpers.SCALE = 3.0\n\n\ndef double(x):\n    return helpers.scaled(x)\n\n\n"
              "def halve(x):\n    return helpers.scaled(x) / 4\n")
    assert not grade(lesson, tamper).passed
    honest = "import helpers\n\n\ndef double(x):\n    return helpers.scaled(x)\n\n\ndef halve(x):\n    return x / 2\n"
    assert grade(lesson, honest).passed


@pytest.mark.parametrize("given, message", [
    ('["helpers"]', "must be a module file beside lesson.toml"),
    ('["sub/helpers.py"]', "must be a module file beside lesson.toml"),
    ('["double.py"]', "would shadow a name learners use"),
    ('["missing.py"]', "missing file"),
])
def test_bad_given_files_are_located(tmp_path, given, message):
    folder = with_given(tmp_path)
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace('given = ["helpers.py"]', f"given = {given}"))
    with pytest.raises(LessonError, match=message):
        load_lesson(folder)


def test_the_course_finds_lesson_folders_and_loads_them_in_order(tmp_path):
    """Course: folders holding lesson.toml (by name), loaded in `order`; the order after the
    last one even while a lesson's lesson.toml is broken."""
    from authorkit.course import Course
    make_lesson(tmp_path / "b")  # toy, order 9
    shutil.copytree(TP_MLP, tmp_path / "a" / "tp-mlp", ignore=shutil.ignore_patterns("__pycache__"))
    course = Course(tmp_path / "a")
    for folder in (tmp_path / "b" / "toy",):
        shutil.move(folder, tmp_path / "a" / "toy")
    (tmp_path / "a" / "notes").mkdir()  # no lesson.toml: not a lesson
    assert [p.name for p in course.dirs()] == ["toy", "tp-mlp"]
    assert [lesson.id for lesson in course.lessons()] == ["tp-mlp", "toy"]
    assert course.lesson("toy").order == 9 and course.next_order() == 10
    (tmp_path / "a" / "toy" / "lesson.toml").write_text("order = [")
    assert course.next_order() == 2
    assert Course(tmp_path / "missing").dirs() == []
