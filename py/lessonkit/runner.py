"""The grader: load the learner's file (the `load` check), then run the lesson's hidden checks
with pytest in this process, one verdict per test."""
from __future__ import annotations

import os
import secrets
import sys
import time
import warnings
import zlib
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy
import pytest
from _pytest.reports import TestReport
from _pytest.runner import runtestprotocol

from . import hints, i18n, intact, learner
from .capture import CappedOutput, redirected
from . import checking
from .channel import InProcess, Learner
from .checking import CheckFailed
from .i18n import _
from .lesson import Lesson
from .learner import LearnerError, TimedOutBefore
from .report import CheckResult, Report
from .timelimit import CheckTimeout, alarm_handler, time_limit

LOAD_ID = "load"


def crashed_message() -> str:
    return _("Python itself stopped while this check ran (it ran out of memory, or crashed "
             "inside a library), so it was started again and the other checks were run without "
             "this one. Look for arrays or lists that grow without bound, or recursion without "
             "end.")

# pytest as a library: no terminal output, no cache files, no plugins found through entry
# points, no assertion rewriting (checks explain themselves through lessonkit.checking), and
# checks imported by path so that nothing touches sys.path.
_PYTEST_ARGS = (
    "-s", "--assert=plain", "--continue-on-collection-errors", "--import-mode=importlib",
    "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:warnings", "-p", "no:logging",
    "-p", "no:faulthandler", "-p", "no:stepwise", "-p", "no:junitxml", "-p", "no:pastebin",
    "-p", "no:doctest", "-p", "no:legacypath", "-p", "no:unraisableexception",
    "-p", "no:threadexception", "-p", "no:debugging", "-p", "no:nose",
)


def grade(lesson: Lesson, source: str, *, learner=None, on_event=None, timed_out=(),
          crashed=(), time_used_s: float = 0.0, lang: str = i18n.DEFAULT,
          seed: int | None = None) -> Report:
    """Grade `source` (the learner's solution.py) against `lesson`'s hidden checks.

    learner: the channel to the learner's side (`lessonkit.channel`), an object with
    `request(message, time_limit_s)`: None is a child process (lessonkit.learner_process,
    what `lessonkit grade` uses), except in Pyodide, where it is this interpreter (the page
    that cannot isolate its workers); `channel.InProcess()` asks for that here.
    on_event: called with a dict before (`check_start`) and after (`check_end`) each check.
    timed_out: checks already known to time out, reported as "timeout" unrun: their ids, or
    a mapping of each id to the learner function it was running (the `call` event before its
    limit hit; None if unknown), which is then skipped in later checks as if it timed out here.
    crashed: ids of checks during which Python itself died (a host restarted it); reported
    as "error" unrun.
    time_used_s: seconds this grading already spent in earlier attempts (a host that restarts
    Python and grades again); they count against the lesson's `total_seconds`.
    lang: the language of titles, messages and hints (the lesson's `locale/<lang>.po`).
    seed: what the checks' `fresh` generator starts from; None (every real run) draws one, so
    the arguments drawn fresh differ from run to run and no table of answers passes them.
    A number makes two runs comparable (the parity tests).
    """
    if learner is None and sys.platform != "emscripten":
        # The path learners get on a command line: their code in a child process.
        from .learner_process import grade_split
        return grade_split(lesson, source, lang=lang, on_event=on_event, timed_out=timed_out,
                           crashed=crashed, time_used_s=time_used_s, seed=seed)
    seed = secrets.randbits(63) if seed is None else seed
    with i18n.use(lang, lesson.path):
        return _grade(lesson, source, learner, on_event, timed_out, crashed, time_used_s, lang,
                      seed)


def _grade(lesson, source, channel, on_event, timed_out, crashed, time_used_s, lang,
           seed) -> Report:
    started = time.perf_counter()
    lesson_hints = hints.load(lesson.path)
    out = CappedOutput(lesson.limits.output_lines, lesson.limits.output_bytes)
    timed_out = dict(timed_out) if isinstance(timed_out, dict) else dict.fromkeys(timed_out)
    channel = InProcess() if channel is None else channel
    own_channel = getattr(channel, "in_process", False)  # its state is this run's only
    run = _Run(lesson, on_event, timed_out, started - time_used_s)
    run.crashed = set(crashed)
    run.seed = seed
    solution = Learner(lesson, source, lang, channel, out)
    checks_before = intact.snapshot(lesson.checks_dir)
    with _announcing_calls(run), redirected(out), alarm_handler(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=pytest.PytestWarning)
        try:
            run.checks(solution)
        except KeyboardInterrupt:  # the Stop button (SIGINT from the host)
            run.stopped()
        finally:
            if own_channel:
                channel.close()
    changed = intact.put_back(lesson.checks_dir, checks_before)
    if changed:
        run.end("checks", _("The lesson's check files stay as they were"), "error", _(
            "Your code changed the lesson's check files ({files}) while it was graded. They "
            "were put back as they were, and this run does not count.",
            files=", ".join(changed)))
    checks = [CheckResult(*r, hints=() if r[2] == "passed" else
                          tuple(hints.steps_for(lesson_hints, r[0]))) for r in run.results]
    return Report(lesson=lesson.id, checks=checks,
                  stdout=out.text(),
                  stdout_truncated=out.truncated,
                  duration_ms=(time.perf_counter() - started) * 1000)


@contextmanager
def _announcing_calls(run: "_Run"):
    """A `call` event for each learner function a check calls, for hosts (see grade's
    `timed_out`)."""
    checking.announce_call[0] = lambda name: run.emit(
        {"event": "call", "id": run.current[0] if run.current else None, "fn": name})
    try:
        yield
    finally:
        checking.announce_call[0] = lambda name: None


def load_title(lesson: Lesson) -> str:
    names = ", ".join(f.signature for f in lesson.functions)
    return _("Your solution.py runs and defines {names}", names=names)


class _Run:
    def __init__(self, lesson: Lesson, on_event, timed_out: dict, started: float):
        self.lesson = lesson
        self.emit = on_event or (lambda event: None)
        self.timed_out = timed_out
        self.deadline = started + lesson.limits.total_seconds
        # Verdicts as tuples of strings, which learner code cannot change in place.
        self.results: list[tuple[str, str, str, str]] = []
        self.load_failed = False
        self.current: tuple[str, str] | None = None

    def limit(self) -> float:
        return max(0.0, min(self.lesson.limits.check_seconds, self.deadline - time.perf_counter()))

    def start(self, cid: str, title: str, solution: Learner | None = None) -> float:
        limit = self.limit()
        if solution is not None:  # learner requests carry the time this check has left
            solution.deadline = time.perf_counter() + limit
        self.current = (cid, title)
        self.emit({"event": "check_start", "id": cid, "title": title,
                   "time_limit_s": round(limit, 3)})
        return limit

    def end(self, cid: str, title: str, status: str, message: str) -> None:
        CheckResult(cid, title, status, message)  # validates the status
        self.results.append((cid, title, status, message))
        self.current = None
        self.emit({"event": "check_end", "id": cid, "status": status})

    def skip_reason(self) -> tuple[str, str] | None:
        if self.load_failed:
            return "error", _("Not run: your file did not load (see the first check, "
                              "\u201c{title}\u201d). Fix that first.",
                              title=load_title(self.lesson))
        if time.perf_counter() >= self.deadline:
            return "timeout", _("Not run: the whole run went past its {seconds} s limit.",
                                seconds=f"{self.lesson.limits.total_seconds:g}")
        return None

    def timeout_message(self, exc: CheckTimeout, limit: float) -> str:
        what = exc.args[0] if exc.args else None
        advice = _("Look for a loop whose condition never becomes false, or work that grows "
                   "much faster than the input.")
        if what:
            return _("{what} was still running after {seconds} s, the time limit, and was "
                     "stopped.", what=what, seconds=f"{limit:g}") + " " + advice
        return _("This check was still running after {seconds} s, the time limit, and was "
                 "stopped.", seconds=f"{limit:g}") + " " + advice

    # --- the `load` check -------------------------------------------------------------
    def load(self, solution: Learner) -> None:
        """The `load` check: the learner's side runs the file and looks at its functions."""
        title = load_title(self.lesson)
        limit = self.start(LOAD_ID, title, solution)
        if LOAD_ID in self.crashed:
            self.load_failed = True
            self.end(LOAD_ID, title, "error", crashed_message())
            return
        if LOAD_ID in self.timed_out:
            self.load_failed = True
            self.end(LOAD_ID, title, "timeout",
                     self.timeout_message(CheckTimeout(_("your file")), limit))
            return
        try:
            with time_limit(limit):
                problem = solution.load(limit)
        except LearnerError as exc:  # the learner's side died or answered garbage
            problem = exc.message
        except CheckTimeout:
            self.load_failed = True
            self.end(LOAD_ID, title, "timeout",
                     self.timeout_message(CheckTimeout(_("your file (its top-level code)")),
                                          limit))
            return
        self.load_failed = problem is not None
        self.end(LOAD_ID, title, "error" if problem else "passed", problem or "")

    def stopped(self, pending=()) -> None:
        """The Stop button: the running check and those after it are not judged."""
        if self.current:
            cid, title = self.current
            self.end(cid, title, "error", _("Stopped: you pressed Stop while this check ran."))
        for cid, title in pending:
            self.end(cid, title, "error", _("Not run: you pressed Stop."))

    # --- the hidden checks ------------------------------------------------------------
    def checks(self, solution: Learner) -> None:
        """Collect the checks, then load the learner's file (so the checks are read before
        any learner code runs), then run them."""
        plugin = _Plugin(self, solution)
        checks_dir = self.lesson.checks_dir.resolve()
        args = [str(checks_dir), "--rootdir", str(checks_dir), "-c", os.devnull,
                "--confcutdir", str(checks_dir), *_PYTEST_ARGS]
        with _isolated_imports(checks_dir), _quiet_pytest_env():
            code = pytest.main(args, plugins=[plugin])
        if not plugin.loaded:  # pytest stopped before its collection finished
            plugin.load()
        if plugin.interrupted:
            self.stopped(plugin.pending())
            return
        if not plugin.seen or code in (pytest.ExitCode.INTERNAL_ERROR,
                                       pytest.ExitCode.USAGE_ERROR):
            self.end("checks", _("The hidden checks run"), "error",
                     _("The lesson's checks could not run (pytest exit status {code}); this is "
                       "a bug in the lesson, not in your code.", code=int(code)))


class _Plugin:
    """Feeds the learner's module to the checks and turns each test into a verdict."""

    def __init__(self, run: _Run, module: Learner):
        self.run = run
        self.module = module
        self.seen = False
        self.interrupted = False
        self.loaded = False
        self.collect_errors: list[tuple[str, str, str, str]] = []
        self.excinfo: dict[str, BaseException] = {}
        self.items: list = []

    def load(self) -> None:
        """The `load` check, once, then the check files that failed to load: in that order in
        the report."""
        self.loaded = True
        try:
            self.module.warm()
            self.run.load(self.module)
        finally:
            for result in self.collect_errors:
                self.run.end(*result)

    def pending(self) -> list[tuple[str, str]]:
        done = {r[0] for r in self.run.results}
        return [(check_id(i), check_title(i)) for i in self.items if check_id(i) not in done]

    def pytest_collection_modifyitems(self, items):
        # Teaching order: files as lesson.toml's `checks` lists them, tests as each file
        # defines them (a stable sort keeps pytest's order within a file).
        order = {p.resolve(): i for i, p in enumerate(self.run.lesson.check_files)}
        items.sort(key=lambda item: order.get(Path(str(item.path)).resolve(), len(order)))
        self.items = list(items)

    @pytest.fixture
    def solution(self):
        return self.module

    @pytest.fixture
    def fresh(self, request):
        """A random generator for arguments drawn fresh for each run, beside a check's fixed
        cases: from the run's seed and the check's id (so a check's draw does not depend on
        which checks ran before it)."""
        return numpy.random.default_rng([self.run.seed,
                                         zlib.crc32(request.node.nodeid.encode())])

    def pytest_collectreport(self, report):
        if report.failed:
            self.seen = True
            stem = Path(str(report.fspath)).stem
            self.collect_errors.append((
                stem, _("The checks in {file} load", file=f"{stem}.py"), "error",
                _("This check file is broken (a bug in the lesson, not in your code):")
                + "\n" + str(report.longrepr)[-2000:]))

    def pytest_collection_finish(self, session):
        """The learner's file loads once the checks are collected: the first check."""
        try:
            self.load()
        except KeyboardInterrupt:
            self.interrupted = True
            raise

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.seen = True
        cid, title = check_id(item), check_title(item)
        try:
            lost = self.revive()
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        limit = self.run.start(cid, title, self.module)
        skip = self.run.skip_reason()
        if cid in self.run.timed_out:  # it ended an earlier Python (a host's restart)
            fn = self.run.timed_out[cid]
            skip = "timeout", self.run.timeout_message(CheckTimeout(*[fn] if fn else []), limit)
            self.skip_from_now_on(fn, title)
        if cid in self.run.crashed:
            skip = "error", crashed_message()
        if lost and not skip:
            skip = "error", lost
        if skip:
            self.run.end(cid, title, *skip)
            return True
        # Armed for the whole check, setup to teardown, so that the host's deadline (which
        # starts at check_start) never falls where an alarm would be ignored.
        try:
            with time_limit(limit) as timer:
                reports = runtestprotocol(item, nextitem=nextitem, log=False)
        except CheckTimeout:  # landed between pytest's phases rather than inside one
            reports = []
            self.excinfo.setdefault(item.nodeid, CheckTimeout())
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        status, message = self.verdict(item, reports, limit, timer.fired)
        self.run.end(cid, title, status, message)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        """A bare report: verdicts come from the exception itself, so pytest's traceback
        formatting (slow, above all in Pyodide) is skipped."""
        outcome, longrepr = "passed", None
        if call.excinfo is not None:
            exc = call.excinfo.value
            self.excinfo.setdefault(item.nodeid, exc)
            if isinstance(exc, pytest.skip.Exception):
                outcome, longrepr = "skipped", (str(item.path), 0, str(exc))
            else:
                outcome, longrepr = "failed", f"{type(exc).__name__}: {exc}"
        return TestReport(item.nodeid, item.location, {}, outcome, longrepr, call.when,
                          duration=call.duration, start=call.start, stop=call.stop)

    def revive(self) -> str | None:
        """Before a check's time starts: when the learner's side was lost (a time limit, a
        crash) since the file loaded, load it again in the fresh one. The time that takes is
        not the learner's: the run's deadline moves by as much. Returns what to tell the
        learner when it did not work."""
        run = self.run
        if run.load_failed or not self.module.gone:
            return None
        began = time.perf_counter()
        try:
            self.module.warm()
            with time_limit(run.lesson.limits.check_seconds):
                return self.module.revive(run.lesson.limits.check_seconds)
        finally:
            run.deadline += time.perf_counter() - began

    def skip_from_now_on(self, fn: str | None, title: str) -> None:
        """Learner function `fn` ran out of time in the check titled `title`: from now on, in
        this run, it is a stand-in that raises at once (learner.stand_in), so a loop costs
        one time limit, not one per check that reaches it."""
        if fn in {f.name for f in self.run.lesson.functions}:
            self.module.stand_in(fn, title)

    def verdict(self, item, reports, limit, fired: bool) -> tuple[str, str]:
        exc = self.excinfo.pop(item.nodeid, None)
        if fired and not isinstance(exc, CheckTimeout):
            exc = CheckTimeout()  # learner code caught the timeout and went on
        if exc is None or isinstance(exc, pytest.skip.Exception):
            return "passed", ""
        if isinstance(exc, TimedOutBefore):
            if exc.caller != exc.name:
                return "timeout", _("Skipped: your {caller} calls {fn}, which ran out of time "
                                    "above, in \u201c{title}\u201d, so this check did not run "
                                    "it again. Fix {fn} first.", caller=exc.caller,
                                    fn=exc.name, title=exc.title)
            return "timeout", _("Skipped: {fn} ran out of time above, in \u201c{title}\u201d, so "
                                "this check did not run it again. Fix {fn} first.",
                                fn=exc.name, title=exc.title)
        if isinstance(exc, CheckTimeout):
            self.skip_from_now_on(exc.args[0] if exc.args else None, check_title(item))
            return "timeout", self.run.timeout_message(exc, limit)
        if isinstance(exc, LearnerError):
            return "error", exc.message
        if isinstance(exc, CheckFailed):
            return "failed", str(exc)
        if exc is not None and _raised_in_learner_code(exc):
            return "error", learner.describe_exception(exc, _("your code"))
        if isinstance(exc, AssertionError):
            return "failed", str(exc) or _("The check's condition did not hold.")
        detail = f"{type(exc).__name__}: {exc}" if exc is not None else _("it did not pass")
        return "error", _("This check broke (a bug in the lesson, not in your code): {detail}",
                          detail=detail)


def _raised_in_learner_code(exc: BaseException) -> bool:
    """Whether `exc` was raised in solution.py's own code although it reached the check
    itself, not through a call. Only with learner code in this interpreter (`InProcess`):
    a signal handler it installed can fire in the check's frames. In split mode no solution.py frame exists on the grader's side."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and last.tb_frame.f_code.co_filename == learner.FILENAME


def check_id(item) -> str:
    """`test_gelu.py::test_values[neg]` -> `test_gelu::test_values[neg]`"""
    path, _, rest = item.nodeid.partition("::")
    return f"{Path(path).stem}::{rest}"


def check_title(item) -> str:
    doc = (getattr(item, "function", None).__doc__ or "").strip()
    title = _(doc.splitlines()[0].strip()) if doc else item.name
    callspec = getattr(item, "callspec", None)
    # A parameter id is translated when the catalog has it ("negative"), else kept ("n=2").
    return f"{title} ({_(callspec.id)})" if callspec is not None else title


@contextmanager
def _isolated_imports(checks_dir: Path):
    """Import the check files afresh on every run and leave no trace of them.

    Modules named like a check file (`conftest`, `test_gelu`) are set aside during the run,
    and whatever the run imported from the checks folder is removed afterwards.
    """
    names = {p.stem for p in checks_dir.glob("*.py")}
    saved = {n: sys.modules.pop(n) for n in names if n in sys.modules}
    before = set(sys.modules)
    # No __pycache__ next to the checks: the folder is shipped as it is.
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        yield
    finally:
        sys.dont_write_bytecode = dont_write
        for name in set(sys.modules) - before:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if name in names or file.startswith(str(checks_dir)):
                del sys.modules[name]
        sys.modules.update(saved)


@contextmanager
def _quiet_pytest_env():
    """No plugin discovery through entry points (slow, and not ours); no PYTEST_ADDOPTS."""
    keys = ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
