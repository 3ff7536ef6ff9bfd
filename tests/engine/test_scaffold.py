"""`python -m lessonkit new SLUG`: a lesson that passes `lessonkit check` at once."""
import os
import shutil
import subprocess
import sys

import pytest

from lessonkit import load_lesson
from authorkit.cli import check_lesson

from conftest import REPO, TP_MLP

ENV = {**os.environ, "PYTHONPATH": str(REPO / "py")}


def lessonkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "lessonkit", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=ENV, timeout=300)


def test_new_lesson_passes_check_at_once(tmp_path):
    (tmp_path / "lessons").mkdir()
    made = lessonkit("new", "demo-lesson", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "lessonkit check lessons/demo-lesson" in made.stdout
    checked = lessonkit("check", "lessons/demo-lesson", cwd=tmp_path)
    assert checked.returncode == 0 and "lessons/demo-lesson: OK" in checked.stdout, checked.stdout
    lesson = load_lesson(tmp_path / "lessons" / "demo-lesson")
    assert lesson.id == "demo-lesson" and lesson.order == 1 and lesson.wrong


def test_new_lesson_comes_after_the_others(tmp_path):
    shutil.copytree(TP_MLP, tmp_path / "tp-mlp", ignore=shutil.ignore_patterns("__pycache__"))
    assert lessonkit("new", "next-one", "--lessons", tmp_path, cwd=tmp_path).returncode == 0
    assert load_lesson(tmp_path / "next-one").order == load_lesson(TP_MLP).order + 1
    assert check_lesson(tmp_path / "next-one") == []


@pytest.mark.parametrize("slug, message", [
    ("Demo", "is not a lesson slug"), ("demo_lesson", "is not a lesson slug"),
    ("demo--x", "is not a lesson slug"), ("1demo", "is not a lesson slug"),
])
def test_new_refuses_a_bad_slug(tmp_path, slug, message):
    run = lessonkit("new", slug, "--lessons", tmp_path, cwd=tmp_path)
    assert run.returncode == 2 and message in run.stderr and not list(tmp_path.iterdir())


def test_new_refuses_an_existing_folder(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    run = lessonkit("new", "taken", "--lessons", tmp_path, cwd=tmp_path)
    assert run.returncode == 2 and "already exists" in run.stderr
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]
