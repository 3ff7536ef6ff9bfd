"""Lessons as the build sees them: metadata for the pages, validation by the engine, the files
shipped to the browser (never reference.py or wrong/), companion downloads, rendered prose."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError

# Shipped to the browser, relative to the lesson folder; checks/ is shipped whole.
SHIPPED_FILES = ("lesson.toml", "starter.py")
SHIPPED_DIRS = ("checks",)
# Stable timestamps keep the archives byte-identical across builds.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


@dataclass
class Lesson:
    dir: Path
    id: str
    title: str
    summary: str
    order: int
    languages: list[str]
    packages: list[str]
    widgets: list[str]
    companion: dict[str, str]
    starter: str
    toml_text: str
    html: str = ""
    extra: dict = field(default_factory=dict)

    def toml_line(self, key: str) -> int:
        """The line in lesson.toml that sets `key` (1 when it cannot be found)."""
        for number, line in enumerate(self.toml_text.splitlines(), 1):
            if line.split("=")[0].strip() == key:
                return number
        return 1


def find_lessons(lessons_dir: Path) -> list[Path]:
    return sorted(p for p in lessons_dir.iterdir() if (p / "lesson.toml").is_file())


def validate(lesson_dirs: list[Path], py_dir: Path, root: Path, log=print):
    """Runs the engine's `lessonkit check` on every lesson; the first failure stops the build with
    the engine's located message."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(py_dir), os.environ.get("PYTHONPATH", "")])}
    for lesson_dir in lesson_dirs:
        log(f"checking {_rel(lesson_dir, root)}")
        proc = subprocess.run([sys.executable, "-m", "lessonkit", "check", str(lesson_dir)],
                              capture_output=True, text=True, cwd=root, env=env)
        if proc.returncode != 0:
            detail = "\n".join(s.strip() for s in (proc.stdout, proc.stderr) if s.strip())
            raise BuildError(f"lesson {_rel(lesson_dir, root)} failed `lessonkit check`:\n{detail}")


def load(lesson_dir: Path, root: Path) -> Lesson:
    toml_path = lesson_dir / "lesson.toml"
    text = toml_path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BuildError(f"{_rel(toml_path, root)}:{getattr(e, 'lineno', 1)}: {e}") from None
    starter = (lesson_dir / "starter.py").read_text(encoding="utf-8")
    lesson = Lesson(
        dir=lesson_dir, id=data["id"], title=data["title"], summary=data.get("summary", ""),
        order=int(data.get("order", 0)), languages=list(data.get("languages", ["en"])),
        packages=list(data.get("packages", [])), widgets=list(data.get("widgets", [])),
        companion=dict(data.get("companion", {})), starter=starter, toml_text=text,
        extra={"limits": data.get("limits", {}),
               "functions": [f.get("signature", f.get("name")) for f in data.get("functions", [])]},
    )
    for key, rel in lesson.companion.items():
        if not (lesson_dir / rel).is_file():
            raise BuildError(f"{_rel(toml_path, root)}:{lesson.toml_line(key)}: companion file "
                             f"{rel!r} ({key}) does not exist in {_rel(lesson_dir, root)}/")
    return lesson


def render_prose(lessons: list[Lesson], known_widgets: list[str], tools_dir: Path, root: Path):
    """Renders every lesson.md with markdown-it and KaTeX in one Node process (render.mjs)."""
    documents = []
    for lesson in lessons:
        path = lesson.dir / "lesson.md"
        if not path.is_file():
            raise BuildError(f"{_rel(lesson.dir / 'lesson.toml', root)}:1: the lesson has no lesson.md")
        documents.append({"path": _rel(path, root), "text": path.read_text(encoding="utf-8"),
                          "languages": lesson.languages, "widgets": lesson.widgets,
                          "known_widgets": known_widgets})
    proc = subprocess.run(["node", str(tools_dir / "render.mjs")], input=json.dumps({"documents": documents}),
                          capture_output=True, text=True, cwd=root)
    if proc.returncode != 0:
        raise BuildError(f"rendering lesson prose failed:\n{proc.stderr.strip()}")
    results = json.loads(proc.stdout)["documents"]
    errors = [e for r in results for e in r["errors"]]
    if errors:
        raise BuildError("\n".join(errors))
    for lesson, result in zip(lessons, results):
        lesson.html = result["html"]


def shipped_paths(lesson: Lesson) -> list[Path]:
    """The lesson files the browser gets, relative to the lesson folder."""
    paths = [Path(name) for name in SHIPPED_FILES]
    for d in SHIPPED_DIRS:
        for p in sorted((lesson.dir / d).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                paths.append(p.relative_to(lesson.dir))
    return paths


def write_zip(out: Path, entries: list[tuple[str, Path]]):
    """A deterministic zip of (archive name, source file) pairs."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, src in entries:
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, src.read_bytes())


def engine_entries(py_dir: Path) -> list[tuple[str, Path]]:
    package = py_dir / "lessonkit"
    if not (package / "__init__.py").is_file():
        raise BuildError(f"the engine package is missing: {package}/__init__.py not found")
    return [(p.relative_to(py_dir).as_posix(), p) for p in sorted(package.rglob("*.py"))
            if "__pycache__" not in p.parts]


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
