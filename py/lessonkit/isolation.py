"""Grading in a child process, for the command line: the CPython counterpart of the browser's
worker host (web/src/python-worker-client.js).

The learner's code runs in a fresh `python` whose death cannot take the CLI with it. The child
grades a private copy of the lesson's shipped files (`lesson.toml`, `starter.py`, `checks/`) in a
scratch folder, under an address-space limit, and streams the engine's progress events and the
final report to the parent over a dedicated pipe. The parent, like the browser's host:
- enforces each check's time limit (plus a grace period) and the overall limit from outside,
  so code that blocks signals or loops inside C is still stopped;
- when the child dies or is killed while a check runs (os._exit, a crash, memory exhaustion,
  a time limit), grades again in a new child with that check already decided, so every other
  check is still run and reported;
- keeps whatever the learner's code wrote straight to the process's stdout/stderr (os.write,
  sys.__stdout__) apart from the report, capped, as part of the learner's output.
"""
from __future__ import annotations

import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import i18n
from .capture import CappedOutput
from .hints import FILENAME as HINTS_FILE
from .i18n import _
from .lesson import Lesson
from .report import CheckResult, Report

# Seconds the parent waits beyond a limit the child enforces itself before ending it.
GRACE_S = 2.0
# How many times a run may be restarted after a crash or a hard time limit.
MAX_RESTARTS = 40
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)

def crash_message(kind: str, **fields) -> str:
    if kind == "exit":
        return _("Your code ended the Python process (os._exit or a fatal error) while this "
                 "check ran, so it could not finish. Return a value instead of stopping Python.")
    if kind == "killed":
        return _("The Python process was killed while this check ran (by your code, or by the "
                 "system because it used far too much memory), so it could not finish. Look "
                 "for arrays or lists that grow without bound.")
    return _("Python crashed ({signal}) while this check ran, so it could not finish. This "
             "usually means deep recursion or a library called with invalid memory.", **fields)


def grade_in_child(lesson: Lesson, source: str, *, memory_mb: int | None = None,
                   python: str = sys.executable, lang: str = i18n.DEFAULT) -> Report:
    """Grade `source` against `lesson` in child processes; always returns a Report.
    `lang`: the language of titles, messages and hints, as in `grade`."""
    with i18n.use(lang, lesson.path):
        return _grade_in_child(lesson, source, memory_mb, python, lang)


def _grade_in_child(lesson, source, memory_mb, python, lang) -> Report:
    started = time.perf_counter()
    memory_mb = memory_mb if memory_mb is not None else lesson.limits.memory_mb
    decided: dict[str, tuple[str, str]] = {}   # check id -> (status, message), from crashes
    ran_out: dict[str, str | None] = {}        # check id -> the learner function it was killed in
    raw = CappedOutput(lesson.limits.output_lines, lesson.limits.output_bytes)
    with tempfile.TemporaryDirectory(prefix="lessonkit-") as scratch:
        work = Path(scratch) / "work"
        work.mkdir()
        for attempt in range(MAX_RESTARTS):
            # A fresh copy for every child: one that died halfway through changing the checks
            # could not put them back.
            lesson_copy = _copy_shipped(
                lesson, Path(scratch) / f"lesson-{attempt}" / lesson.path.name)
            outcome = _Child(python, lesson_copy, work, source, decided, ran_out, memory_mb,
                             lesson, started, raw, lang).run()
            if outcome.report is not None:
                return _finish(outcome.report, decided, raw, started)
            if outcome.check_id in decided:  # it died again before reaching any check
                break
            decided[outcome.check_id] = outcome.verdict
            ran_out[outcome.check_id] = outcome.fn
    return _finish({"lesson": lesson.id, "checks": [
        {"id": cid, "title": cid, "status": status, "message": message}
        for cid, (status, message) in decided.items()]}, {}, raw, started)


def _copy_shipped(lesson: Lesson, target: Path) -> Path:
    """The files the browser gets: the child never touches the author's folder."""
    target.mkdir(parents=True)
    shutil.copy2(lesson.path / "lesson.toml", target / "lesson.toml")
    shutil.copy2(lesson.path / "starter.py", target / "starter.py")
    shutil.copytree(lesson.checks_dir, target / "checks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if (lesson.path / HINTS_FILE).is_file():
        shutil.copy2(lesson.path / HINTS_FILE, target / HINTS_FILE)
    if (lesson.path / "locale").is_dir():
        shutil.copytree(lesson.path / "locale", target / "locale")
    return target


def _finish(data: dict, decided: dict, raw: CappedOutput, started: float) -> Report:
    checks = []
    for c in data["checks"]:
        status, message = decided.get(c["id"], (c["status"], c["message"]))
        checks.append(CheckResult(c["id"], c["title"], status, message,
                                  tuple(c.get("hints", ()))))
    stdout = data.get("stdout", "")
    truncated = data.get("stdout_truncated", False)
    extra = raw.text()
    if extra:
        stdout += ("" if not stdout or stdout.endswith("\n") else "\n") + extra
        truncated = truncated or raw.truncated
    return Report(lesson=data["lesson"], checks=checks, stdout=stdout,
                  stdout_truncated=truncated,
                  duration_ms=(time.perf_counter() - started) * 1000)


class _Outcome:
    def __init__(self, report=None, check_id=None, verdict=None, fn=None):
        self.report, self.check_id, self.verdict = report, check_id, verdict
        self.fn = fn  # the learner function a timed-out check was killed in, when known


class _Child:
    """One child process: start it, follow its events, end it when a limit passes."""

    def __init__(self, python, lesson_dir, work, source, decided, ran_out, memory_mb, lesson,
                 started, raw, lang):
        self.python, self.lesson_dir, self.work, self.source = python, lesson_dir, work, source
        self.decided, self.memory_mb, self.lesson = decided, memory_mb, lesson
        self.ran_out = ran_out
        self.started = started
        self.deadline_total = started + lesson.limits.total_seconds + GRACE_S
        self.raw = raw
        self.lang = lang
        self.token = secrets.token_hex(16)
        self.current: tuple[str, str] | None = None   # (id, title) of the running check
        self.calling: str | None = None               # the learner function it last called
        self.check_deadline: float | None = None
        self.report = None

    def run(self) -> _Outcome:
        read_fd, write_fd = os.pipe()
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        proc = subprocess.Popen(
            [self.python, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
             "from lessonkit.isolation import child_main; child_main()", _PACKAGE_PARENT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(write_fd,), cwd=self.work, env=env, start_new_session=True)
        os.close(write_fd)
        # Checks decided here (crashes, hard time limits) are skipped in the child as if timed
        # out; their real verdict replaces that one in the final report.
        job = {"token": self.token, "fd": write_fd, "lesson": str(self.lesson_dir),
               "source": self.source, "memory_mb": self.memory_mb,
               # The function each one timed out in, so that the child skips the later
               # checks calling it as the first child would have (one time limit per loop).
               "timed_out": {cid: self.ran_out.get(cid) for cid in self.decided},
               "time_used_s": time.perf_counter() - self.started, "lang": self.lang}
        try:
            proc.stdin.write(json.dumps(job).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        killed_for = None
        with selectors.DefaultSelector() as sel, os.fdopen(read_fd, "rb") as channel:
            sel.register(channel, selectors.EVENT_READ, "channel")
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            sel.register(proc.stderr, selectors.EVENT_READ, "out")
            buffer = b""
            open_streams = 3
            while open_streams:
                timeout = self._next_deadline() - time.perf_counter()
                if timeout <= 0:
                    killed_for = "timeout"
                    _kill(proc)
                    break
                for key, _ in sel.select(timeout=min(timeout, 1.0)):
                    data = os.read(key.fileobj.fileno(), 65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        open_streams -= 1
                    elif key.data == "out":
                        self.raw.write(data.decode("utf-8", "replace"))
                    else:
                        buffer += data
                        *lines, buffer = buffer.split(b"\n")
                        for line in lines:
                            self._message(line)
        code = proc.wait()
        if self.report is not None and killed_for is None:
            return _Outcome(report=self.report)
        return self._death(killed_for, code)

    def _next_deadline(self) -> float:
        deadline = self.deadline_total
        if self.check_deadline is not None:
            deadline = min(deadline, self.check_deadline)
        return deadline

    def _message(self, line: bytes) -> None:
        token, _, payload = line.decode("utf-8", "replace").partition(" ")
        if token != self.token:
            return  # not the grader's: someone else wrote to this pipe
        message = json.loads(payload)
        if "report" in message:
            self.report = message["report"]
            return
        event = message["event"]
        if event["event"] == "check_start":
            self.current = (event["id"], event["title"])
            self.check_deadline = time.perf_counter() + event["time_limit_s"] + GRACE_S
            self.calling = None
        elif event["event"] == "call":
            self.calling = event["fn"]
        elif event["event"] == "check_end":
            self.current, self.check_deadline = None, None

    def _death(self, killed_for, code) -> _Outcome:
        limits = self.lesson.limits
        check_id = self.current[0] if self.current else "load"
        if killed_for == "timeout":
            if self.check_deadline is None or time.perf_counter() >= self.deadline_total:
                verdict = ("timeout", _("Not finished within the whole run's {seconds} s "
                                        "limit: the grader stopped it.",
                                        seconds=f"{limits.total_seconds:g}"))
            else:
                verdict = ("timeout", _("This check was still running after {seconds} s, the "
                                        "time limit, and was stopped.",
                                        seconds=f"{limits.check_seconds:g}") + " "
                           + _("Look for a loop whose condition never becomes false, or work "
                               "that grows much faster than the input."))
        elif code == -signal.SIGKILL:
            verdict = ("error", crash_message("killed"))
        elif code < 0:
            verdict = ("error", crash_message("signal", signal=signal.Signals(-code).name))
        else:
            verdict = ("error", crash_message("exit"))
        fn = self.calling if killed_for == "timeout" else None
        return _Outcome(check_id=check_id, verdict=verdict, fn=fn)


def _kill(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


# --- the child ------------------------------------------------------------------------
def child_main() -> None:
    """Read the job from stdin, grade, send events and the report over the job's pipe."""
    job = json.loads(sys.stdin.buffer.read())
    # Nothing of the job stays where learner code would look first: stdin is empty, the
    # pipe moves to an unremarkable descriptor.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    channel = os.dup(job["fd"])
    os.close(job["fd"])
    token = job["token"]

    def send(message: dict) -> None:
        os.write(channel, (token + " " + json.dumps(message) + "\n").encode())

    from . import load_lesson, grade  # imported before the memory limit applies
    lesson = load_lesson(job["lesson"])
    _limit_memory(job["memory_mb"])
    report = grade(lesson, job["source"], on_event=lambda e: send({"event": e}),
                   timed_out=job["timed_out"], time_used_s=job["time_used_s"],
                   lang=job["lang"])
    send({"report": report.to_dict()})
    # Leave at once: no atexit handlers or finalizers from learner code run after this.
    os._exit(0)


def _limit_memory(memory_mb) -> None:
    """Cap the address space at what Python uses now plus `memory_mb`: allocating more ends
    in MemoryError (or, in the worst case, the process dies and the parent says why)."""
    if not memory_mb:
        return
    try:
        import resource
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        used = pages * os.sysconf("SC_PAGE_SIZE")
        limit = used + memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no RLIMIT_AS (macOS): the machine's own limits apply
