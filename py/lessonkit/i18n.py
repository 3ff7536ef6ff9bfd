"""Learner-facing text in the learner's language: gettext-style catalogs (PO files).

Checks and the engine write every learner-facing string as

    from lessonkit.i18n import _
    fail(_("{fn} returned {got}; expected {want}.", fn=c.text(), got=..., want=...))

The English text is the msgid; `lessons/<slug>/locale/<lang>.po` (and the engine's own
`lessonkit/locale/<lang>.po`) map it to the translation, keeping the `{named}` fields. A msgid
with no translation falls back to English. `use(lang, lesson_dir)` selects the catalogs for
one grading run; check titles (docstring first lines) and hints go through the same catalogs.
"""
from __future__ import annotations

import ast
import re
from contextlib import contextmanager
from pathlib import Path

from . import po

DEFAULT = "en"  # the language msgids are written in
ENGINE_LOCALE = Path(__file__).resolve().parent / "locale"

# msgid -> msgstr for the language of the grading run in progress (empty: English).
_catalog: dict[str, str] = {}


def _(msgid: str, **fields) -> str:
    text = _catalog.get(msgid) or msgid
    return text.format(**fields) if fields else text


def catalog(lang: str, lesson_dir) -> dict[str, str]:
    """The engine's catalog for `lang` overlaid with the lesson's (the lesson wins)."""
    if lang == DEFAULT:
        return {}
    merged = {}
    for path in (ENGINE_LOCALE / f"{lang}.po", Path(lesson_dir) / "locale" / f"{lang}.po"):
        merged.update({e.msgid: e.msgstr for e in po.read(path).values() if e.msgstr})
    return merged


@contextmanager
def use(lang: str, lesson_dir):
    """Learner-facing text in `lang` while the block runs (English afterwards)."""
    _catalog.clear()
    _catalog.update(catalog(lang, lesson_dir))
    try:
        yield
    finally:
        _catalog.clear()


def source_msgids(path: Path) -> list[tuple[str, int]]:
    """(msgid, line) for every `_("literal")` in a Python file, and for check files the first
    docstring line of every `test_*` function (the check titles)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"
                and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            found.append((node.args[0].value, node.lineno))
        elif (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
              and path.name.startswith("test_")):
            doc = ast.get_docstring(node)
            if doc:
                found.append((doc.strip().splitlines()[0].strip(), node.body[0].lineno))
    return found


def parameter_ids(path: Path) -> set[str]:
    """The parameter ids written in a check file (`ids=[...]`, `pytest.param(..., id=...)`):
    translated when the catalog has them, shown as written otherwise ("n=2")."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("id", "ids"):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            found |= {v.value for v in values
                      if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return found


def untranslated(lang: str, wanted: list[tuple[str, Path, int]], catalog_path: Path,
                 optional: set[str] = frozenset()) -> list[str]:
    """`path:line: ...` for every wanted msgid that `catalog_path` does not translate, and for
    every entry of the catalog that nothing uses any more (`optional` msgids count as used)."""
    entries = po.read(catalog_path)
    gaps, seen = [], set()
    for msgid, path, line in wanted:
        if msgid in seen:
            continue
        seen.add(msgid)
        if not entries.get(msgid) or not entries[msgid].msgstr:
            gaps.append(f"{path}:{line}: no {lang} translation (in {catalog_path}) of "
                        f"{_short(msgid)}")
    for e in entries.values():
        if e.msgid not in seen and e.msgid not in optional:
            gaps.append(f"{catalog_path}:{e.line}: {_short(e.msgid)} is translated but no "
                        "longer used")
    return gaps


def _short(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    return repr(text if len(text) <= 70 else text[:67] + "...")
