"""Lessons as the build sees them: metadata for the pages, validation by the engine, the files
shipped to the browser (never reference.py, wrong.toml, wrong/ or golden/), companion downloads, rendered prose."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from html import escape
from pathlib import Path

from authorkit import prose
from authorkit.problems import widget_file
from authorkit.widget_text import kit_text_problems, lesson_text_problems
from lessonkit import Lesson, LessonError, load_lesson

from .check_cache import CheckCache
from .errors import BuildError

# Shipped to the browser, relative to the lesson folder; checks/ is shipped whole.
SHIPPED_FILES = ("lesson.toml", "starter.py")
SHIPPED_DIRS = ("checks",)
# Shipped when the lesson has them: graded hints and message catalogs (see lessonkit.i18n).
OPTIONAL_FILES = ("hints.toml",)
OPTIONAL_DIRS = ("locale",)
# Stable timestamps keep the archives byte-identical across builds.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def validate(lesson_dirs: list[Path], py_dir: Path, root: Path, log=print, cache: CheckCache | None = None):
    """Runs the engine's `lessonkit check` on every lesson, one process per core at a time (each
    grades its lesson's solutions); the first lesson in order that fails stops the build with the
    engine's located message. With a `cache` (the watch loop), a lesson whose check passed on the
    same inputs before is not checked again."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(py_dir), os.environ.get("PYTHONPATH", "")])}
    digests = {d: cache.digest(d) for d in lesson_dirs} if cache else {}
    if cache:
        unchanged = [d for d in lesson_dirs if cache.passed(d, digests[d])]
        if unchanged:
            log(f"unchanged since their last check: {', '.join(d.name for d in unchanged)}")
        lesson_dirs = [d for d in lesson_dirs if d not in unchanged]

    def check(lesson_dir: Path) -> tuple[subprocess.CompletedProcess, float]:
        log(f"checking {_rel(lesson_dir, root)}")
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "lessonkit", "check", str(lesson_dir)],
                              capture_output=True, text=True, cwd=root, env=env)
        return proc, time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for lesson_dir, (proc, seconds) in zip(lesson_dirs, pool.map(check, lesson_dirs)):
            if proc.returncode != 0:
                pool.shutdown(cancel_futures=True)
                detail = "\n".join(s.strip() for s in (proc.stdout, proc.stderr) if s.strip())
                raise BuildError(f"lesson {_rel(lesson_dir, root)} failed `lessonkit check`:\n{detail}")
            # What each lesson's check costs (its author's wait, and the test suite's figures).
            log(f"checked {_rel(lesson_dir, root)} in {seconds:.1f} s")
            if cache:
                cache.record(lesson_dir, digests[lesson_dir])
    if lesson_dirs:
        log(f"checked {len(lesson_dirs)} lessons in {time.perf_counter() - start:.1f} s")


def load(lesson_dir: Path, root: Path) -> Lesson:
    """The lesson as the engine reads it: the format's own validation (lesson.toml, starter,
    checks/, companion files), so the build and `lessonkit check` never disagree on it."""
    try:
        return load_lesson(lesson_dir)
    except LessonError as e:
        raise BuildError(_located(e, root)) from None


def render_prose(lessons: list[Lesson], root: Path, renderer: prose.Renderer | None = None) -> dict[str, str]:
    """Renders every lesson.md in one Node process (a new one, or `renderer`'s), with the renderer
    `lessonkit check` uses; returns the HTML by lesson id."""
    try:
        rendered = prose.render(lessons, renderer)
    except LessonError as e:
        raise BuildError(_located(e, root)) from None
    errors = [_located(e, root) for r in rendered for e in r.problems]
    if errors:
        raise BuildError("\n".join(errors))
    return {lesson.id: r.html + given_html(lesson) for lesson, r in zip(lessons, rendered)}


def given_html(lesson: Lesson) -> str:
    """The lesson's given helper modules, shown read-only after the prose."""
    if not lesson.given:
        return ""
    # tabindex: a scrolling <pre> must be reachable from the keyboard (axe: scrollable-region-focusable).
    files = "".join(f'<details class="given-file" open><summary><code>{escape(name)}.py</code></summary>'
                    f'<pre tabindex="0"><code>{escape(source)}</code></pre></details>\n'
                    for name, source in lesson.given.items())
    imports = ", ".join(f"<code>import {escape(name)}</code>" for name in lesson.given)
    text = {"en": ("Given code", f"Your solution.py can use {imports}. These files are part of "
                   "the lesson: read them, but changes to them are not kept."),
            "pl": ("Gotowy kod", f"Twój solution.py może użyć {imports}. Te pliki są częścią "
                   "lekcji: można je czytać, ale zmiany w nich nie są zachowywane.")}
    blocks = "".join(f'<div class="lang-block" data-lang="{lang}" lang="{lang}"><h2>{title}</h2>'
                     f"<p>{intro}</p></div>" for lang, (title, intro) in text.items()
                     if lang in lesson.languages)
    return (f'<section class="given-code" aria-label="Given code" data-ui-aria-label="givenCode">'
            f"\n{blocks}\n{files}</section>\n")


def widgets(lessons: list[Lesson], root: Path) -> dict[str, dict[str, Path]]:
    """{lesson id: {widget name: its .js file}} for the bundle, once every widget's text file (and
    the kit's) is complete in every language: also a build without `lessonkit check` stops at an
    author's mistake in a text file, located, before esbuild bundles it."""
    errors = [_located(e, root) for e in kit_text_problems() + [p for lesson in lessons for p in lesson_text_problems(lesson)]]
    if errors:
        raise BuildError("\n".join(errors))
    return {lesson.id: {name: widget_file(lesson, name) for name in lesson.widgets} for lesson in lessons}


def _located(e: LessonError, root: Path) -> str:
    return f"{_rel(Path(e.path), root)}:{e.line}: {e.message}"


def shipped_paths(lesson: Lesson) -> list[Path]:
    """The lesson files the browser gets, relative to the lesson folder."""
    paths = [Path(name) for name in SHIPPED_FILES]
    paths += [Path(name) for name in OPTIONAL_FILES if (lesson.path / name).is_file()]
    paths += [Path(f"{name}.py") for name in lesson.given]
    for d in (*SHIPPED_DIRS, *OPTIONAL_DIRS):
        for p in sorted((lesson.path / d).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                paths.append(p.relative_to(lesson.path))
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


# `python -m lessonkit`, the authoring tools' command line (authorkit.cli): the one module of the
# engine the browser never runs, and the only one that imports authorkit.
ENGINE_LEFT_OUT = ("lessonkit/__main__.py",)


def engine_entries(py_dir: Path) -> list[tuple[str, Path]]:
    """lessonkit.zip: the runtime the grader and learner workers import, never authorkit
    (tests/engine/test_packages.py proves the runtime imports none of it)."""
    package = py_dir / "lessonkit"
    if not (package / "__init__.py").is_file():
        raise BuildError(f"the engine package is missing: {package}/__init__.py not found")
    # The code, its message catalogs (locale/<lang>.po) and its data (protocol.json).
    files = [*package.rglob("*.py"), *package.glob("locale/*.po"), *package.glob("*.json")]
    entries = [(p.relative_to(py_dir).as_posix(), p) for p in sorted(files) if "__pycache__" not in p.parts]
    return [(name, p) for name, p in entries if name not in ENGINE_LEFT_OUT]


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
