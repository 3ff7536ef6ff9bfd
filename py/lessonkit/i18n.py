"""Learner-facing text in the learner's language: gettext-style catalogs (PO files).

Checks and the engine write every learner-facing string as

    from lessonkit.i18n import _
    fail(_("{fn} returned {got}; expected {want}.", fn=c.text(), got=..., want=...))

The English text is the msgid; `lessons/<slug>/locale/<lang>.po` (and the engine's own
`lessonkit/locale/<lang>.po`) map it to the translation, keeping the `{named}` fields. A msgid
with no translation falls back to English. `use(lang, lesson_dir)` selects the catalogs for
one grading run; check titles (docstring first lines) and hints go through the same catalogs.

A message with a count takes the language's plural form, and numbers are written the
language's way (Polish: "50 257", "1,65"):

    _n("{bad} of {size} entry is off", "{bad} of {size} entries are off", bad, bad=bad, size=n)
    _("off by {off}", off=number(0.125))      # integer fields are formatted by `_` itself

The catalog's plural entry has `msgid_plural` and one `msgstr[k]` per form of the language, in
the order of PLURALS (the same categories as the browser's Intl.PluralRules: Polish one, few,
many), so the page (web/src/widgets/i18n.js) and the grader agree on every count.
"""
from __future__ import annotations

import ast
import re
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from . import po

DEFAULT = "en"  # the language msgids are written in
ENGINE_LOCALE = Path(__file__).resolve().parent / "locale"

# msgid -> msgstr (a tuple of forms for a plural entry) for the language of the grading run
# in progress (empty: English), and that language.
_catalog: dict[str, str | tuple] = {}
_language = [DEFAULT]

# The builtins the message functions use, bound at import: a message about learner code that
# replaced builtins.isinstance (or abs, min, ...) is written while the replacement may still be
# in place (on the learner's side, or in one interpreter).
_isinstance, _bool, _int, _tuple, _str, _format, _len, _min, _abs = (
    isinstance, bool, int, tuple, str, format, len, min, abs)


def _english_plural(n: int) -> int:
    return 0 if n == 1 else 1


def _polish_plural(n: int) -> int:
    """CLDR's Polish categories for integers: one (1), few (2–4, 22–24, ... but not 12–14),
    many (everything else: 0, 5–21, 25–31, ...)."""
    if n == 1:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


# language -> the index of the plural form for a count (msgstr[index] in its catalog).
PLURALS = {"en": _english_plural, "pl": _polish_plural}

# language -> (thousands separator, decimal separator). Like CLDR (and Intl.NumberFormat),
# groups start at five digits in Polish ("5000", "50 257"); English is grouped the same way
# here so that a four-digit count does not read differently in the two languages.
_SEPARATORS = {"en": (",", "."), "pl": ("\u00a0", ",")}


def number(value, spec: str = "") -> str:
    """`value` written the way the current language writes numbers: `spec` is a format spec
    for the digits (".3g", ".6g"; empty: an int as it is, a float by repr)."""
    group, point = _SEPARATORS.get(_language[0], _SEPARATORS[DEFAULT])
    if _isinstance(value, _bool):
        return _str(value)
    text = _format(value, spec) if spec else _str(value)
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, rest = digits.partition(".")
    if whole.isdigit() and _len(whole) >= 5:
        whole = f"{_int(whole):,}".replace(",", group)
    return sign + whole + (point if dot else "") + rest


def _fields(fields: dict) -> dict:
    return {k: number(v) if _isinstance(v, _int) and not _isinstance(v, _bool) else v
            for k, v in fields.items()}


def _(msgid: str, **fields) -> str:
    text = _catalog.get(msgid) or msgid
    if _isinstance(text, _tuple):  # a plural entry used without a count: its first form
        text = text[0]
    return text.format(**_fields(fields)) if fields else text


def _n(singular: str, plural: str, count: int, /, **fields) -> str:
    """The form of a message for `count` (a number of things) in the current language."""
    forms = _catalog.get(singular)
    if _isinstance(forms, _tuple):
        text = forms[_min(PLURALS[_language[0]](_abs(count)), _len(forms) - 1)]
    else:
        text = singular if count == 1 else plural
    return text.format(**_fields(fields))


def catalog(lang: str, lesson_dir) -> dict[str, str]:
    """The engine's catalog for `lang` overlaid with the lesson's (the lesson wins)."""
    if lang == DEFAULT:
        return {}
    paths = (ENGINE_LOCALE / f"{lang}.po", Path(lesson_dir) / "locale" / f"{lang}.po")
    return dict(_merged(paths, tuple(_version(p) for p in paths)))


def _version(path: Path) -> tuple | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=16)
def _merged(paths: tuple[Path, ...], versions: tuple) -> dict[str, str]:
    """The catalogs at `paths` merged, parsed once per version of the files (`versions`, their
    mtime and size: an edited catalog is read again): every grading run in a language enters
    `use`, and parsing is most of a short run's cost in Pyodide. Callers get copies."""
    merged = {}
    for path in paths:
        merged.update({e.msgid: e.forms or e.msgstr
                       for e in po.read(path).values() if e.msgstr})
    return merged


@contextmanager
def use(lang: str, lesson_dir):
    """Learner-facing text in `lang` while the block runs (English afterwards)."""
    _catalog.clear()
    _catalog.update(catalog(lang, lesson_dir))
    _language[0] = lang
    try:
        yield
    finally:
        _catalog.clear()
        _language[0] = DEFAULT


def source_msgids(path: Path) -> list[tuple[str, int]]:
    """(msgid, line) for every `_("literal")` and `_n("literal", ...)` in a Python file (a
    plural entry is known by its singular), and for check files the first docstring line of
    every `test_*` function (the check titles)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("_", "_n")
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
