"""The widgets' text files, checked before a build bundles them: each widget's English and Polish
text lives beside it in widgets/<name>.text.json, the kit's shared texts in
web/src/widgets/text.json, and widget-kit/i18n.js's `translator` reads both (docs/widgets.md).

    {"en": {"title": "Attention, split by heads", "gpu": "GPU {i}",
            "owns": {"one": "head {first}", "other": "heads {first}–{last}"}},
     "pl": {"title": "Uwaga podzielona na głowice", "gpu": "GPU {i}",
            "owns": {"one": "głowica {first}", "few": "głowice {first}–{last}", "many": "..."}}}

Every mistake is located at its file and line: a file that is not JSON, a key written twice, a
text missing in one language, a {placeholder} in one language only, plural forms other than the
language's, and a key the widget's code (or a kit module it imports) asks for that no text has."""
from __future__ import annotations

import json
import re
from pathlib import Path

from lessonkit.lesson import Lesson, LessonError, _read

KIT = Path(__file__).resolve().parents[2] / "web" / "src" / "widgets"
KIT_TEXT = KIT / "text.json"
SUFFIX = ".text.json"
# The plural categories of Intl.PluralRules for integer counts, which the page's `inflect` picks
# from (the same forms, in the same order, as lessonkit.i18n.PLURALS for the grader's catalogs).
PLURAL_FORMS = {"en": ("one", "other"), "pl": ("one", "few", "many")}

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_FIELD = re.compile(r"\{(\w+)\}")
# A literal key in the code: t(lang, "key" or t(state.lang, 'key' (a key built at run time,
# t(lang, `step-${k}`), cannot be checked here).
_CODE_KEY = re.compile(r"""\bt\(\s*[\w.]+\s*,\s*(?:"([\w-]+)"|'([\w-]+)')""")
_SHOWS_TEXT = re.compile(r"\btranslator\(|\bt\(")  # a widget with no text of its own needs no file
_KIT_IMPORT = re.compile(r"""from\s+["']widget-kit/([\w-]+\.js)["']""")
_KIT_LOCAL_IMPORT = re.compile(r"""from\s+["']\./([\w-]+\.js)["']""")


def text_file(widget: Path) -> Path:
    """Where the widget at widgets/<name>.js keeps its text: widgets/<name>.text.json."""
    return widget.with_name(widget.stem + SUFFIX)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _key_lines(text: str, path: Path) -> dict[tuple, int]:
    """(language, key) and (language,) -> the line each is written on; a key written twice in one
    object is an error (json.loads would keep the last one silently)."""
    lines, stack, pending, last = {}, [], None, None  # stack: each open object's path, None for an array
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == ":" and last is not None and stack and stack[-1] is not None:
            key_path = (*stack[-1], json.loads(last[0]))
            if key_path in lines:
                raise LessonError(path, _line(text, last[1]), f"{'.'.join(key_path)!r} is written "
                                  f"twice (first at line {lines[key_path]})")
            lines[key_path] = _line(text, last[1])
            pending = key_path
        elif tok == "{":
            stack.append(pending if pending is not None else () if not stack else None)
            pending = None
        elif tok == "[":
            stack.append(None)
            pending = None
        elif tok in "}],":
            if tok != "," and stack:
                stack.pop()
            pending = None
        last = (tok, m.start()) if tok.startswith('"') else None
    return lines


def _fields(message) -> set[str]:
    forms = message.values() if isinstance(message, dict) else [message]
    return {name for form in forms if isinstance(form, str) for name in _FIELD.findall(form)}


def read(path: Path, languages: list[str]) -> tuple[dict, list[LessonError]]:
    """The text file at `path` ({language: {key: message}}) and its mistakes, located."""
    text = _read(path)
    try:
        data = json.loads(text)
        lines = _key_lines(text, path)
    except json.JSONDecodeError as exc:
        return {}, [LessonError(path, exc.lineno, f"not valid JSON: {exc.msg}")]
    except LessonError as exc:
        return {}, [exc]
    if not isinstance(data, dict) or not set(languages) <= set(data):
        return {}, [LessonError(path, 1, f"a widget's text is {{{', '.join(map(json.dumps, languages))}}}: "
                                f"one object per language of the lesson (found {sorted(data) if isinstance(data, dict) else type(data).__name__})")]
    languages = [*languages, *(lang for lang in data if lang not in languages)]  # more is fine, each complete
    problems = []
    for lang in languages:
        if not isinstance(data[lang], dict):
            problems.append(LessonError(path, lines.get((lang,), 1), f'"{lang}" must be an object of key: text'))
            data[lang] = {}
    names = {"en": "English", "pl": "Polish"}
    for lang in languages:
        for key, message in data[lang].items():
            at = lines.get((lang, key), 1)
            forms = PLURAL_FORMS.get(lang, ())
            if isinstance(message, dict):
                if set(message) != set(forms) or not all(isinstance(f, str) for f in message.values()):
                    problems.append(LessonError(path, at, f"{key!r} in {names.get(lang, lang)}: plural forms are "
                                                f"{', '.join(forms)} (a text for each); found {', '.join(message)}"))
            elif not isinstance(message, str):
                problems.append(LessonError(path, at, f"{key!r}: a text is a string, or plural forms "
                                            f"{{{', '.join(forms)}}} chosen by `count`"))
            for other in languages:
                if other != lang and key not in data[other]:
                    problems.append(LessonError(path, at, f"{key!r} has no {names.get(other, other)} text: "
                                                f"add it to \"{other}\""))
        if lang == languages[0]:
            continue
        for key, message in data[lang].items():
            first = data[languages[0]].get(key)
            if first is not None and _fields(message) != _fields(first):
                problems.append(LessonError(path, lines.get((lang, key), 1), f"{key!r}: the {names.get(lang, lang)} "
                                            f"placeholders {sorted(_fields(message))} differ from the "
                                            f"{names.get(languages[0], languages[0])} {sorted(_fields(first))}"))
    return data, problems


def code_keys(source: str) -> dict[str, int]:
    """The literal keys `source` passes to t(lang, "key", ...), each with its first line."""
    keys = {}
    for m in _CODE_KEY.finditer(source):
        keys.setdefault(m.group(1) or m.group(2), _line(source, m.start()))
    return keys


def kit_text_problems() -> list[LessonError]:
    """The kit's shared texts (web/src/widgets/text.json), English and Polish."""
    return read(KIT_TEXT, list(PLURAL_FORMS))[1]


def _kit_modules(module: Path) -> list[Path]:
    """`module` and the kit modules it imports (./x.js), and theirs: live.js asks for
    try-mine.js's texts through the tryMine it makes."""
    found, todo = [], [module]
    while todo:
        m = todo.pop()
        if m in found or not m.is_file():
            continue
        found.append(m)
        todo += [KIT / name for name in _KIT_LOCAL_IMPORT.findall(m.read_text(encoding="utf-8"))]
    return found


def widget_text_problems(widget: Path, languages: list[str]) -> list[LessonError]:
    """The text of the widget at `widget` (a .js file): its file's mistakes, and every key its
    code or a kit module it imports asks for that neither its text nor the kit's has."""
    source, path = _read(widget), text_file(widget)
    if not path.is_file():
        return [LessonError(widget, 1, f"the widget's text file {path.name} is missing: every text a "
                            "widget shows lives there, in each language (docs/widgets.md)")] if _SHOWS_TEXT.search(source) else []
    data, problems = read(path, languages)
    if problems:
        return problems
    kit = read(KIT_TEXT, list(PLURAL_FORMS))[0]
    known = {key for texts in (data, kit) for key in texts.get(languages[0], {})}
    wanted = {key: (widget, line) for key, line in code_keys(source).items()}
    for m in _KIT_IMPORT.finditer(source):
        for module in _kit_modules(KIT / m.group(1)):
            for key in code_keys(module.read_text(encoding="utf-8")):
                wanted.setdefault(key, (widget, _line(source, m.start())))
    return [LessonError(where, line, f"text {key!r} is used here but {path.name} has none: add it "
                        "in every language") for key, (where, line) in sorted(wanted.items()) if key not in known]


def lesson_text_problems(lesson: Lesson) -> list[LessonError]:
    """The text of each of the lesson's widgets, and any text file that belongs to no widget."""
    folder = lesson.path / "widgets"
    problems = []
    for name in lesson.widgets:
        widget = folder / f"{name}.js"
        if widget.is_file():
            problems += widget_text_problems(widget, lesson.languages)
    if folder.is_dir():
        problems += [LessonError(p, 1, f"{p.name} belongs to no widget: there is no {p.name[:-len(SUFFIX)]}.js")
                     for p in sorted(folder.glob(f"*{SUFFIX}")) if not p.with_name(p.name[:-len(SUFFIX)] + ".js").is_file()]
    return problems
