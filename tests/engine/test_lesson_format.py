"""The lesson format: loading, validation, and located errors."""
import shutil

import pytest

from lessonkit import LessonError, load_lesson
from lessonkit.cli import check_lesson
from lessonkit.lesson import widgets_near

from conftest import TOY_TOML, TP_MLP, make_lesson


def test_real_lesson_loads(tp_mlp):
    assert tp_mlp.id == "tp-mlp"
    assert [f.name for f in tp_mlp.functions] == ["gelu", "shard_mlp", "tp_mlp"]
    assert tp_mlp.function("shard_mlp").params == ("A", "B", "n")
    assert tp_mlp.limits.check_seconds == 5.0 and tp_mlp.limits.output_lines == 200
    assert tp_mlp.packages == ["numpy"]
    assert tp_mlp.reference is not None and len(tp_mlp.wrong) >= 15
    assert all(w.catches for w in tp_mlp.wrong)


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


def test_unknown_widget_located(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace("widgets = []",
                                                         'widgets = ["tp-mlp-example", "nope"]'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder, known_widgets={"tp-mlp-example", "row-split"})
    assert info.value.line == 7 and "'nope'" in info.value.message
    load_lesson(folder)  # widgets are not checked when the known names are unknown


def test_widgets_of_this_repository():
    assert widgets_near(TP_MLP) == {"tp-mlp-example", "row-split"}
    load_lesson(TP_MLP, known_widgets=widgets_near(TP_MLP))


def test_starter_signature_must_match(tmp_path):
    starter = 'def double(x):\n    raise NotImplementedError\n\n\ndef halve(y, z):\n    pass\n'
    folder = make_lesson(tmp_path, starter=starter)
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    err = info.value
    assert err.path.endswith("starter.py") and err.line == 5
    assert "halve(y, z)" in err.message and "lesson.toml:23" in err.message


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


def test_bad_limit_located(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace("check_seconds = 0.5",
                                                         'check_seconds = "soon"'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 10 and "check_seconds" in info.value.message


def test_bad_signature_located(tmp_path):
    folder = make_lesson(tmp_path, toml=TOY_TOML.replace('signature = "halve(x)"',
                                                         'signature = "halve x"'))
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.line == 23


def test_wrong_solution_needs_header(tmp_path):
    folder = make_lesson(tmp_path, wrong={"bad.py": "def double(x):\n    return x\n"})
    with pytest.raises(LessonError) as info:
        load_lesson(folder)
    assert info.value.path.endswith("bad.py") and info.value.line == 1


def test_wrong_header_patterns(tmp_path):
    folder = make_lesson(tmp_path, wrong={"w.py": "# catches: test_toy::test_halve[*], load\n"})
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
    assert [p.name for p in lesson.check_files] == ["test_gelu.py", "test_shard_mlp.py",
                                                    "test_tp_mlp.py"]


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
