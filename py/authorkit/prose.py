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


class Renderer:
    """The renderer kept running (`render.mjs --serve`), one JSON line each way per request: the
    watch loop's, so that a prose save does not wait for Node and KaTeX to start."""

    def __init__(self):
        self.proc = None

    def __call__(self, request: str) -> subprocess.CompletedProcess:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(["node", str(RENDERER), "--serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                         cwd=RENDERER.parent)
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if answer:
            return subprocess.CompletedProcess(self.proc.args, 0, answer, "")
        stderr = self.proc.stderr.read()  # it ended: its own words say why
        self.proc = None
        return subprocess.CompletedProcess(["node", str(RENDERER)], 1, "", stderr)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


def render(lessons: list[Lesson], renderer: Renderer | None = None) -> list[Prose]:
    """Each lesson's lesson.md as HTML, with every problem located: math KaTeX rejects, a
    malformed or misplaced widget placeholder, an unknown `:::` block or language, a widget the
    lesson does not list, and a listed widget the prose never places. One Node process: a new
    one, or `renderer`'s."""
    documents, missing = [], {}
    for lesson in lessons:
        path = lesson.path / "lesson.md"
        if not path.is_file():
            missing[lesson.id] = LessonError(path, 1, "missing file")
        documents.append({"lesson": lesson.id, "text": path.read_text(encoding="utf-8")
                          if path.is_file() else "", "languages": lesson.languages,
                          "widgets": lesson.widgets})
    request = json.dumps({"documents": documents})
    try:
        proc = renderer(request) if renderer else subprocess.run(
            ["node", str(RENDERER)], input=request, capture_output=True, text=True, cwd=RENDERER.parent)
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
