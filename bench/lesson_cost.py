"""What each lesson costs in code: lines of checks (with their conftest), known-wrong solutions
(wrong.toml and any wrong/ files), widgets, and the companion's library, per lesson, besides
prose, notebooks and translations (issue 27's measure; the goal is 700 lines per lesson).
Translations are locale/*.po and each widget's text file, widgets/<name>.text.json (its English
and Polish, docs/widgets.md): only the widgets' .js files count as widget code.

    .venv/bin/python bench/lesson_cost.py [LESSONS_DIR]

Blank lines and comment-only lines count: they are what an author reads and keeps. A benchmark
that prints figures, not a test.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "py"))
from authorkit.course import Course  # noqa: E402

# Each part of a lesson: the globs, relative to its folder, that hold it.
PARTS = {
    "checks": ["checks/**/*.py"],
    "wrong": ["wrong.toml", "wrong/**/*.py"],
    "widgets": ["widgets/**/*.js", "widget-lib/**/*.js"],
    "companion": ["companion/**/*.py"],
}


def lines(folder: Path, globs: list[str]) -> int:
    files = {p for g in globs for p in folder.glob(g) if p.is_file() and "__pycache__" not in p.parts}
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)


def main() -> None:
    lessons = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "lessons"
    print(f"| lesson | {' | '.join(PARTS)} | total |")
    print(f"|---|{'---:|' * (len(PARTS) + 1)}")
    for folder in Course(lessons).dirs():
        counts = [lines(folder, globs) for globs in PARTS.values()]
        print(f"| {folder.name} | {' | '.join(map(str, counts))} | {sum(counts)} |")


if __name__ == "__main__":
    main()
