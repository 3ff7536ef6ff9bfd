"""The command line: `python -m lessonkit grade LESSON SOLUTION [--json]`,
`python -m lessonkit check [LESSON ...]` and `python -m lessonkit new SLUG`.

Exit status: grade: 0 every check passed, 1 some did not, 2 usage or lesson error.
check: 0 the lesson is valid, 1 problems were found (each printed as path:line: message),
2 usage error. new: 0 the folder was written, 1 it does not pass check, 2 a bad or existing slug.
"""
from __future__ import annotations

import argparse
import sys
import unicodedata
from pathlib import Path

from lessonkit import hints, i18n
from lessonkit.learner_process import LearnerProcess, forbid_inspection, grade_split
from lessonkit.lesson import LessonError, load_lesson
from lessonkit.runner import grade

from . import golden, mistakes, prose, starters
from .course import Course
from .problems import authoring_problems, missing_companions, requirement_problems, widget_problems
from .scaffold import ScaffoldError, new_lesson

MARKS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessonkit",
                                     description="Grade solutions and validate lessons.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade a solution.py against a lesson's hidden checks")
    g.add_argument("lesson", help="the lesson folder, e.g. lessons/tp-mlp")
    g.add_argument("solution", help="the learner's solution.py")
    g.add_argument("--json", action="store_true", help="print the report as JSON")
    g.add_argument("--lang", default=i18n.DEFAULT,
                   help="the report's language, one of the lesson's `languages` (default en)")
    c = sub.add_parser("check", help="validate lessons: format, reference, wrong solutions")
    c.add_argument("lessons", nargs="*",
                   help="lesson folders (default: every folder in ./lessons)")
    c.add_argument("--update", action="store_true",
                   help="write each lesson's golden reports (golden/*.json) instead of comparing")
    n = sub.add_parser("new", help="write a new lesson folder that passes check and builds")
    n.add_argument("slug", help="the lesson's id and folder name, e.g. tp-attention")
    n.add_argument("--lessons", default="lessons", help="the lessons folder (default ./lessons)")
    args = parser.parse_args(argv)
    if args.command == "grade":
        return _grade(args)
    if args.command == "new":
        return _new(args)
    return _check(args)


def _new(args) -> int:
    try:
        folder = new_lesson(Path(args.lessons), args.slug)
    except ScaffoldError as exc:
        print(f"lessonkit new: {exc}", file=sys.stderr)
        return 2
    problems = check_lesson(folder, update=True)  # writes golden/*.json, what check compares with
    if problems:
        print("lessonkit new: the new lesson does not pass lessonkit check:\n" + "\n".join(problems),
              file=sys.stderr)
        return 1
    print(f"wrote {folder}/ (lesson.toml, lesson.md, starter.py, reference.py, checks/, hints.toml, "
          "wrong.toml, golden/)\n"
          f"next: python -m lessonkit check {folder}   then: ./dev serve")
    return 0


def _grade(args) -> int:
    try:
        lesson = load_lesson(args.lesson)
        source = Path(args.solution).read_text(encoding="utf-8")
    except LessonError as exc:
        print(f"lesson error: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {args.solution}: {exc}", file=sys.stderr)
        return 2
    if args.lang not in lesson.languages:
        print(f"--lang {args.lang}: the lesson's languages are {', '.join(lesson.languages)}",
              file=sys.stderr)
        return 2
    for problem in requirement_problems(lesson):  # the pinned wheels, fetched into the cache
        print(f"warning: {problem}", file=sys.stderr)
    # The grader here, the learner's code in a child process: whatever the solution does to
    # its Python (os._exit, a crash, exhausting memory, hanging inside C, rewriting what it
    # can reach), this process decides the verdicts and prints the report.
    forbid_inspection()
    report = grade_split(lesson, source, lang=args.lang)
    # Whatever the terminal's encoding (PYTHONIOENCODING, a C locale), the report is printed.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    print(report.to_json(indent=2) if args.json else render(report, lesson.title))
    return 0 if report.passed else 1


def render(report, title: str) -> str:
    """The report for a terminal: every text in it shown(), since learner code reaches the
    output and the messages."""
    lines = [f"{shown(report.lesson)}: {shown(title)}", ""]
    for c in report.checks:
        lines.append(f"{MARKS[c.status]:>7}  {shown(c.title)}  [{shown(c.id)}]")
        if c.message:
            lines.extend("           " + line for line in shown(c.message).splitlines())
    if report.stdout:
        lines += ["", "Your output:"] + ["  " + line for line in shown(report.stdout).splitlines()]
    passed = sum(c.status == "passed" for c in report.checks)
    lines += ["", f"{passed} of {len(report.checks)} checks passed "
                  f"({report.duration_ms:.0f} ms)."]
    return "\n".join(lines)


# What a terminal would act on instead of showing: control characters (ANSI escapes, carriage
# returns, backspaces), format characters (bidirectional overrides), line and paragraph
# separators, lone surrogates.
_UNSHOWN = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def shown(text: str) -> str:
    """`text` with every character a terminal would act on written as its escape (`\x1b`,
    `\u202e`): learner text cannot move the cursor, clear the screen or draw a fake report.
    New lines and tabs stay."""
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch) not in _UNSHOWN
                   else ascii(ch)[1:-1] for ch in text)


def _check(args) -> int:
    if args.lessons:
        folders = [Path(p) for p in args.lessons]
    else:
        course = Course("lessons")
        if not course.root.is_dir():
            print("no ./lessons folder here; name the lesson folders to check",
                  file=sys.stderr)
            return 2
        folders = course.dirs()
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        print(f"no such lesson folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    problems, gaps = [], []
    for folder in folders:
        found = check_lesson(folder, update=args.update)
        missing = translation_gaps(folder) if not found else []
        note = f" ({len(missing)} missing translation(s))" if missing else ""
        if not found and not args.update and not (folder / golden.GOLDEN_DIR).is_dir():
            missing.append(f"{folder / golden.GOLDEN_DIR}/: no golden reports yet; run "
                           f"`{golden.UPDATE} {folder}`")
        problems += found
        gaps += missing
        print(f"{folder}: {'OK' if not found else f'{len(found)} problem(s)'}{note}")
    for p in problems:
        print(p)
    # Untranslated text falls back to English, and a lesson without golden reports yet is still
    # proved: reported, but the lesson works.
    for g in gaps:
        print(f"warning: {g}")
    return 1 if problems else 0


def check_lesson(folder, update: bool = False) -> list[str]:
    """Every problem with the lesson at `folder`, as `path:line: message` lines. The reports of
    its solutions are compared with its golden reports, or with `update` written there (when
    nothing else is wrong: a golden report records a lesson that works)."""
    try:
        lesson = load_lesson(folder)
        problems = [str(e) for e in (authoring_problems(lesson) + prose.render([lesson])[0].problems
                                     + widget_problems(lesson) + missing_companions(lesson)
                                     + starters.problems(lesson))]
        lesson_hints = hints.load(lesson.path)
        for lang in lesson.languages:
            i18n.catalog(lang, lesson.path)  # a malformed catalog would break grading
    except LessonError as exc:
        return [str(exc)]
    if lesson.reference is None:
        return problems + [f"{lesson.path / 'reference.py'}:1: missing file"]
    # Graded as `lessonkit grade` does, learner code in a child process, one for all of the
    # lesson's solutions (trusted files, so the child is reused between them); bench/
    # grade_bench.py prints its cost beside grading in-process.
    with LearnerProcess(lesson) as learner:
        found, goldens = _solution_problems(lesson, lesson_hints, learner)
    problems += found
    if update:
        if not problems:
            for path in golden.write(lesson, goldens):
                print(f"updated {path}")
        return problems
    if not (lesson.path / golden.GOLDEN_DIR).is_dir():
        # A lesson before its first --update (a new one, one from before golden reports): its
        # reports are proved as ever, there is only nothing to compare them with yet (_check warns).
        return problems
    return problems + golden.drift(lesson, goldens)


def _solution_problems(lesson, lesson_hints, learner) -> tuple[list[str], dict]:
    """The reference must pass every check, each known-wrong solution fail those it names.
    Returns (problems, {solution name: golden report}), each solution graded in every language."""
    problems = []
    sources = golden.solutions(lesson)
    reports = {name: {lang: grade(lesson, source, learner=learner, lang=lang, seed=golden.SEED)
                      for lang in lesson.languages}
               for name, source in sources.items()}
    report = reports[golden.REFERENCE][lesson.languages[0]]
    ids = [c.id for c in report.checks]
    problems += hints.unknown_patterns(lesson_hints, ids, lesson.path)
    for c in report.checks:
        if c.status != "passed":
            problems.append(f"{lesson.reference}:1: the reference does not pass {c.id} "
                            f"({c.status}): {c.message.splitlines()[0] if c.message else ''}")
    for wrong in lesson.wrong:
        problems += mistakes.problems(wrong, reports[wrong.name][lesson.languages[0]])
    goldens = {}
    for name, by_lang in reports.items():
        try:
            goldens[name] = golden.record({lang: r.to_dict() for lang, r in by_lang.items()},
                                          titles=name == golden.REFERENCE)
        except ValueError as exc:
            problems.append(f"{golden.path(lesson, name)}:1: {name}: {exc}")
    return problems, goldens


def translation_gaps(folder) -> list[str]:
    """`path:line: ...` for the check titles, messages, hints and starter docstrings of the lesson at `folder`
    that a language it lists does not translate (the learner then reads English)."""
    lesson = load_lesson(folder)
    wanted = [(msgid, path, line) for path in sorted(lesson.checks_dir.glob("*.py"))
              for msgid, line in i18n.source_msgids(path)]
    wanted += hints.msgids(hints.load(lesson.path), lesson.path)
    wanted += [(msgid, lesson.path / "starter.py", line) for msgid, line in starters.msgids(lesson.starter)]
    # The home page and the neighbours' links show the title and summary in each language.
    toml = lesson.path / "lesson.toml"
    lines = toml.read_text(encoding="utf-8").splitlines()
    for key in ("title", "summary"):
        line = next((n for n, text in enumerate(lines, 1) if text.startswith(f"{key} =")), 1)
        wanted.append((getattr(lesson, key), toml, line))
    ids = {i for path in lesson.checks_dir.glob("*.py") for i in i18n.parameter_ids(path)}
    return [gap for lang in lesson.languages if lang != i18n.DEFAULT
            for gap in i18n.untranslated(lang, wanted, lesson.path / "locale" / f"{lang}.po",
                                         optional=ids)]
