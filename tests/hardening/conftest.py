"""Fixtures for the hardening tests: a private copy of the tp-mlp lesson (the files a browser
gets) for every test, so a case that attacks the checks can never touch the repository's."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TP_MLP = ROOT / "lessons" / "tp-mlp"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def copy_lesson(source: Path, target: Path) -> Path:
    """The shipped subset of a lesson: lesson.toml, starter.py, checks/."""
    target.mkdir(parents=True)
    for name in ("lesson.toml", "starter.py"):
        shutil.copy2(source / name, target / name)
    shutil.copytree(source / "checks", target / "checks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def lesson_dir(tmp_path, monkeypatch) -> Path:
    """tmp/lesson/tp-mlp, with the working directory at tmp/work (where the CLI's child runs
    learner code too), so cases find the checks the same way everywhere."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return copy_lesson(TP_MLP, tmp_path / "lesson" / "tp-mlp")


def tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def run_cli(*args, cwd=None, timeout=300):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    return subprocess.run([sys.executable, "-m", "lessonkit", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)
