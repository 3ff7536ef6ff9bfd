"""The lesson format: a folder with `lesson.toml`, `starter.py`, `checks/`, and for authors
`reference.py`, `wrong.toml`, `lesson.md`. Loading validates the contract and reports every problem
as `path:line: message`."""
from __future__ import annotations

import ast
import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .requirements import Pin, parse_pin


class LessonError(Exception):
    """A malformed lesson, located: str() is `path:line: message`."""

    def __init__(self, path, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Limits:
    check_seconds: float = 5.0
    total_seconds: float = 60.0
    output_lines: int = 200
    output_bytes: int = 20000
    recursion: int = 400
    memory_mb: int = 1024       # the command line's child process (the browser has its own)


@dataclass(frozen=True)
class Function:
    name: str
    signature: str
    summary: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class WrongSolution:
    """A known-wrong solution: a `[[mistake]]` of wrong.toml (reference.py with `replace`/`with`
    edits, or a whole file), or a wrong/*.py file whose first line is `# catches: a, b`. `fails`
    names the checks it must fail: exact check ids, or patterns where `*` matches anything
    (`test_gelu::*`, `*`)."""
    name: str             # unique in the lesson: names it in reports and golden/<name>.json
    source: str           # the solution as the learner would write it
    fails: tuple[str, ...]
    path: Path            # where it is declared (wrong.toml, or the wrong/*.py file) ...
    line: int             # ... and at which line, for located messages

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def named(self, ids) -> list[str]:
        """The ids among `ids` that `fails` names."""
        return match_ids(self.fails, ids)


def match_ids(patterns, ids) -> list[str]:
    """The ids among `ids` that `patterns` name: exact check ids, or patterns where `*`
    matches anything (wrong.toml, wrong/ headers and hints.toml use the same rule)."""
    out = []
    for p in patterns:
        if "*" in p:  # only `*` is special: ids hold brackets that must match literally
            rx = re.compile("^" + ".*".join(re.escape(s) for s in p.split("*")) + "$")
            out += [i for i in ids if rx.match(i)]
        elif p in ids:
            out.append(p)
    return list(dict.fromkeys(out))


@dataclass
class Lesson:
    path: Path
    id: str
    title: str
    summary: str
    order: int
    languages: list[str]
    packages: list[str]
    widgets: list[str]
    limits: Limits
    functions: list[Function]
    companion: dict[str, str]
    starter: str
    checks_dir: Path
    check_files: list[Path]
    reference: Path | None = None
    wrong: list[WrongSolution] = field(default_factory=list)
    # The model solution is offered after passing, or after this many failed runs (0: only
    # after passing); see docs/threat-model.md for what shipping it means.
    solution_after_failed_runs: int = 0
    # Read-only helper modules the learner's code imports: {module name: source}.
    given: dict[str, str] = field(default_factory=dict)
    # Pure-Python packages from PyPI, pinned with their wheel's sha256 (requirements.py).
    requirements: list[Pin] = field(default_factory=list)

    def wrong_solution(self, name: str) -> WrongSolution:
        """The known-wrong solution called `name` (wrong.toml's `name`, or a wrong/*.py stem)."""
        for w in self.wrong:
            if w.name == name:
                return w
        raise KeyError(name)

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


# key: (type, required); the types TOML gives us
_TOP_KEYS = {
    "id": (str, True), "title": (str, True), "summary": (str, True), "order": (int, True),
    "languages": (list, True), "packages": (list, False), "widgets": (list, False),
    "limits": (dict, False), "functions": (list, True), "companion": (dict, False),
    "checks": (list, True), "solution_after_failed_runs": (int, False), "given": (list, False),
    "requirements": (list, False),
}
_LIMIT_TYPES = {"check_seconds": (int, float), "total_seconds": (int, float),
                "output_lines": int, "output_bytes": int, "recursion": int,
                "memory_mb": int}
_FUNCTION_KEYS = ("name", "signature", "summary")
_CATCHES = re.compile(r"#\s*catches:\s*(.+?)\s*$")


def load_lesson(path) -> Lesson:
    """Load and validate the lesson folder at `path`.

    Works on an authoring folder and on the subset shipped to the browser (`lesson.toml`,
    `starter.py`, `checks/`).
    """
    root = Path(path)
    toml_path = root / "lesson.toml"
    if not root.is_dir():
        raise LessonError(root, 1, "no such lesson folder")
    text = _read(toml_path)
    data = parse_toml(toml_path, text)
    locate = _Locator(toml_path, text)

    for key in data:  # first: a misspelt key is reported as itself, not as a missing one
        if key not in _TOP_KEYS:
            raise locate.error(key, f"unknown key `{key}`" + _did_you_mean(key, _TOP_KEYS))
    for key, (kind, required) in _TOP_KEYS.items():
        if key not in data:
            if required:
                raise LessonError(toml_path, 1, f"missing required key `{key}`"
                                  + (_checks_example(root) if key == "checks" else ""))
            continue
        if not isinstance(data[key], kind) or (kind is int and isinstance(data[key], bool)):
            raise locate.error(key, f"`{key}` must be a {_KIND_WORDS[kind]}")
    folder = root.resolve().name  # `lessonkit grade . solution.py` inside the folder: "." has no name
    if data["id"] != folder:
        raise locate.error("id", f"id {data['id']!r} must equal the folder name {folder!r}")
    for key in ("languages", "packages", "widgets", "checks", "given", "requirements"):
        if not all(isinstance(v, str) for v in data.get(key, [])):
            raise locate.error(key, f"`{key}` must be a list of strings")
    limits = _limits(data.get("limits", {}), locate)
    functions = _functions(data["functions"], locate)
    companion = data.get("companion", {})
    if not all(isinstance(v, str) for v in companion.values()):
        raise locate.error("companion", "[companion] values must be file names (strings)")

    starter_path = root / "starter.py"
    starter = _read(starter_path)
    _check_defines(starter_path, starter, functions, toml_path, locate)
    reference = root / "reference.py"
    if reference.exists():
        _check_defines(reference, _read(reference), functions, toml_path, locate)

    checks_dir = root / "checks"
    if not checks_dir.is_dir():
        raise LessonError(checks_dir, 1, "missing folder: the hidden checks live in checks/")
    check_files = _teaching_order(data["checks"], checks_dir, locate)
    if (checks_dir / "__init__.py").exists():
        raise LessonError(checks_dir / "__init__.py", 1,
                          "checks/ must not be a package: remove __init__.py")

    return Lesson(
        path=root, id=data["id"], title=data["title"], summary=data["summary"],
        order=data["order"], languages=data["languages"], packages=data.get("packages", []),
        widgets=data.get("widgets", []), limits=limits, functions=functions,
        companion=companion, starter=starter, checks_dir=checks_dir, check_files=check_files,
        reference=reference if reference.exists() else None,
        wrong=_wrong_solutions(root, reference if reference.exists() else None),
        solution_after_failed_runs=_non_negative(data, "solution_after_failed_runs", locate),
        given=_given(root, data.get("given", []), functions, locate),
        requirements=_requirements(data.get("requirements", []), data.get("packages", []), locate),
    )


def parse_toml(path: Path, text: str) -> dict:
    """`text`, the file at `path` (lesson.toml, wrong.toml, hints.toml), as TOML: the one place
    the lesson's TOML files are parsed, a LessonError at the line the parser names."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise LessonError(path, int(m.group(1)) if m else 1, f"invalid TOML: {exc}") from None


def _requirements(entries: list[str], packages: list[str], locate) -> list[Pin]:
    """`requirements = ["einops==0.8.1 --hash=sha256:..."]`: exact pins, one per package."""
    pins = []
    for text in entries:
        pin = parse_pin(text)
        if isinstance(pin, str):
            raise locate.error(f'"{text}"', pin, raw=True)
        if any(p.name == pin.name for p in pins) or pin.name in packages:
            raise locate.error(f'"{text}"', f"{pin.name} is named twice (in `requirements` or "
                                            "`packages`): one pin per package", raw=True)
        pins.append(pin)
    return pins


def _given(root: Path, names: list[str], functions: list[Function], locate) -> dict[str, str]:
    """The given helper modules: `given = ["helpers.py"]` names .py files beside lesson.toml."""
    given = {}
    for name in names:
        stem = name[:-3] if name.endswith(".py") else ""
        if not stem.isidentifier() or "/" in name:
            raise locate.error("given", f"given file {name!r} must be a module file beside "
                                        "lesson.toml, like helpers.py")
        if stem in ("solution", "lessonkit", "numpy", "pytest") or stem in {f.name for f in functions}:
            raise locate.error("given", f"given module {stem!r} would shadow a name learners use")
        source = _read(root / name)
        try:
            ast.parse(source, filename=str(root / name))
        except SyntaxError as exc:
            raise LessonError(root / name, exc.lineno or 1, f"syntax error: {exc.msg}") from None
        given[stem] = source
    return given


def _non_negative(data: dict, key: str, locate) -> int:
    value = data.get(key, 0)
    if value < 0:
        raise locate.error(key, f"`{key}` must be 0 or more")
    return value


_KIND_WORDS = {str: "string", int: "integer", list: "list", dict: "table"}


class _Locator:
    """Finds the line of a key in lesson.toml, for located messages."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, needle: str, start: int = 1, raw: bool = False) -> int:
        pattern = re.compile(re.escape(needle) if raw else rf"^\s*{re.escape(needle)}\s*=")
        for number, line in enumerate(self.lines[start - 1:], start):
            if pattern.search(line):
                return number
        return start

    def nth_table(self, header: str, n: int) -> int:
        seen = -1
        for number, line in enumerate(self.lines, 1):
            if line.strip() == header:
                seen += 1
                if seen == n:
                    return number
        return 1

    def error(self, key: str, message: str, start: int = 1, raw: bool = False) -> LessonError:
        return LessonError(self.path, self.line_of(key, start, raw), message)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LessonError(path, 1, "missing file") from None
    except UnicodeDecodeError as exc:
        raise LessonError(path, 1, f"not UTF-8 text: {exc}") from None


def _limits(table: dict, locate: _Locator) -> Limits:
    start = locate.nth_table("[limits]", 0)
    for key, value in table.items():
        if key not in _LIMIT_TYPES:
            raise locate.error(key, f"unknown limit `{key}`" + _did_you_mean(key, _LIMIT_TYPES),
                               start)
        if isinstance(value, bool) or not isinstance(value, _LIMIT_TYPES[key]) or value <= 0:
            raise locate.error(key, f"`{key}` must be a positive number", start)
    return Limits(**table)


def _functions(entries: list, locate: _Locator) -> list[Function]:
    functions = []
    if not entries:
        raise locate.error("functions", "declare at least one [[functions]]")
    for i, entry in enumerate(entries):
        start = locate.nth_table("[[functions]]", i)
        if not isinstance(entry, dict):
            raise locate.error("functions", "`functions` must be [[functions]] tables")
        for key in entry:
            if key not in _FUNCTION_KEYS:
                raise locate.error(key, f"unknown key `{key}` in [[functions]]"
                                   + _did_you_mean(key, _FUNCTION_KEYS), start)
        for key in _FUNCTION_KEYS:
            if not isinstance(entry.get(key), str):
                raise LessonError(locate.path, start, f"[[functions]] needs a string `{key}`")
        name, signature = entry["name"], entry["signature"]
        params = _parse_signature(signature)
        if params is None or params[0] != name:
            raise locate.error("signature", f"signature {signature!r} must look like "
                                            f"{name}(a, b)", start)
        if any(f.name == name for f in functions):
            raise locate.error("name", f"function {name!r} is declared twice", start)
        functions.append(Function(name, signature, entry["summary"], params[1]))
    return functions


def _did_you_mean(key: str, known) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean `{close[0]}`?)" if close else f" (known: {', '.join(known)})"


def _checks_example(root: Path) -> str:
    stems = sorted(p.stem for p in (root / "checks").glob("test_*.py"))
    return (": the check files in the order learners see their results, e.g. checks = ["
            + ", ".join(f'"{s}"' for s in stems) + "]")


def _teaching_order(stems: list[str], checks_dir: Path, locate: _Locator) -> list[Path]:
    """The check files in the order `checks` lists them (the order learners see the results):
    every checks/test_*.py exactly once, by its stem."""
    files = {p.stem for p in checks_dir.glob("test_*.py")}
    if not files:
        raise LessonError(checks_dir, 1, "no check files (checks/test_*.py)")
    listed = ", ".join(f'"{stem}"' for stem in sorted(files))
    for stem in stems:
        if stem not in files:
            raise locate.error("checks", f"`checks` names {stem!r}, but there is no "
                                         f"checks/{stem}.py (the check files: {listed})")
        if stems.count(stem) > 1:
            raise locate.error("checks", f"`checks` names {stem!r} twice")
    unlisted = sorted(files - set(stems))
    if unlisted:
        raise locate.error("checks", f"`checks` must list every check file in teaching order; "
                                     f"it leaves out {', '.join(unlisted)}")
    return [checks_dir / f"{stem}.py" for stem in stems]


def _parse_signature(signature: str):
    """'f(a, b=1)' -> ('f', ('a', 'b')), or None when it is not a plain signature."""
    try:
        tree = ast.parse(f"def {signature}: pass")
    except SyntaxError:
        return None
    fn = tree.body[0]
    return fn.name, _param_names(fn.args)


def _param_names(args: ast.arguments) -> tuple[str, ...]:
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        names.append("*" + args.vararg.arg)
    names += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        names.append("**" + args.kwarg.arg)
    return tuple(names)


def _check_defines(path: Path, source: str, functions: list[Function], toml_path: Path,
                   locate: _Locator) -> None:
    """`path` defines every declared function at top level with the declared parameters."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise LessonError(path, exc.lineno or 1, f"syntax error: {exc.msg}") from None
    defs = {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for i, f in enumerate(functions):
        node = defs.get(f.name)
        declared_at = locate.line_of("signature", locate.nth_table("[[functions]]", i))
        if node is None:
            raise LessonError(path, 1, f"does not define {f.signature} "
                                       f"(declared at {toml_path}:{declared_at})")
        found = _param_names(node.args)
        if found != f.params:
            raise LessonError(path, node.lineno,
                              f"{f.name}({', '.join(found)}) does not match the signature "
                              f"{f.signature} declared at {toml_path}:{declared_at}")


WRONG_TOML = "wrong.toml"
_MISTAKE_KEYS = ("name", "fails", "file", "replace", "with")
_MISTAKE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


def _wrong_solutions(root: Path, reference: Path | None) -> list[WrongSolution]:
    """The mistakes of wrong.toml, in its order, then each wrong/*.py file it does not name
    (a whole file headed `# catches:`, the form before wrong.toml)."""
    wrong, named_files = [], set()
    toml_path = root / WRONG_TOML
    if toml_path.is_file():
        wrong = _mistakes(root, toml_path, reference)
        named_files = {(root / w.file).resolve() for w in wrong if w.file}
        wrong = [w.solution for w in wrong]
    folder = root / "wrong"
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if path.resolve() in named_files:
            continue
        source = _read(path)
        m = _CATCHES.match(source.split("\n", 1)[0])
        ids = tuple(s.strip() for s in m.group(1).split(",") if s.strip()) if m else ()
        if not ids:
            raise LessonError(path, 1, "the first line must be `# catches: <check id>[, ...]` "
                                       f"(or declare this file in {WRONG_TOML} with `file`)")
        if any(w.name == path.stem for w in wrong):
            raise LessonError(path, 1, f"{WRONG_TOML} already has a mistake named {path.stem!r}")
        wrong.append(WrongSolution(path.stem, source, ids, path, 1))
    return wrong


@dataclass(frozen=True)
class _Mistake:
    solution: WrongSolution
    file: str | None   # the file it starts from, when not reference.py


def _mistakes(root: Path, toml_path: Path, reference: Path | None) -> list[_Mistake]:
    from . import edits  # the edit rule shared with companionkit's mutations.toml
    text = _read(toml_path)
    data = parse_toml(toml_path, text)
    locate = _Locator(toml_path, text)
    for key in data:
        if key != "mistake":
            raise locate.error(key, f"unknown key `{key}`: {WRONG_TOML} holds [[mistake]] tables")
    entries = data.get("mistake", [])
    if not isinstance(entries, list):
        raise locate.error("mistake", "write each mistake as a [[mistake]] table")
    starts = edits.entry_lines(text, "mistake")
    out = []
    for i, entry in enumerate(entries):
        start = starts[i] if i < len(starts) else 1
        name = entry.get("name")
        label = f"mistake {name!r}" if isinstance(name, str) else "this mistake"
        for key in entry:
            if key not in _MISTAKE_KEYS:
                raise locate.error(key, f"{label}: unknown key `{key}`"
                                   + _did_you_mean(key, _MISTAKE_KEYS), start)
        if not isinstance(name, str) or not _MISTAKE_NAME.match(name) or name == "reference":
            raise LessonError(toml_path, locate.line_of("name", start) if "name" in entry else start,
                              "a mistake needs a `name` of letters, digits, `_` and `-` "
                              "(it names the solution in reports and golden/<name>.json)")
        if any(m.solution.name == name for m in out):
            raise locate.error("name", f"two mistakes are named {name!r}", start)
        fails = entry.get("fails")
        if (not isinstance(fails, list) or not fails
                or not all(isinstance(f, str) and f.strip() for f in fails)):
            raise LessonError(toml_path, locate.line_of("fails", start) if "fails" in entry else start,
                              f"{label}: `fails` must list the checks it must fail (ids, or "
                              "patterns with `*`), at least one")
        file = entry.get("file")
        if file is not None and (not isinstance(file, str) or not (root / file).is_file()
                                 or ".." in Path(file).parts):
            raise locate.error("file", f"{label}: `file` {file!r} is not a file in the lesson "
                                       "folder (e.g. starter.py or wrong/<name>.py)", start)
        try:
            pairs = edits.pairs(entry)
        except edits.EditError as exc:
            raise locate.error("replace", f"{label}: {exc}", start) from None
        if file is None and not pairs:
            raise LessonError(toml_path, start, f"{label}: give `replace` and `with` (edits of "
                                                "reference.py), or `file` (a whole solution)")
        base = root / file if file is not None else reference
        if base is None:
            raise LessonError(toml_path, start, f"{label}: edits reference.py, which is missing")
        try:
            source = edits.apply(_read(base), pairs, base.name if file is None else file)
        except edits.EditError as exc:
            raise locate.error("replace", f"{label}: {exc}", start) from None
        out.append(_Mistake(WrongSolution(name, source, tuple(fails), toml_path, start), file))
    return out
