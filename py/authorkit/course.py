"""The course: the lessons of a lessons folder, found and loaded one way (the build, the
scaffold and the tests use it instead of each globbing for lesson.toml). A lesson is a folder
holding a lesson.toml; other folders (notes, drafts without one) are not lessons."""
from __future__ import annotations

from pathlib import Path

from lessonkit.lesson import Lesson, LessonError, _read, load_lesson, parse_toml

LESSON_FILE = "lesson.toml"


class Course:
    def __init__(self, root):
        self.root = Path(root)

    def dirs(self) -> list[Path]:
        """Every lesson folder, by folder name (whether or not it loads)."""
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if (p / LESSON_FILE).is_file())

    def lessons(self) -> list[Lesson]:
        """Every lesson, loaded (a LessonError for the first that does not), in course order."""
        return sorted((load_lesson(d) for d in self.dirs()), key=lambda lesson: (lesson.order, lesson.id))

    def lesson(self, slug: str) -> Lesson:
        return load_lesson(self.root / slug)

    def next_order(self) -> int:
        """The `order` after every lesson's. Read from each lesson.toml alone, so that one broken
        lesson (a draft in progress) does not stop `lessonkit new`."""
        orders = []
        for folder in self.dirs():
            path = folder / LESSON_FILE
            try:
                value = parse_toml(path, _read(path)).get("order")
            except LessonError:
                continue
            if isinstance(value, int) and not isinstance(value, bool):
                orders.append(value)
        return max(orders, default=0) + 1
