"""The lessons' pinned PyPI packages (lesson.toml `requirements`, lessonkit/requirements.py) in
the site: each wheel fetched and verified against its pin (into the cache grading installs
from, authorkit/wheel_cache.py), checked to install in the page with nothing from PyPI, and copied
once into dist/wheels/, shared by every lesson that pins it. The page installs them with micropip
(web/src/worker/packages.js), which vendor.MICROPIP ships."""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from authorkit.problems import pin_error, requirement_problems
from authorkit.wheel_cache import cached_wheel
from lessonkit import Lesson
from lessonkit.requirements import Pin

from . import lessons as lesson_files
from .errors import BuildError
from .vendor import wheel_metadata

WHEELS_DIR = "wheels"


@dataclass(frozen=True)
class LessonWheel:
    pin: Pin
    path: Path      # the verified copy in the cache

    @property
    def file_name(self) -> str:
        return self.path.name


def resolve(loaded: list[Lesson], root: Path) -> dict[str, list[LessonWheel]]:
    """Every lesson's pinned wheels, verified, by lesson id; every pin that fails (no pure
    wheel, no sha256, a different sha256) stops the build at its line in lesson.toml."""
    errors = [lesson_files._located(e, root) for lesson in loaded for e in requirement_problems(lesson)]
    if errors:
        raise BuildError("\n".join(errors))
    return {lesson.id: [LessonWheel(pin, cached_wheel(pin)) for pin in lesson.requirements]
            for lesson in loaded}


def check_installable(lesson: Lesson, wheels: list[LessonWheel], loaded: set[str], root: Path):
    """micropip installs each wheel without its dependencies (never from PyPI), so each one it
    needs must be another pin of the lesson or a package the page loads (`loaded`: the Pyodide
    packages, dependencies included); and a pin must not replace one of those."""
    pinned = {w.pin.name for w in wheels}
    errors = []
    for wheel in wheels:
        if wheel.pin.name in loaded:
            errors.append(pin_error(lesson, wheel.pin, f"{wheel.pin.name} is one of the packages "
                                    f"the page loads from Pyodide ({', '.join(sorted(loaded))}): "
                                    "do not pin it"))
        depends, _ = wheel_metadata(wheel.path)
        missing = [d for d in depends if d not in pinned and d not in loaded]
        if missing:
            errors.append(pin_error(lesson, wheel.pin, f"{wheel.file_name} needs "
                                    f"{', '.join(missing)}, which the page would not have: pin "
                                    "each in `requirements` too (or list a Pyodide package in "
                                    "`packages`)"))
    if errors:
        raise BuildError("\n".join(lesson_files._located(e, root) for e in errors))


def write(site: Path, resolved: dict[str, list[LessonWheel]]) -> dict[str, int]:
    """Copies each wheel once into site/wheels/ as PyPI serves it; returns each file's size."""
    sizes = {}
    for wheel in (w for wheels in resolved.values() for w in wheels):
        if wheel.file_name not in sizes:
            target = site / WHEELS_DIR / wheel.file_name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(wheel.path, target)
            sizes[wheel.file_name] = target.stat().st_size
    return sizes


def page_entries(wheels: list[LessonWheel]) -> list[dict]:
    """The page config's `lesson.requirements`: what packages.js installs, by file name, with the
    sha256 it checks each wheel's bytes against before installing it."""
    return [{"name": w.pin.name, "version": w.pin.version, "file": w.file_name, "sha256": w.pin.sha256}
            for w in wheels]

