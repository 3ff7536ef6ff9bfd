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
from types import SimpleNamespace

import numpy
import pytest
from _pytest.config import ConftestImportFailure, _prepareconfig
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
            run.checks(solution, lang, _checks_key(checks_before))
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
    def checks(self, solution: Learner, lang: str, checks_key) -> None:
        """Collect the checks (or take those collected for an earlier run), then load the
        learner's file (so the checks are read before any learner code runs), then run
        them. `lang`: the run's language; `checks_key`: the check files' contents, which a kept collection must match."""
        plugin = _Plugin(self, solution)
        # Learner code in this interpreter could reach the checks' objects: the checks are
        # then collected afresh and dropped after the run (see _Collected).
        keep = not getattr(solution.channel, "in_process", False)
        with (nullcontext() if keep else _isolated_imports(self.lesson.checks_dir.resolve())):
            try:
                tree = _collected(self.lesson, lang, checks_key, keep)
            except KeyboardInterrupt:  # Stop before anything ran
                self.stopped([(LOAD_ID, load_title(self.lesson))])
                return
            tree.feed.plugin = plugin
            try:
                plugin.run_all(tree)
            finally:
                tree.feed.plugin = None
                if not tree.reset(intact=keep):
                    _forget(tree)
        if plugin.interrupted:
            self.stopped(plugin.pending())
            return
        if not plugin.seen or tree.code in (pytest.ExitCode.INTERNAL_ERROR,
                                            pytest.ExitCode.USAGE_ERROR):
            self.end("checks", _("The hidden checks run"), "error",
                     _("The lesson's checks could not run (pytest exit status {code}); this is "
                       "a bug in the lesson, not in your code.", code=int(tree.code)))


# Collections kept for later runs in this interpreter, by checks folder and language (checks
# may translate text as they are imported): the grader worker's, and a command line's grader
# process. Bounded: a learner moving through the course leaves one per lesson visited.
_KEPT: dict[tuple[str, str], "_Collected"] = {}
_KEEP_AT_MOST = 8


def collect(lesson: Lesson, lang: str = i18n.DEFAULT) -> None:
    """Collect `lesson`'s checks in `lang` now, for the next run to find them collected: only
    in an interpreter where learner code never runs (the isolated page's grader worker, when
    it moves to another lesson; see _Collected)."""
    with i18n.use(lang, lesson.path):
        _collected(lesson, lang, _checks_key(intact.snapshot(lesson.checks_dir)), True)


def _collected(lesson: Lesson, lang: str, checks_key, keep: bool) -> "_Collected":
    if not keep:
        return _Collected(lesson)
    key = (str(lesson.checks_dir.resolve()), lang)
    tree = _KEPT.get(key)
    if tree is not None and tree.checks_key == checks_key:
        _KEPT[key] = _KEPT.pop(key)  # the most recently used last
        return tree
    if tree is not None:
        _forget(tree)
    with _isolated_imports(lesson.checks_dir.resolve()):
        tree = _Collected(lesson)
    tree.checks_key = checks_key
    tree.kept_key = key
    if tree.items:  # a collection that failed is tried again next run
        _KEPT[key] = tree
        while len(_KEPT) > _KEEP_AT_MOST:
            _forget(next(iter(_KEPT.values())))
    return tree


def _forget(tree: "_Collected") -> None:
    if _KEPT.get(getattr(tree, "kept_key", None)) is tree:
        del _KEPT[tree.kept_key]
    tree.close()


class _Feed:
    """The pytest plugin of a collection: the fixtures the checks take and the hooks, for the
    run using the collection now (`plugin`, a _Plugin)."""

    def __init__(self, lesson: Lesson):
        self.lesson = lesson
        self.plugin: _Plugin | None = None
        self.items: list = []
        self.collect_errors: list[tuple[str, str, str, str]] = []

    @pytest.fixture
    def solution(self):
        return self.plugin.module

    @pytest.fixture
    def fresh(self, request):
        """A random generator for arguments drawn fresh for each run, beside a check's fixed
        cases: from the run's seed and the check's id (so a check's draw does not depend on
        which checks ran before it)."""
        return numpy.random.default_rng([self.plugin.run.seed,
                                         zlib.crc32(request.node.nodeid.encode())])

    def pytest_collection_modifyitems(self, items):
        # Teaching order: files as lesson.toml's `checks` lists them, tests as each file
        # defines them (a stable sort keeps pytest's order within a file).
        order = {p.resolve(): i for i, p in enumerate(self.lesson.check_files)}
        items.sort(key=lambda item: order.get(Path(str(item.path)).resolve(), len(order)))
        self.items = list(items)

    def pytest_collectreport(self, report):
        if report.failed:
            stem = Path(str(report.fspath)).stem
            self.collect_errors.append((
                stem, _("The checks in {file} load", file=f"{stem}.py"), "error",
                _("This check file is broken (a bug in the lesson, not in your code):")
                + "\n" + str(report.longrepr)[-2000:]))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        """A bare report: verdicts come from the exception itself, so pytest's traceback
        formatting (slow, above all in Pyodide) is skipped."""
        outcome, longrepr = "passed", None
        if call.excinfo is not None:
            exc = call.excinfo.value
            self.plugin.excinfo.setdefault(item.nodeid, exc)
            if isinstance(exc, pytest.skip.Exception):
                outcome, longrepr = "skipped", (str(item.path), 0, str(exc))
            else:
                outcome, longrepr = "failed", f"{type(exc).__name__}: {exc}"
        return TestReport(item.nodeid, item.location, {}, outcome, longrepr, call.when,
                          duration=call.duration, start=call.start, stop=call.stop)


class _Collected:
    """pytest's configuration, session and collected checks of one lesson, in the language
    that was active (checks may translate text as they are imported).

    The grader collects once and runs the same items in every later run of that lesson and
    language whose check files are unchanged (pytest's start-up and the checks' import are
    a third of a warm run). That is safe where learner code never runs in this interpreter
    (the isolated page's grader worker, a command line's grader process): all that reaches
    the grader from learner code is plain data, decoded afresh for each call (lessonkit.wire
    builds lists, arrays and numbers and runs no code), so a collection can hold something
    of a learner's only where check code keeps a value past its test. pytest's per-test state
    is dropped after every run (`reset`: every fixture of every scope torn down, each test's
    arguments and request discarded), and the check modules' globals are compared with what
    they were after their import: a check that rebound or changed one (a module-level list it
    appended a result to, say) drops the collection, so the next run imports the checks
    afresh. Where learner code shares this interpreter (the page without isolation, tests'
    InProcess) it could change the checks' objects themselves, so each run collects its own
    and drops it (and the page's single worker grades once, anyway).
    """

    def __init__(self, lesson: Lesson):
        self.feed = _Feed(lesson)
        self.session = None
        self.items: list = []
        self.code = pytest.ExitCode.OK
        checks_dir = lesson.checks_dir.resolve()
        args = [str(checks_dir), "--rootdir", str(checks_dir), "-c", os.devnull,
                "--confcutdir", str(checks_dir), *_PYTEST_ARGS]
        try:
            with _quiet_pytest_env():
                self.config = _prepareconfig(args, plugins=[self.feed])
        except ConftestImportFailure:
            self.config, self.code = None, pytest.ExitCode.USAGE_ERROR
            return
        try:
            self.config._do_configure()
            self.session = pytest.Session.from_config(self.config)
            self.config.hook.pytest_sessionstart(session=self.session)
            self.config.hook.pytest_collection(session=self.session)
        except (KeyboardInterrupt, CheckTimeout):
            self.close()
            raise
        except pytest.UsageError:
            self.code = pytest.ExitCode.USAGE_ERROR
        except Exception:  # noqa: BLE001 - pytest's own failure: the lesson's checks cannot run
            self.code = pytest.ExitCode.INTERNAL_ERROR
        else:
            self.items = self.feed.items
            if not self.items and not self.feed.collect_errors:
                self.code = pytest.ExitCode.NO_TESTS_COLLECTED
        self.globals_seen = self.globals_now()

    @property
    def collect_errors(self):
        return self.feed.collect_errors

    def modules(self) -> list:
        """The check files' modules, conftest.py's among them."""
        checks_dir = str(self.feed.lesson.checks_dir.resolve())
        found = {id(m): m for m in (getattr(i, "module", None) for i in self.items) if m}
        if self.config is not None:
            for plugin in self.config.pluginmanager.get_plugins():
                if str(getattr(plugin, "__file__", "") or "").startswith(checks_dir):
                    found[id(plugin)] = plugin
        return list(found.values())

    def globals_now(self) -> list:
        return [_fingerprint(vars(m)) for m in self.modules()]

    def reset(self, intact: bool) -> bool:
        """After a run: pytest's per-test state dropped. False when the collection must not
        serve another run (`intact` false: learner code shared this interpreter; a teardown
        that failed; a check module's globals changed)."""
        try:
            if self.session is not None:
                self.session._setupstate.teardown_exact(None)
        except BaseException:  # noqa: BLE001 - a fixture's teardown raised
            intact = False
        for item in self.items:
            item._request = False
            item.funcargs = None
        return intact and self.globals_now() == self.globals_seen

    def close(self) -> None:
        if self.config is None:
            return
        config, self.config = self.config, None
        try:
            if self.session is not None:
                config.hook.pytest_sessionfinish(session=self.session, exitstatus=self.code)
        finally:
            config._ensure_unconfigure()


def _fingerprint(value, depth: int = 0):
    """What a check module's global holds, to tell whether a run changed it: containers and
    arrays by their contents (a few levels deep), anything else by identity (functions,
    classes, modules; numbers and text cannot change in place)."""
    if depth > 4:
        return id(value)
    if isinstance(value, numpy.ndarray):
        return ("array", id(value), value.dtype.str, value.shape,
                zlib.crc32(numpy.ascontiguousarray(value).view(numpy.uint8).reshape(-1)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, id(value),
                tuple(_fingerprint(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return ("dict", id(value),
                tuple((k if isinstance(k, (str, int)) else id(k), _fingerprint(v, depth + 1))
                      for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return ("set", id(value), tuple(sorted(map(id, value))))
    if isinstance(value, SimpleNamespace):
        return ("namespace", id(value), _fingerprint(vars(value), depth + 1))
    return id(value)


class _Plugin:
    """One run's part: the learner's module for the checks, and each test turned into a
    verdict."""

    def __init__(self, run: _Run, module: Learner):
        self.run = run
        self.module = module
        self.seen = False
        self.interrupted = False
        self.excinfo: dict[str, BaseException] = {}
        self.items: list = []

    def run_all(self, tree: _Collected) -> None:
        """The `load` check, then the check files that failed to load (in that order in the
        report), then every check."""
        self.items = tree.items
        self.seen = bool(tree.items or tree.collect_errors)
        try:
            try:
                self.module.warm()
                self.run.load(self.module)
            finally:
                for result in tree.collect_errors:
                    self.run.end(*result)
            for i, item in enumerate(tree.items):
                nextitem = tree.items[i + 1] if i + 1 < len(tree.items) else None
                self.protocol(tree.session, item, nextitem)
        except KeyboardInterrupt:  # the Stop button
            self.interrupted = True

    def pending(self) -> list[tuple[str, str]]:
        done = {r[0] for r in self.run.results}
        return [(check_id(i), check_title(i)) for i in self.items if check_id(i) not in done]

    def protocol(self, session, item, nextitem) -> None:
        cid, title = check_id(item), check_title(item)
        lost = self.revive()
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
            return
        # Armed for the whole check, setup to teardown, so that the host's deadline (which
        # starts at check_start) never falls where an alarm would be ignored.
        try:
            # What the last check that ran left set up for one skipped since: its fixtures'
            # teardown errors were that check's to report.
            session._setupstate.teardown_exact(item)
        except Exception:  # noqa: BLE001
            pass
        try:
            with time_limit(limit) as timer:
                reports = runtestprotocol(item, nextitem=nextitem, log=False)
        except CheckTimeout:  # landed between pytest's phases rather than inside one
            reports = []
            self.excinfo.setdefault(item.nodeid, CheckTimeout())
        status, message = self.verdict(item, reports, limit, timer.fired)
        self.run.end(cid, title, status, message)

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


def _checks_key(snapshot: dict) -> tuple:
    """The check files' contents (an intact.snapshot), as a key a kept collection matches."""
    return tuple(sorted((path, entry[0] if entry else None) for path, entry in snapshot.items()))


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
