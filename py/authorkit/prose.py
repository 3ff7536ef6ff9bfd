"""Renders lessons' prose (lesson.md) with the build's own renderer, tools/sitebuild/render.mjs
(markdown-it and KaTeX under Node), so `lessonkit check` and the build never disagree about it.
Command line only: the browser gets the HTML the build rendered."""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lessonkit.lesson import Lesson, LessonError, _Locator, _read

RENDERER = Path(__file__).resolve().parents[2] / "tools" / "sitebuild" / "render.mjs"


@dataclass
class Prose:
    html: str
    problems: list[LessonError]


def render(lessons: list[Lesson]) -> list[Prose]:
    """Each lesson's lesson.md as HTML, with every problem located: math KaTeX rejects, a
    malformed or misplaced widget placeholder, an unknown `:::` block or language, a widget the
    lesson does not list, and a listed widget the prose never places. One Node process."""
    documents, missing = [], {}
    for lesson in lessons:
        path = lesson.path / "lesson.md"
        if not path.is_file():
            missing[lesson.id] = LessonError(path, 1, "missing file")
        documents.append({"lesson": lesson.id, "text": path.read_text(encoding="utf-8")
                          if path.is_file() else "", "languages": lesson.languages,
                          "widgets": lesson.widgets})
    try:
        proc = subprocess.run(["node", str(RENDERER)], input=json.dumps({"documents": documents}),
                              capture_output=True, text=True, cwd=RENDERER.parent)
    except FileNotFoundError:
        raise LessonError(RENDERER, 1, "Node.js is needed to render lesson.md (node not found)") from None
    if "ERR_MODULE_NOT_FOUND" in proc.stderr:
        raise LessonError(RENDERER, 1, "the renderer's npm packages (markdown-it, KaTeX) are not "
                          "installed: run `tools/setup.sh build` (`./dev serve` runs it)")
    if proc.returncode != 0:
        raise LessonError(RENDERER, 1, f"the renderer failed:\n{proc.stderr.strip()}")
    out = []
    for lesson, result in zip(lessons, json.loads(proc.stdout)["documents"]):
        if lesson.id in missing:
            out.append(Prose("", [missing[lesson.id]]))
            continue
        md = lesson.path / "lesson.md"
        problems = [LessonError(md, line, message) for line, message in result["errors"]]
        toml_path = lesson.path / "lesson.toml"
        locate = _Locator(toml_path, _read(toml_path))
        problems += [locate.error(f'"{name}"', f"widget {name!r} is declared but lesson.md never "
                                  f"places it (a line `{{{{ widget: {name} }}}}`)", raw=True)
                     for name in lesson.widgets if name not in result["placed"]]
        out.append(Prose(result["html"], problems))
    return out
