"""The watch loop's memory of `lessonkit check`: a lesson whose check passed is skipped while
nothing it reads has changed, so a warm `serve --watch` start grades nothing and a save regrades
only the lessons it touched. What a check reads is digested: the lesson folder's files, the engine
and authoring tools (py/), the prose renderer and the npm packages it runs, and the interpreter
with its numpy and pytest. Not lesson.md: every build renders it with the same renderer and stops
at its problems, so a prose save regrades nothing. A plain build keeps no such memory: it checks
every lesson."""
from __future__ import annotations

import hashlib
import importlib.metadata
import sys
from pathlib import Path

_SKIPPED_PARTS = {"__pycache__", ".ipynb_checkpoints"}
PROSE = "lesson.md"


def _files(folder: Path, patterns=("**/*",)) -> list[Path]:
    found = {p for pattern in patterns for p in folder.glob(pattern)}
    return sorted(p for p in found if p.is_file() and not _SKIPPED_PARTS & set(p.parts)
                  and p.suffix != ".pyc")


def _digest(parts) -> str:
    h = hashlib.sha256()
    for name, data in parts:
        h.update(f"{len(name)}:{name}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


class CheckCache:
    def __init__(self, folder: Path, root: Path):
        self.folder = folder
        py = root / "py"
        tools = [root / "tools" / "sitebuild" / "render.mjs", root / "package-lock.json"]
        versions = f"{sys.version} numpy {_version('numpy')} pytest {_version('pytest')}"
        self.engine = _digest([("python", versions.encode())]
                              + [(p.relative_to(root).as_posix(), p.read_bytes())
                                 for p in _files(py, ("**/*.py", "**/*.po", "**/*.json")) + tools
                                 if p.is_file()])

    def digest(self, lesson_dir: Path) -> str:
        return _digest([("engine", self.engine.encode())]
                       + [(p.relative_to(lesson_dir).as_posix(), p.read_bytes()) for p in _files(lesson_dir)
                          if p != lesson_dir / PROSE])

    def _record(self, lesson_dir: Path) -> Path:
        return self.folder / f"{lesson_dir.name}.sha256"

    def passed(self, lesson_dir: Path, digest: str) -> bool:
        """Whether `lessonkit check` passed before on the inputs of `digest` (self.digest)."""
        try:
            return self._record(lesson_dir).read_text() == digest
        except FileNotFoundError:
            return False

    def record(self, lesson_dir: Path, digest: str) -> None:
        """The check passed on the inputs of `digest` (taken before it ran: a save during the
        check leaves the lesson to be checked again)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._record(lesson_dir).write_text(digest)


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"
