"""The starter in each language of a lesson: its docstrings are msgids of the lesson's catalogs
(`locale/<lang>.po`), like check titles, and `translated` writes the starter with each docstring
that a catalog translates put in its place. Nothing else of the file changes, so the functions,
their signatures and their bodies are the English starter's; `problems` (in `lessonkit check`)
proves that for every language, on the text the page will show."""
from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from lessonkit import i18n
from lessonkit.lesson import Lesson, LessonError

_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _docstrings(tree: ast.Module) -> list[ast.Constant]:
    """The docstring literals of the module, its classes and functions, in file order."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, _DOCUMENTED) and node.body and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)
                and isinstance(node.body[0].value.value, str)):
            found.append(node.body[0].value)
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))


def msgids(source: str) -> list[tuple[str, int]]:
    """(msgid, line) for every docstring: its text as `inspect.cleandoc` gives it (the common
    indentation and the blank first and last lines removed)."""
    return [(inspect.cleandoc(c.value), c.lineno) for c in _docstrings(ast.parse(source))]


def _literal(text: str, indent: str, closing_alone: bool) -> str:
    """`text` as a triple-quoted docstring whose lines sit at `indent`, closing on a line of its
    own when the English one does; backslashes and quotes escaped, so any text is safe."""
    body = text.replace("\\", "\\\\").replace('"""', '\\"""')
    if body.endswith('"'):
        body = body[:-1] + '\\"'
    lines = body.split("\n")
    out = lines[0] + "".join("\n" + (indent + line if line else "") for line in lines[1:])
    return f'"""{out}' + (f"\n{indent}" if closing_alone else "") + '"""'


def translated(source: str, catalog: dict[str, str]) -> str:
    """`source` with every docstring that `catalog` translates replaced by its translation."""
    starts = [0]  # the byte offset of each line: the ast gives UTF-8 column offsets
    for line in re.split(r"(?<=\n)", source):
        starts.append(starts[-1] + len(line.encode("utf-8")))
    data = source.encode("utf-8")
    # Back to front, so the earlier offsets stay valid.
    for const in reversed(_docstrings(ast.parse(source))):
        translation = catalog.get(inspect.cleandoc(const.value))
        if not translation:
            continue
        start = starts[const.lineno - 1] + const.col_offset
        end = starts[const.end_lineno - 1] + const.end_col_offset
        raw = data[start:end].decode("utf-8")
        quote = raw[-3:] if raw.endswith(('"""', "'''")) else raw[-1]
        closing_alone = raw[:-len(quote)].rstrip(" \t").endswith("\n")
        new = _literal(translation, " " * const.col_offset, closing_alone).encode("utf-8")
        data = data[:start] + new + data[end:]
    return data.decode("utf-8")


def in_languages(lesson: Lesson) -> dict[str, str]:
    """{lang: the starter in lang} for every language of the lesson but English (the starter
    file itself) whose catalog translates at least one docstring."""
    out = {}
    for lang in lesson.languages:
        if lang == i18n.DEFAULT:
            continue
        text = translated(lesson.starter, i18n.catalog(lang, lesson.path))
        if text != lesson.starter:
            out[lang] = text
    return out


def _without_docstrings(source: str) -> str:
    tree = ast.parse(source)
    for const in _docstrings(tree):
        const.value = ""
    return ast.dump(tree)


def problems(lesson: Lesson) -> list[LessonError]:
    """A translated starter that is not the English one apart from its docstrings (which would
    change what the learner is graded on), located at the starter."""
    path = Path(lesson.path) / "starter.py"
    english = _without_docstrings(lesson.starter)
    found = []
    for lang, text in in_languages(lesson).items():
        try:
            same = _without_docstrings(text) == english
        except SyntaxError as exc:
            found.append(LessonError(path, 1, f"the {lang} starter (its docstrings from "
                                     f"locale/{lang}.po) is not valid Python: {exc.msg} (at its "
                                     f"line {exc.lineno})"))
            continue
        if not same:
            found.append(LessonError(path, 1, f"the {lang} starter (its docstrings from "
                                     f"locale/{lang}.po) differs from starter.py in more than "
                                     "its docstrings"))
    return found
