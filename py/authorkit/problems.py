"""What an authoring folder needs beyond what grading needs (lessonkit.lesson loads and validates
what grading needs, in the browser too): check titles, a starter that raises, known-wrong
solutions, pinned wheels fetched and verified, companion files, widgets against their files.
Each problem is a LessonError located in the lesson's files."""
from __future__ import annotations

import ast
import re
import zipfile
from pathlib import Path

from lessonkit.lesson import WRONG_TOML, Lesson, LessonError, _Locator, _read
from lessonkit.requirements import Pin

from .wheel_cache import PinError, install
from .widget_text import lesson_text_problems


def requirement_problems(lesson: Lesson) -> list[LessonError]:
    """Each pin whose wheel cannot be fetched from PyPI (or the cache), verified and unpacked,
    at its line in lesson.toml: grading (lessonkit.requirements) finds it unpacked there."""
    problems = []
    for pin in lesson.requirements:
        try:
            install(pin)
        except (PinError, OSError, zipfile.BadZipFile) as exc:
            problems.append(pin_error(lesson, pin, str(exc)))
    return problems


def pin_error(lesson: Lesson, pin: Pin, message: str) -> LessonError:
    """`message` about `pin`, located at its line in lesson.toml."""
    toml_path = lesson.path / "lesson.toml"
    return _Locator(toml_path, _read(toml_path)).error(f'"{pin.text}"', message, raw=True)


def missing_companions(lesson: Lesson) -> list[LessonError]:
    """The `[companion]` files an authoring folder lacks (the browser's copy ships none)."""
    toml_path = lesson.path / "lesson.toml"
    locate = _Locator(toml_path, _read(toml_path))
    return [locate.error(key, f"companion file {rel!r} ({key}) does not exist in the lesson folder",
                         locate.nth_table("[companion]", 0))
            for key, rel in lesson.companion.items() if not (lesson.path / rel).is_file()]


def authoring_problems(lesson: Lesson) -> list[LessonError]:
    """What an authoring folder needs beyond what grading needs: a title for every check, a
    starter that raises NotImplementedError in every declared function, a wrong/ gallery, and
    every pinned requirement fetched and verified."""
    problems = requirement_problems(lesson)
    for path in lesson.check_files:
        tree = ast.parse(_read(path), filename=str(path))
        tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.startswith("Test")):
            tests += [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
        for fn in tests:
            doc = ast.get_docstring(fn)
            if doc is None or not doc.strip():
                problems.append(LessonError(path, fn.lineno, f"check {fn.name} has no docstring; its "
                                            "first line is the title learners see"))
    starter = lesson.path / "starter.py"
    defs = {n.name: n for n in ast.parse(lesson.starter).body if isinstance(n, ast.FunctionDef)}
    for f in lesson.functions:
        node = defs[f.name]
        raises = any(isinstance(n, ast.Raise) and n.exc is not None
                     and "NotImplementedError" in ast.unparse(n.exc) for n in ast.walk(node))
        if not raises:
            problems.append(LessonError(starter, node.lineno, f"{f.name} must `raise "
                                        "NotImplementedError` in the starter, so that no check "
                                        "passes before the learner has written anything"))
    if not lesson.wrong:
        problems.append(LessonError(lesson.path / WRONG_TOML, 1, "no known-wrong solutions: add a "
                                    "[[mistake]] per classic mistake to wrong.toml (an edit of "
                                    "reference.py and the checks it is aimed at), so lessonkit check "
                                    "proves the checks catch them (docs/lesson-format.md)"))
    return problems


def widget_file(lesson: Lesson, name: str) -> Path:
    """Where the lesson's widget `name` lives: lessons/<slug>/widgets/<name>.js."""
    return lesson.path / "widgets" / f"{name}.js"


_CALLS = re.compile(r"^export\s+const\s+calls\s*=\s*\[([^\]]*)\]", re.MULTILINE)
_MOUNT = re.compile(r"^export\s+(?:async\s+)?function\s+mount\s*\(", re.MULTILINE)
_JS_STRING = re.compile(r"""\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*(?:,|$)""")


def widget_problems(lesson: Lesson) -> list[LessonError]:
    """The lesson's widgets against its files (authoring folders only): every name in `widgets`
    is a file widgets/<name>.js exporting `mount` and `calls`, every file there is declared,
    every learner function in `calls` is one the lesson declares, and its text file beside it
    is complete in every language (authorkit.widget_text)."""
    toml_path = lesson.path / "lesson.toml"
    locate = _Locator(toml_path, _read(toml_path))
    folder = lesson.path / "widgets"
    files = sorted(p.stem for p in folder.glob("*.js")) if folder.is_dir() else []
    problems = [LessonError(folder / f"{name}.js", 1, f"widget {name!r} is not declared: add it to "
                            f"`widgets` in {toml_path}") for name in files if name not in lesson.widgets]
    declared = {f.name for f in lesson.functions}
    for name in lesson.widgets:
        path = widget_file(lesson, name)
        if not path.is_file():
            problems.append(locate.error(f'"{name}"', f"widget {name!r} has no file: write "
                                         f"{path} (see docs/widgets.md)", raw=True))
            continue
        source = _read(path)
        if not _MOUNT.search(source):
            problems.append(LessonError(path, 1, "a widget must `export function mount(el, ctx)`"))
        m = _CALLS.search(source)
        if m is None:
            problems.append(LessonError(path, 1, "a widget must `export const calls = [...]`: the "
                                        "learner functions it runs (`[]` for none)"))
            continue
        line = source.count("\n", 0, m.start()) + 1
        body, names = m.group(1), []
        while body.strip():
            item = _JS_STRING.match(body)
            if item is None:
                problems.append(LessonError(path, line, "`calls` must be a list of function "
                                            "names in quotes, like [\"gelu\"]"))
                break
            names.append(item.group(1) if item.group(1) is not None else item.group(2))
            body = body[item.end():]
        for fn in names:
            if fn not in declared:
                problems.append(LessonError(path, line, f"calls {fn!r}, which lesson.toml does not "
                                            f"declare (its functions: {', '.join(sorted(declared))})"))
    return problems + lesson_text_problems(lesson)
