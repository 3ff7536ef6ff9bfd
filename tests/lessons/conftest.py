"""Fixtures for the suite that follows the lessons: every folder in lessons/ with a lesson.toml
is a parameter, so a new lesson is tested with no edit here. Each lesson's reference and wrong
solutions are graded once per session in CPython and once in Pyodide (all lessons in one Node
process)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "tests" / "pyodide_node")]

from lessonkit import grade, load_lesson  # noqa: E402
from sitebuild.lessons import shipped_paths  # noqa: E402

LESSONS = sorted(p.parent for p in (ROOT / "lessons").glob("*/lesson.toml"))


def pytest_generate_tests(metafunc):
    if "lesson_dir" in metafunc.fixturenames:
        metafunc.parametrize("lesson_dir", LESSONS, ids=[p.name for p in LESSONS])


def solutions(lesson) -> dict[str, str]:
    """The sources every lesson is graded with: its reference and each wrong/ file."""
    found = {"reference": lesson.reference.read_text(encoding="utf-8")}
    found.update({f"wrong/{w.path.name}": w.path.read_text(encoding="utf-8") for w in lesson.wrong})
    return found


@pytest.fixture(scope="session")
def cpython_verdicts():
    """{lesson id: {solution name: {check id: status}}}, graded in this process."""
    cache = {}

    def verdicts(lesson_dir: Path):
        if lesson_dir.name not in cache:
            lesson = load_lesson(lesson_dir)
            cache[lesson_dir.name] = {
                name: {c.id: c.status for c in grade(lesson, source).checks}
                for name, source in solutions(lesson).items()}
        return cache[lesson_dir.name]
    return verdicts


@pytest.fixture(scope="session")
def pyodide_verdicts():
    """The same for every lesson at once, in Pyodide 0.27.7 under Node (one process)."""
    from harness import grade_lessons_in_pyodide, missing
    if missing():
        pytest.skip(missing())
    batch = []
    for lesson_dir in LESSONS:
        lesson = load_lesson(lesson_dir)
        batch.append({"id": lesson.id, "solutions": solutions(lesson),
                      "files": [(rel.as_posix(), lesson_dir / rel) for rel in shipped_paths(lesson)]})
    out: dict = {}
    for r in grade_lessons_in_pyodide(batch):
        out.setdefault(r["lesson"], {})[r["name"]] = {c["id"]: c["status"] for c in r["report"]["checks"]}
    return out
