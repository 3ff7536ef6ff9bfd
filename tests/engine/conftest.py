"""Fixtures for the engine tests: the real tp-mlp lesson and small synthetic lessons."""
import shutil
import textwrap
from pathlib import Path

import pytest

from lessonkit import load_lesson

REPO = Path(__file__).resolve().parents[2]
TP_MLP = REPO / "lessons" / "tp-mlp"

TOY_TOML = """\
id = "toy"
title = "Toy lesson"
summary = "Two functions."
order = 9
languages = ["en"]
packages = ["numpy"]
widgets = []
checks = ["test_toy"]

[limits]
check_seconds = 0.5
total_seconds = 20.0
output_lines = 5
output_bytes = 300
recursion = 200

[[functions]]
name = "double"
signature = "double(x)"
summary = "Twice x."

[[functions]]
name = "halve"
signature = "halve(x)"
summary = "Half of x."
"""

TOY_STARTER = '''\
def double(x):
    """Twice x."""
    raise NotImplementedError


def halve(x):
    """Half of x."""
    raise NotImplementedError
'''

TOY_REFERENCE = '''\
import numpy as np


def double(x):
    return 2 * np.asarray(x, dtype=float)


def halve(x):
    return np.asarray(x, dtype=float) / 2
'''

TOY_CHECKS = '''\
import numpy as np
import pytest

from lessonkit.checking import call, expect_close, expect_unchanged


def test_double(solution):
    """double doubles"""
    x = np.array([1.0, -2.0, 3.5])
    c = call(solution, "double", x)
    expect_close(c, 2 * x, rtol=1e-9, atol=0, mistakes=[("you added one", lambda: x + 1)])


def test_double_unchanged(solution):
    """double leaves its input alone"""
    expect_unchanged(call(solution, "double", np.array([1.0, 2.0])))


@pytest.mark.parametrize("x", [4.0, -1.0], ids=["four", "minus one"])
def test_halve(solution, x):
    """halve halves"""
    expect_close(call(solution, "halve", x), x / 2, rtol=1e-9, atol=0)
'''


# The toy's known-wrong solution, as edits of TOY_REFERENCE.
TOY_MISTAKES = """\
[[mistake]]
name = "zero"
fails = ["test_toy::test_double", "test_toy::test_halve[*]"]
replace = ["return 2 * np.asarray(x, dtype=float)", "return np.asarray(x, dtype=float) / 2"]
with = ["return 0 * x", "return 0 * x"]
"""


def make_lesson(root: Path, *, toml=TOY_TOML, starter=TOY_STARTER, reference=TOY_REFERENCE,
                checks=None, mistakes=TOY_MISTAKES, wrong=None) -> Path:
    """Write a lesson folder `root/toy`; `mistakes` is its wrong.toml (None: none); `checks` and
    `wrong` map file names to sources (in checks/, and whole files in wrong/)."""
    folder = root / "toy"
    (folder / "checks").mkdir(parents=True)
    checks = checks or {"test_toy.py": TOY_CHECKS}
    stems = ", ".join(f'"{name[:-3]}"' for name in checks if name.startswith("test_"))
    (folder / "lesson.toml").write_text(toml.replace('checks = ["test_toy"]', f"checks = [{stems}]"))
    (folder / "starter.py").write_text(starter)
    if reference is not None:
        (folder / "reference.py").write_text(reference)
    (folder / "lesson.md").write_text("# Toy\n")
    for name, text in checks.items():
        (folder / "checks" / name).write_text(text)
    if mistakes is not None:
        (folder / "wrong.toml").write_text(mistakes)
    if wrong:
        (folder / "wrong").mkdir()
        for name, text in wrong.items():
            (folder / "wrong" / name).write_text(text)
    return folder


@pytest.fixture
def toy_dir(tmp_path):
    return make_lesson(tmp_path)


@pytest.fixture
def toy(toy_dir):
    return load_lesson(toy_dir)


@pytest.fixture(scope="session")
def tp_mlp():
    return load_lesson(TP_MLP)


@pytest.fixture
def lesson_copy(tmp_path):
    """A copy of the real tp-mlp lesson that a test may break, with one known-wrong solution
    (relu) of its sixteen and the golden reports of it and the reference: `lessonkit check`
    grades each, and the other fifteen are tested in tests/lessons."""
    target = tmp_path / "tp-mlp"
    shutil.copytree(TP_MLP, target,
                    ignore=shutil.ignore_patterns("__pycache__", "companion*", "wrong*", "golden"))
    (target / "wrong.toml").write_text(mistake_entry(TP_MLP / "wrong.toml", "relu"))
    (target / "golden").mkdir()
    for name in ("reference", "relu"):
        shutil.copy(TP_MLP / "golden" / f"{name}.json", target / "golden")
    return target


def mistake_entry(wrong_toml: Path, name: str) -> str:
    """The [[mistake]] table called `name` of a wrong.toml, as its text."""
    tables = wrong_toml.read_text(encoding="utf-8").split("[[mistake]]\n")
    return "[[mistake]]\n" + next(t for t in tables if t.startswith(f'name = "{name}"\n'))


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")
