"""Gettext PO catalogs, read with a small parser that runs the same in CPython and Pyodide
(no `gettext`/`babel` needed, and .po files stay the single source: nothing is compiled).

Supported: `#` comments, `msgctxt`-free entries of `msgid "..."` / `msgstr "..."`, strings
continued over several `"..."` lines, the C escapes \\n \\t \\" \\\\, the header entry
(`msgid ""`), which is skipped, and plural entries (`msgid_plural "..."` with `msgstr[0]`,
`msgstr[1]`, ...: as many forms as the language has, in the order of `lessonkit.i18n.PLURALS`,
which also picks the form for a count; the header's Plural-Forms line is documentation)."""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

from .lesson import LessonError

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_LINE = re.compile(r'^(msgid|msgid_plural|msgstr(?:\[\d\])?)\s+"(.*)"\s*$|^"(.*)"\s*$')


@dataclass(frozen=True)
class Entry:
    msgid: str
    msgstr: str
    line: int        # the line of `msgid`
    plural: str = ""         # msgid_plural, for an entry with plural forms
    forms: tuple = ()        # its msgstr[0], msgstr[1], ... (msgstr is then forms[0])


def parse(text: str, path) -> dict[str, Entry]:
    """msgid -> Entry for every entry of a PO file; malformed input raises LessonError."""
    entries: dict[str, Entry] = {}
    current: dict | None = None   # {"msgid": [...], "msgstr": [...], "line": n}, and for a
    # plural entry "msgid_plural": [...], "msgstr[0]": [...], ...
    part = None

    def finish():
        if current is None:
            return
        if "msgid_plural" in current:
            return finish_plural()
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

    def finish_plural():
        msgid, plural = "".join(current["msgid"]), "".join(current["msgid_plural"])
        keys = sorted(k for k in current if k.startswith("msgstr["))
        if keys != [f"msgstr[{i}]" for i in range(len(keys))] or not keys:
            raise LessonError(path, current["line"], "a plural entry needs msgstr[0], "
                                                     "msgstr[1], ... in order")
        forms = tuple("".join(current[k]) for k in keys)
        if msgid in entries:
            raise LessonError(path, current["line"], f"msgid {msgid!r} appears twice (first at "
                                                     f"line {entries[msgid].line})")
        for form in forms:
            if form and _fields(form) - _fields(msgid) - _fields(plural):
                raise LessonError(path, current["line"],
                                  f"the translation's {{fields}} {sorted(_fields(form))} are not "
                                  f"all in the English {sorted(_fields(msgid) | _fields(plural))}")
        msgstr = forms[0] if all(forms) else ""
        entries[msgid] = Entry(msgid, msgstr, current["line"], plural, forms if msgstr else ())

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            word = line.split()[0]
            what = (f"`{word}` is not supported (contexts are not used)"
                    if word.startswith("msg") else f"cannot read this line: {line[:40]!r}")
            raise LessonError(path, number, what)
        keyword, value = m.group(1), m.group(2) if m.group(1) else m.group(3)
        if keyword == "msgid":
            finish()
            current, part = {"msgid": [], "line": number}, "msgid"
        elif keyword == "msgid_plural":
            if current is None or set(current) != {"msgid", "line"}:  # right after the msgid
                raise LessonError(path, number, "msgid_plural must follow a msgid")
            current["msgid_plural"], part = [], "msgid_plural"
        elif keyword is not None and keyword.startswith("msgstr"):
            before = "msgid" if keyword == "msgstr" else "msgid_plural"
            if current is None or keyword in current or (
                    ("msgid_plural" in current) != (keyword != "msgstr")):
                raise LessonError(path, number, f"{keyword} without a {before} before it")
            current[keyword], part = [], keyword
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
    if "\\" not in value and '"' not in value:
        return value  # most lines: nothing to undo (the loop below is most of a catalog's parse)
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
