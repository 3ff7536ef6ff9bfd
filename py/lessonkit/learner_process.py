"""The command line's learner channel: learner code runs in a child process, the grader (the
checks, pytest, the expected values, the report) stays in this one.

The child is `python -I -c ... --serve FD_IN FD_OUT --memory-mb N --confine ...`
(lessonkit.learner_host): requests and responses travel over two dedicated pipes, one JSON line
each; the child's own stdout and stderr are read here, capped as they arrive, as learner
output; it runs in a scratch folder, with a copy of what the learner may see of the lesson
(never the author's folder, never the checks or the model solution), under an address-space
limit, and confined to that folder before any learner code runs (lessonkit.confine: Landlock
where the kernel has it, every capability dropped where it runs as root).
This side:
- waits for each response at most the time the request allows plus `grace_s`
  (protocol.json), then kills the child (SIGKILL, its whole process group) and answers
  `timeout` itself; the grader's own SIGALRM usually comes first, and a time limit or Stop
  raised here while the child works kills it too;
- answers `crashed` itself when the child dies, or writes anything that is not the expected
  response (`how`: exit, killed, signal, garbled);
- starts a fresh child for the next request after either.
"""
from __future__ import annotations

import codecs
import ctypes
import json
import os
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
from .wire import PROTOCOL
from .hints import FILENAME as HINTS_FILE
from .lesson import Lesson
from .report import Report
from .requirements import installed
from .runner import grade

_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)
# How long a child may take to start (Python, numpy, lessonkit) before it counts as dead.
BOOT_S = 120.0
_BOOT = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
         "from lessonkit.learner_host import main; main()")


class LearnerProcess:
    """A learner channel to a child process (see the module's docstring). Reusable across
    grading runs (each `load` starts one); `close()` ends the child and the scratch folder.
    `raw`: what the child wrote to its own stdout and stderr, capped."""
    in_process = False

    def __init__(self, lesson: Lesson, memory_mb: int | None = None,
                 python: str = sys.executable, confine: bool = True):
        self.python = python
        self.memory_mb = lesson.limits.memory_mb if memory_mb is None else memory_mb
        self.limits = lesson.limits
        self.hidden = lesson.path.resolve()  # the author's folder: never readable there
        # `confine=False` only for tests of the fallback (a system without Landlock).
        self.confine = confine
        self.confined = None  # what the child applied, in words (lessonkit.confine)
        self.scratch = Path(tempfile.mkdtemp(prefix="lessonkit-"))
        self.work = self.scratch / "work"
        self.work.mkdir()
        self.lesson_copy = _copy_shipped(lesson, self.scratch / "lesson" / lesson.path.name)
        # What the child may read besides the interpreter: its lesson copy, and the lesson's
        # pinned packages, installed here first (the child cannot write the wheel cache).
        self.readable = [self.lesson_copy,
                         *(Path(f).parent for f in installed(lesson.requirements))]
        self.raw = CappedOutput(lesson.limits.output_lines, lesson.limits.output_bytes)
        self.max_bytes = PROTOCOL["sab"]["bytes_capacity"]
        self.proc: subprocess.Popen | None = None
        self.ready = False
        self._start()  # it boots while the grader collects the checks

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        self._end()
        shutil.rmtree(self.scratch, ignore_errors=True)

    # --- the child ------------------------------------------------------------------------
    def _start(self) -> None:
        to_child, child_in = os.pipe()
        child_out, from_child = os.pipe()
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env.update(TMPDIR=str(self.work), HOME=str(self.work))
        args = [self.python, "-I", "-c", _BOOT, _PACKAGE_PARENT, "--serve", str(to_child),
                str(from_child)]
        if self.memory_mb:
            args += ["--memory-mb", str(self.memory_mb)]
        if self.confine:
            args += ["--confine", str(self.work), str(self.hidden)]
            args += [a for path in self.readable for a in ("--readable", str(path))]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(to_child, from_child), cwd=self.work, env=env, start_new_session=True)
        os.close(to_child)
        os.close(from_child)
        self.send, self.receive = child_in, child_out
        self.ready = False
        self.pending: list[bytes] = []
        self.decoders = {self.proc.stdout.fileno(): codecs.getincrementaldecoder("utf-8")("replace"),
                         self.proc.stderr.fileno(): codecs.getincrementaldecoder("utf-8")("replace")}

    def _end(self) -> None:
        """Kill the child, and whatever it started in its process group, if it is there."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            if proc.poll() is None:
                proc.kill()
        proc.wait()
        self._drain(proc)
        for fd in (self.send, self.receive):
            os.close(fd)
        proc.stdout.close()
        proc.stderr.close()

    def _drain(self, proc) -> None:
        """What the dead child left in its stdout and stderr pipes."""
        for stream in (proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
            try:
                while data := os.read(stream.fileno(), 65536):
                    self.raw.write(self.decoders[stream.fileno()].decode(data))
            except (BlockingIOError, OSError):
                pass

    def warm(self) -> None:
        """Wait until a child has booted (Python, numpy, lessonkit imported: it says
        `ready`), so that no request's time limit pays for a start. The runner calls this
        before a check's time starts."""
        if self.proc is None:
            self._start()
        if self.ready:
            return
        try:
            line = self._exchange(b"", time.perf_counter() + BOOT_S)
        except BaseException:
            self._end()
            raise
        try:
            said = json.loads(line) if isinstance(line, bytes) else None
        except ValueError:
            said = None
        # Said before any learner code ran: what confined the child, in words.
        self.ready = type(said) is dict and said.get("kind") == "ready"
        if self.ready:
            self.confined = str(said.get("confined") or "none: not asked to")
        if not self.ready:  # it could not start: the next request says how it ended
            self._end()

    # --- one request ------------------------------------------------------------------------
    def request(self, message: dict, time_limit_s: float | None) -> dict:
        if message.get("op") in ("load", "run_calls"):
            # The child reads its own copy of the lesson's files.
            message = {**message, "lesson_dir": str(self.lesson_copy)}
        self.warm()
        seq = message.get("seq")
        if self.proc is None:
            return {"seq": seq, "kind": "crashed", "how": "exit"}
        deadline = None if time_limit_s is None else (
            time.perf_counter() + time_limit_s + PROTOCOL["grace_s"])
        data = (json.dumps(message, allow_nan=False) + "\n").encode()
        # Learner output, sent as it was written ({"kind": "output"} lines), capped as it
        # arrives: a child that floods the channel with them costs this process nothing.
        printed = CappedOutput(self.limits.output_lines, self.limits.output_bytes)
        while True:
            try:
                line = self._exchange(data, deadline)
            except BaseException:
                # A time limit or Stop in the grader while the child works: its state is
                # unknown. What it printed until then is kept.
                self._end()
                self.raw.write(printed.kept())
                raise
            data = b""
            if line is None:  # the time ran out
                self._replace()
                return {"seq": seq, "kind": "timeout", **_printed(printed)}
            if isinstance(line, int):  # the child ended: its exit status
                self._replace()
                return {"seq": seq, **_crash(line), **_printed(printed)}
            try:
                response = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested past any answer
                response = None
            if type(response) is not dict or response.get("seq") != seq:
                self._replace()  # something else on the channel: it cannot be trusted
                return {"seq": seq, "kind": "crashed", "how": "garbled", **_printed(printed)}
            if response.get("kind") == "output" and type(response.get("text")) is str:
                printed.write(response["text"])
                continue
            if type(response.get("stdout", "")) is str:
                printed.write(response.get("stdout", ""))
                cut = response.get("stdout_truncated") is True
                response.update(_printed(printed))
                response["stdout_truncated"] = response["stdout_truncated"] or cut
            return response

    def _replace(self) -> None:
        """End this child and start the next at once: it boots while the grader goes on."""
        self._end()
        self._start()

    def _exchange(self, data: bytes, deadline: float | None):
        """Send `data`; return the response line, None at `deadline`, or the exit status of
        a child that ended."""
        proc = self.proc
        waiting = b"".join(self.pending)
        if b"\n" in waiting:  # a line that came with the previous one
            line, _, rest = waiting.partition(b"\n")
            self.pending = [rest]
            return line
        with selectors.DefaultSelector() as sel:
            sel.register(self.receive, selectors.EVENT_READ, "channel")
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            sel.register(proc.stderr, selectors.EVENT_READ, "out")
            os.set_blocking(self.send, False)
            sending = data
            if sending:
                sel.register(self.send, selectors.EVENT_WRITE, "send")
            while True:
                wait = None if deadline is None else deadline - time.perf_counter()
                if wait is not None and wait <= 0:
                    return None
                for key, _ in sel.select(timeout=wait):
                    if key.data == "send":
                        try:
                            sending = sending[os.write(self.send, sending):]
                        except BrokenPipeError:
                            sending = b""
                        if not sending:
                            sel.unregister(self.send)
                        continue
                    chunk = os.read(key.fd, 1 << 20)
                    if key.data == "out":
                        if chunk:
                            self.raw.write(self.decoders[key.fd].decode(chunk))
                        else:
                            sel.unregister(key.fileobj)
                        continue
                    if not chunk:  # the channel closed: the child is ending
                        return proc.wait()
                    if b"\n" in chunk:
                        head, _, rest = chunk.partition(b"\n")
                        line = b"".join(self.pending) + head
                        self.pending = [rest]
                        return line
                    self.pending.append(chunk)
                    if sum(map(len, self.pending)) > self.max_bytes:
                        return b""  # far larger than any answer: not one


def _printed(out: CappedOutput) -> dict:
    return {"stdout": out.kept(), "stdout_truncated": out.truncated}


def _crash(code: int) -> dict:
    if code == -signal.SIGKILL:
        return {"kind": "crashed", "how": "killed"}
    if code < 0:
        return {"kind": "crashed", "how": "signal", "signal": signal.Signals(-code).name}
    return {"kind": "crashed", "how": "exit"}


def _copy_shipped(lesson: Lesson, target: Path) -> Path:
    """What the learner may see of the lesson: the child never sees the author's folder. The
    checks are empty files of the same names (the lesson's format wants them there; the
    grader reads its own), the model solution is not there."""
    target.mkdir(parents=True)
    # lesson.toml, starter.py, the hints and the given modules beside them; not the model
    # solution.
    for path in [lesson.path / "lesson.toml", lesson.path / HINTS_FILE,
                 *lesson.path.glob("*.py")]:
        if path.is_file() and path.name != "reference.py":
            shutil.copy2(path, target / path.name)
    (target / "checks").mkdir()
    for path in lesson.checks_dir.glob("*.py"):
        (target / "checks" / path.name).touch()
    if (lesson.path / "locale").is_dir():
        shutil.copytree(lesson.path / "locale", target / "locale")
    return target


def forbid_inspection() -> None:
    """Make this process non-dumpable (Linux): a process of the same user, such as the
    learner's child, can then no longer open /proc/<our pid>/mem, fd/ or attach a debugger to
    it. Elsewhere nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_DUMPABLE = 4
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def grade_split(lesson: Lesson, source: str, *, lang: str = i18n.DEFAULT,
                channel: LearnerProcess | None = None, **options) -> Report:
    """`lessonkit grade` and `lessonkit.grade()`: grade here, learner code in a child process
    (`channel`, or a new one that ends with the run); `options` are grade()'s. What the child
    wrote to its own stdout and stderr (os.write, sys.__stdout__) follows the captured output
    in the report."""
    own = channel is None
    channel = channel or LearnerProcess(lesson)
    try:
        report = grade(lesson, source, learner=channel, lang=lang, **options)
    finally:
        if own:
            channel.close()
    raw = channel.raw
    channel.raw = CappedOutput(lesson.limits.output_lines, lesson.limits.output_bytes)
    extra = raw.text()
    if extra:
        stdout = report.stdout
        report.stdout = stdout + ("" if not stdout or stdout.endswith("\n") else "\n") + extra
        report.stdout_truncated = report.stdout_truncated or raw.truncated
    return report
