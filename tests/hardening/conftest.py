"""Fixtures for the hardening tests: a private copy of the tp-mlp lesson (the files a browser
gets, with the catalogue's short time limits) for every test, so a case that attacks the checks
can never touch the repository's."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from catalogue import TP_MLP, copy_lesson  # noqa: E402


@pytest.fixture
def lesson_dir(tmp_path, monkeypatch) -> Path:
    """tmp/lesson/tp-mlp, with the working directory at tmp/work (where the CLI's child runs
    learner code too), so cases find the checks the same way everywhere."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return copy_lesson(TP_MLP, tmp_path / "lesson" / "tp-mlp")
