"""Graded hints: `lessons/<slug>/hints.toml`, opened by the learner one step at a time.

    [[hint]]
    checks = ["test_gelu::*"]     # check ids or patterns, as in wrong/ headers (`*` only)
    steps = ["a gentle nudge", "more specific", "nearly the answer"]

A failing check gets the steps of every entry naming it, in file order, each step through the
lesson's catalog (`lessonkit.i18n`). `lessonkit check` rejects patterns matching no check."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .i18n import _
from .lesson import LessonError, match_ids, parse_toml

FILENAME = "hints.toml"


@dataclass(frozen=True)
class Hint:
    checks: tuple[str, ...]
    steps: tuple[str, ...]
    line: int   # of its `[[hint]]`, for located messages


def load(lesson_dir) -> list[Hint]:
    """The hints of the lesson at `lesson_dir` (none when it has no hints.toml)."""
    path = Path(lesson_dir) / FILENAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    data = parse_toml(path, text)
    starts = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[hint]]"]
    unknown = set(data) - {"hint"}
    if unknown:
        raise LessonError(path, 1, f"unknown key `{sorted(unknown)[0]}`; the file holds "
                                   "[[hint]] tables only")
    entries = data.get("hint", [])
    if not (isinstance(entries, list) and all(isinstance(e, dict) for e in entries)):
        raise LessonError(path, 1, "`hint` must be [[hint]] tables")
    hints = []
    for i, entry in enumerate(entries):
        line = starts[i] if i < len(starts) else 1
        extra = set(entry) - {"checks", "steps"}
        if extra:
            raise LessonError(path, line, f"unknown key `{sorted(extra)[0]}` in [[hint]] "
                                          "(it takes `checks` and `steps`)")
        for key in ("checks", "steps"):
            value = entry.get(key)
            if not (isinstance(value, list) and value
                    and all(isinstance(v, str) and v.strip() for v in value)):
                raise LessonError(path, line, f"[[hint]] needs `{key}`, a list of non-empty "
                                              "strings")
        hints.append(Hint(tuple(entry["checks"]), tuple(entry["steps"]), line))
    return hints


def steps_for(hints: list[Hint], check_id: str) -> list[str]:
    """The translated steps for `check_id`, in file order."""
    return [_(step) for h in hints if match_ids(h.checks, [check_id]) for step in h.steps]


def unknown_patterns(hints: list[Hint], ids: list[str], lesson_dir) -> list[str]:
    """`path:line: ...` for each pattern of hints.toml that matches none of `ids`."""
    path = Path(lesson_dir) / FILENAME
    return [f"{path}:{h.line}: hint names {p!r}, which matches no check"
            for h in hints for p in h.checks if not match_ids((p,), ids)]


def msgids(hints: list[Hint], lesson_dir) -> list[tuple[str, Path, int]]:
    """Every step as (msgid, path, line), for the missing-translations report."""
    path = Path(lesson_dir) / FILENAME
    return [(step, path, h.line) for h in hints for step in h.steps]
