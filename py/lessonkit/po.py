"""Gettext PO catalogs, read with a small parser that runs the same in CPython and Pyodide
(no `gettext`/`babel` needed, and .po files stay the single source: nothing is compiled).

Supported: `#` comments, `msgctxt`-free entries of `msgid "..."` / `msgstr "..."`, strings
continued over several `"..."` lines, the C escapes \\n \\t \\" \\\\, and the header entry
(`msgid ""`), which is skipped. Plural forms are not used by the course and are rejected."""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

from .lesson import LessonError

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_LINE = re.compile(r'^(msgid|msgstr)\s+"(.*)"\s*$|^"(.*)"\s*$')


@dataclass(frozen=True)
class Entry:
    msgid: str
    msgstr: str
    line: int        # the line of `msgid`


def parse(text: str, path) -> dict[str, Entry]:
    """msgid -> Entry for every entry of a PO file; malformed input raises LessonError."""
    entries: dict[str, Entry] = {}
    current: dict | None = None   # {"msgid": [...], "msgstr": [...], "line": n}
    part = None

    def finish():
        if current is None:
            return
        if "msgstr" not in current:
            raise LessonError(path, current["line"], "msgid without a msgstr")
        msgid, msgstr = "".join(current["msgid"]), "".join(current["msgstr"])
        if not msgid:
            return  # the header entry
        if msgid in entries:
            raise LessonError(path, current["line"], f"msgid {msgid!r} appears twice (first at "
                                                     f"line {entries[msgid].line})")
        if msgstr and _fields(msgstr) != _fields(msgid):
            raise LessonError(path, current["line"],
                              f"the translation's {{fields}} {sorted(_fields(msgstr))} differ "
                              f"from the English {sorted(_fields(msgid))}")
        entries[msgid] = Entry(msgid, msgstr, current["line"])

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            word = line.split()[0]
            what = (f"`{word}` is not supported (plural forms and contexts are not used)"
                    if word.startswith("msg") else f"cannot read this line: {line[:40]!r}")
            raise LessonError(path, number, what)
        keyword, value = m.group(1), m.group(2) if m.group(1) else m.group(3)
        if keyword == "msgid":
            finish()
            current, part = {"msgid": [], "line": number}, "msgid"
        elif keyword == "msgstr":
            if current is None or "msgstr" in current:
                raise LessonError(path, number, "msgstr without a msgid before it")
            current["msgstr"], part = [], "msgstr"
        elif current is None:
            raise LessonError(path, number, "a continued string outside an entry")
        current[part].append(_unescape(value, path, number))
    finish()
    return entries


def read(path: Path) -> dict[str, Entry]:
    """The catalog at `path`; a missing file is an empty catalog."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise LessonError(path, 1, f"not UTF-8 text: {exc}") from None
    return parse(text, path)


def _unescape(value: str, path, number: int) -> str:
    out, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            nxt = value[i + 1:i + 2]
            if nxt not in _ESCAPES:
                raise LessonError(path, number, f"unknown escape \\{nxt} in a string")
            out.append(_ESCAPES[nxt])
            i += 2
        elif ch == '"':
            raise LessonError(path, number, 'a " inside a string must be written \\"')
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _fields(text: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<unbalanced braces>"}
