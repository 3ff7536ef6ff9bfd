"""The solutions of a lesson that a suite grades in Pyodide to show it grades as CPython does
(tests/lessons/test_grading.py under Node, tests/browser/test_lesson_page.py in the page): the
reference and the fewest known-wrong solutions whose `fails` between them name every check
function that any known-wrong solution names, so that every check's failure, and its message,
is produced there at least once. The rest of the known-wrong solutions differ from these only
in which learner code fails the same checks: CPython's verdicts on them are pinned by the
goldens, which `lessonkit check` (the build's) compares."""
from __future__ import annotations

import re

from authorkit import golden


def covering(wrong: list) -> list:
    """The fewest (greedily) of `wrong` (lessonkit WrongSolutions) whose `fails` name every
    check function that any of them names, in the order chosen."""
    def functions(solution):
        return {re.sub(r"\[.*", "", pattern) for pattern in solution.fails}
    wanted = set().union(*(functions(w) for w in wrong))
    chosen = []
    while wanted:
        best = max(wrong, key=lambda w: len(functions(w) & wanted))
        chosen.append(best)
        wanted -= functions(best)
    return chosen


def gallery(lesson) -> dict[str, str]:
    """{solution name: source}: the reference, then covering(lesson.wrong)."""
    return {golden.REFERENCE: lesson.reference.read_text(encoding="utf-8"),
            **{w.name: w.source for w in covering(lesson.wrong)}}
