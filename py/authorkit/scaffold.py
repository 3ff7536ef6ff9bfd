"""`python -m lessonkit new SLUG`: a lesson folder that passes `lessonkit check` and builds at
once, with one toy function, for an author to grow into a real lesson (the command line then
writes its golden reports with `check --update`)."""
from __future__ import annotations

import re
from pathlib import Path

from .course import Course

SLUG = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


class ScaffoldError(Exception):
    pass


def new_lesson(lessons_dir: Path, slug: str) -> Path:
    """Writes lessons_dir/slug (without golden reports: `lessonkit check --update` writes them);
    refuses a bad slug or an existing folder."""
    if not SLUG.match(slug):
        raise ScaffoldError(f"{slug!r} is not a lesson slug: use lowercase letters, digits and "
                            "single hyphens, starting with a letter (like tp-attention)")
    folder = lessons_dir / slug
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists; choose another slug")
    files = {name: text.replace("{slug}", slug).replace("{order}", str(Course(lessons_dir).next_order()))
             for name, text in FILES.items()}
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


FILES = {
    "lesson.toml": '''\
# The lesson's contract; every key is described in docs/lesson-format.md.
# `id` must equal the folder name; `order` is the lesson's position in the course.
id = "{slug}"
title = "A new lesson ({slug})"
summary = "One sentence on the index page: what the learner builds."
order = {order}
languages = ["en"]                # add "pl" and write locale/pl.po (docs/lesson-format.md, Translations)
packages = ["numpy"]              # Pyodide packages loaded before grading
widgets = []                      # names of widgets/NAME.js, each placed in lesson.md (docs/widgets.md)
checks = ["test_double"]          # every checks/test_*.py, in teaching order

[limits]
check_seconds = 5.0

# One table per function the learner writes; starter.py and reference.py define them exactly so.
[[functions]]
name = "double"
signature = "double(x)"
summary = "Twice x, elementwise."
''',
    "lesson.md": '''\
# A new lesson

Replace this prose with the lesson. Math is typeset at build time: inline $y = 2x$, and display

$$
y_i = 2\\,x_i \\quad \\text{for every } i.
$$

A live widget goes on a line of its own (write `widgets/doubler.js` and its text,
`widgets/doubler.text.json`, from docs/widgets.md, list it in lesson.toml's `widgets`, then
remove the comment marks):

<!-- {{ widget: doubler }} -->

Text for one language only goes between `::: lang en` and `:::` lines. Link the lessons
before and after this one as `../<slug>/index.html`.
''',
    "starter.py": '''\
import numpy as np


def double(x):
    """Twice x, elementwise.

    x: a number or an array of any shape. Returns an array of the same shape.
    """
    raise NotImplementedError
''',
    "reference.py": '''\
# The model solution: lessonkit check grades it, and it must pass every check. The page offers
# it as model-solution.py after a pass or after repeated failed runs; the grading worker never sees it.
import numpy as np


def double(x):
    return 2 * np.asarray(x, dtype=float)
''',
    "checks/test_double.py": '''\
"""Hidden checks: plain pytest, through lessonkit.checking (docs/lesson-format.md). The first
docstring line of each test is the title learners see."""
import numpy as np
import pytest

from lessonkit.checking import call, expect_close, expect_unchanged
from lessonkit.i18n import _


def mistakes(x):
    return [(_("you added 2 instead of multiplying by 2: doubling is 2 * x."), lambda: x + 2)]


def test_example(solution):
    """double gives 2x on the example from the prose"""
    x = np.array([1.0, -2.0, 3.5])
    c = call(solution, "double", x)
    expect_close(c, 2 * x, rtol=1e-12, atol=0, mistakes=mistakes(x))


@pytest.mark.parametrize("shape", [(3,), (2, 4)], ids=["vector", "matrix"])
def test_random(solution, shape):
    """double works on random inputs of any shape"""
    x = np.random.default_rng(0).normal(size=shape)
    c = call(solution, "double", x)
    expect_close(c, 2 * x, rtol=1e-12, atol=0, mistakes=mistakes(x))


def test_input_unchanged(solution):
    """double leaves its input unchanged"""
    expect_unchanged(call(solution, "double", np.array([1.0, 2.0])))
''',
    "hints.toml": """\
# Graded hints (docs/lesson-format.md, "Hints"): for a check that did not pass, the page offers
# these steps one at a time, from a nudge to nearly the answer. `checks` names check ids or
# patterns (`*` only); a check gets the steps of every [[hint]] naming it, in file order.
[[hint]]
checks = ["test_double::*"]
steps = ["Doubling a value multiplies it by 2; it does not add 2.",
         "numpy multiplies a whole array at once: start from `np.asarray(x, dtype=float)`."]
""",
    "wrong.toml": """\
# Known-wrong solutions: one [[mistake]] per classic mistake, written as edits of reference.py
# (each `replace` text must occur exactly once there), with the checks it is aimed at: it must
# fail those, and golden/<name>.json (`lessonkit check --update`) pins every check it gets.
# docs/lesson-format.md has the rest (several edits, whole files).
[[mistake]]
name = "adds_two"
fails = ["test_double::test_example"]
replace = "return 2 * np.asarray(x, dtype=float)"
with = "return np.asarray(x, dtype=float) + 2"
""",
}
