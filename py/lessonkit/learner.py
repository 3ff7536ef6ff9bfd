"""The learner's code: loaded as a fresh module `solution` from `solution.py`, and its errors
told in the learner's terms (their lines only, plain words, no grader frames)."""
from __future__ import annotations

import linecache
import os
import sys
import traceback
import types
from contextlib import contextmanager

from . import given
from .i18n import _
from .timelimit import CheckTimeout

FILENAME = "solution.py"
MODULE_NAME = "solution"


class LearnerError(Exception):
    """Learner code failed to compile or raised; `message` is written for the learner.
    `line`: the line of solution.py where it was raised, when known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


class TimedOutBefore(BaseException):
    """Raised by the stand-in for a learner function that already ran out of time in this
    grading run. A BaseException, like CheckTimeout, so that learner code calling it does not
    swallow it in `except Exception`; `caller` is the function the check called."""

    def __init__(self, name: str, title: str):
        super().__init__(name)
        self.name, self.title, self.caller = name, title, name


def stand_in(name: str, title: str):
    """What replaces learner function `name` in the graded module once it ran out of time in
    the check titled `title`: it raises at once, so every later check that calls it, directly
    or through another of the learner's functions (tp_mlp calling gelu), is skipped instead of
    spending its own time limit on the same loop."""
    def timed_out_before(*args, **kwargs):
        raise TimedOutBefore(name, title)
    timed_out_before.__name__ = timed_out_before.__qualname__ = name
    return timed_out_before


def compile_source(source: str) -> types.CodeType:
    """Compile the learner's file; a syntax error becomes a LearnerError naming their line."""
    _remember_source(source)
    try:
        return compile(source, FILENAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # ValueError: source with NUL bytes
        raise LearnerError(_describe_syntax_error(exc),
                           line=getattr(exc, "lineno", None)) from None


def _remember_source(source: str) -> None:
    # Tracebacks and warnings look the learner's lines up by file name; an mtime of None
    # keeps linecache.checkcache() from dropping an entry that has no file on disk.
    lines = source.splitlines(keepends=True)
    linecache.cache[FILENAME] = (len(source), None, lines, FILENAME)


def _describe_syntax_error(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        detail = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
        head = (_("Python could not read {file}: line {line} is not valid Python.",
                  file=FILENAME, line=exc.lineno) if exc.lineno else
                _("Python could not read {file}: it is not valid Python.", file=FILENAME))
        return f"{head}\n{detail}\n" + hint_for(exc)
    return _("Python could not read {file}: {error}", file=FILENAME, error=exc)


def new_module(code: types.CodeType) -> types.ModuleType:
    """Run the compiled learner file as a brand-new module named `solution`."""
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = FILENAME
    # Registered while it runs so that dataclasses, pickle, typing and friends can find it.
    previous = sys.modules.get(MODULE_NAME)
    sys.modules[MODULE_NAME] = module
    try:
        run_learner(lambda: exec(code, module.__dict__), _("your file"))
    finally:
        if previous is None:
            sys.modules.pop(MODULE_NAME, None)
        else:
            sys.modules[MODULE_NAME] = previous
    return module


# Stack frames learner code may use on top of the grader's own; set per run from the
# lesson's `limits.recursion` (see `stack_headroom`).
_headroom = 400


@contextmanager
def stack_headroom(frames: int):
    global _headroom
    previous, _headroom = _headroom, frames
    try:
        yield
    finally:
        _headroom = previous


def run_learner(fn, what: str):
    """Call learner code (the file's top-level code, or one of its functions): a limited
    stack, errors as LearnerError.

    `what` names the code in messages ("gelu", "your file"). CheckTimeout, KeyboardInterrupt
    and TimedOutBefore pass through untouched (the caller reports them). Nothing here stands
    between learner code and the interpreter it runs in: that is the split's job
    (docs/threat-model.md).
    """
    try:
        with _recursion_headroom(_headroom), _exit_raises():
            return fn()
    except (CheckTimeout, KeyboardInterrupt, TimedOutBefore):
        raise
    except BaseException as exc:  # noqa: BLE001 - anything raised, SystemExit too
        failure = _describe_safely(exc, what)
        # The descriptor itself: a learner's exception class may override the name.
        tb = _traceback_of(exc)
    raise LearnerError(failure, line=_learner_line(tb))


class ProcessExit(SystemExit):
    """What `os._exit()` raises inside learner code, so that it is told as what the learner
    called (and, where the grader shares the interpreter, does not end the grader with it).
    Code that finds another way to end the process is a crash, which every host reports."""


def _exit_instead(status=0):
    raise ProcessExit(f"os._exit({status}) was called")


_os_exit = os._exit
_EXIT_MODULES = tuple({id(m): m for m in (os, sys.modules.get(os.name)) if m is not None}.values())


@contextmanager
def _exit_raises():
    for module in _EXIT_MODULES:
        vars(module)["_exit"] = _exit_instead
    try:
        yield
    finally:
        for module in _EXIT_MODULES:
            vars(module)["_exit"] = _os_exit


_traceback_of = BaseException.__traceback__.__get__


def _learner_line(tb) -> int | None:
    """The line of solution.py nearest to where the traceback `tb` ends, or None."""
    lines = []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            lines.append(tb.tb_lineno)
        tb = tb.tb_next
    return lines[-1] if lines else None


def _describe_safely(exc: BaseException, what: str) -> str:
    try:
        return describe_exception(exc, what)
    except (CheckTimeout, KeyboardInterrupt):
        raise
    except BaseException:  # noqa: BLE001 - an exception whose __str__ itself fails
        return _("{what} raised {error}, which could not even be printed.", what=what,
                 error=type(exc).__name__)


@contextmanager
def _recursion_headroom(frames: int):
    # The limit counts frames from the bottom of the stack; give learner code `frames` on
    # top of where we are now, so deep recursion ends as RecursionError instead of
    # overflowing the (small) WebAssembly stack in the browser.
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def describe_exception(exc: BaseException, what: str) -> str:
    """Plain words, then a traceback of the learner's own frames, then a hint."""
    if isinstance(exc, SyntaxError):  # from exec()/compile() inside their code
        return _describe_syntax_error(exc)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
    name = type(exc).__name__
    text = str(exc)
    if isinstance(exc, ProcessExit):
        head = _("{what} called os._exit(), which would end Python itself; return a value "
                 "instead.", what=what)
    elif isinstance(exc, SystemExit):
        head = _("{what} called exit() (SystemExit); return a value instead of stopping "
                 "Python.", what=what)
    elif frames:
        head = _("{what} raised {error} at line {line} of {file}", what=what, error=name,
                 line=frames[-1].lineno, file=FILENAME) + (f": {text}" if text else ".")
    else:
        head = _("{what} raised {error}", what=what, error=name) + (f": {text}" if text else ".")
    parts = [head]
    if frames:
        parts.append(_("Traceback (your code only):"))
        parts.extend(line.rstrip("\n") for line in traceback.format_list(frames))
        parts.append("".join(traceback.format_exception_only(type(exc), exc)).rstrip())
    hint = hint_for(exc)
    if hint:
        parts.append(hint)
    return "\n".join(parts)


def hint_for(exc: BaseException) -> str:
    """A sentence about what this kind of error usually means, or ''."""
    text = str(exc)
    if isinstance(exc, NotImplementedError):
        return _("Hint: this function still holds the starter's `raise NotImplementedError`; "
                 "replace that line with your code.")
    if isinstance(exc, RecursionError):
        return _("Hint: a function keeps calling itself without reaching a case that returns.")
    if isinstance(exc, (ModuleNotFoundError, ImportError)):
        return _("Hint: only the Python standard library and numpy are available here.")
    if isinstance(exc, NameError):
        missing = getattr(exc, "name", None) or ""
        module = given.giver(missing) if missing else None
        if module:
            return _("Hint: `{name}` is not defined in solution.py, but this lesson gives it in "
                     "{module}.py, shown below the lesson with where it comes from: add `from "
                     "{module} import {name}` at the top of solution.py.", name=missing,
                     module=module)
        if missing in ("np", "numpy"):
            return _("Hint: numpy is used before it is imported: add `import numpy as np` at "
                     "the top of solution.py.")
        return _("Hint: a name is used before it is defined: check its spelling, and that "
                 "numpy is imported (`import numpy as np`) before it is used.")
    if isinstance(exc, TypeError) and "converted to Python scalars" in text:
        return _("Hint: the math module works on one number at a time; numpy's functions "
                 "(np.tanh, np.sqrt, ...) work on whole arrays.")
    if isinstance(exc, ValueError) and ("matmul" in text or "not aligned" in text):
        return _("Hint: in A @ B the number of columns of A must equal the number of rows "
                 "of B; print the shapes to see which pair does not fit.")
    if isinstance(exc, IndentationError):
        return _("Hint: the lines of one block must start at the same column.")
    if isinstance(exc, EOFError):
        return _("Hint: input() cannot be used here; the checks pass values as arguments.")
    return ""
