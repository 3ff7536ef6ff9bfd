"""Given code: read-only helper modules a lesson ships (`given = ["helpers.py"]` in lesson.toml)
for the learner's code to import."""
from __future__ import annotations

import sys
import types
from contextlib import contextmanager

from .lesson import Lesson
from .requirements import importable


# name -> module for the given modules of the run in progress (empty outside a run): hints
# say where a name the learner's code misses is given (learner.hint_for).
_current: dict[str, types.ModuleType] = {}


def giver(name: str) -> str | None:
    """The given module of the run in progress that defines `name`, or None."""
    return next((m for m, module in _current.items() if name in vars(module)
                 and not name.startswith("_")), None)


@contextmanager
def given_modules(lesson: Lesson):
    """The lesson's given helpers importable by name while the block runs (one grading run, or
    one "try with my code" request), each a module made fresh from its source: whatever learner
    code did to one is gone by the next run. The lesson's pinned `requirements` are importable
    for the same span (requirements.importable)."""
    with importable(lesson.requirements), _fresh_modules(lesson.given):
        yield


@contextmanager
def _fresh_modules(given: dict[str, str]):
    saved = {name: sys.modules.get(name) for name in given}
    for name, source in given.items():
        module = types.ModuleType(name)
        module.__file__ = f"{name}.py"
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        sys.modules[name] = module
        _current[name] = module
    try:
        yield
    finally:
        for name in given:
            _current.pop(name, None)
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
