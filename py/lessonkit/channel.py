"""The grader's side of the learner channel: `Learner`, what the checks receive as `solution`.

The checks call learner functions only through `lessonkit.checking.call`, which asks this
object; it sends plain-data requests over a channel and gets plain data back
(docs/architecture.md, "The learner channel"). A channel is any object with
`request(message: dict, time_limit_s: float | None) -> dict`:
- `InProcess`: the learner's side (`lessonkit.learner_host.Host`) in this interpreter (the
  non-isolated page, tests of its path);
- `Callback`: a host function taking and returning JSON text (the browser's grader worker
  asking the page, which asks the learner worker);
- `lessonkit.learner_process.LearnerProcess`: a child process (the command line).

A host-made `timeout` or `crashed` means the learner's side is gone and a fresh one waits:
the next request is preceded by `load` again, with stand-ins for the functions that ran out of
time. A response that does not match its request is the learner's error, never a pass.
"""
from __future__ import annotations

import json
import time

from . import learner_host, wire
from .i18n import _
from .learner import LearnerError, TimedOutBefore
from .timelimit import CheckTimeout
from .wire import PROTOCOL

# What a call's response has in `after` for an input it left exactly as the request sent it.
_UNCHANGED = PROTOCOL["unchanged_input"]


def crash_message(how: str | None, signal: str | None = None) -> str:
    """What a check says when the learner's side died while it ran."""
    if how == "exit":
        return _("Your code ended the Python process (os._exit or a fatal error) while this "
                 "check ran, so it could not finish. Return a value instead of stopping Python.")
    if how == "killed":
        return _("The Python process was killed while this check ran (by your code, or by the "
                 "system because it used far too much memory), so it could not finish. Look "
                 "for arrays or lists that grow without bound.")
    if how == "signal":
        return _("Python crashed ({signal}) while this check ran, so it could not finish. This "
                 "usually means deep recursion or a library called with invalid memory.",
                 signal=signal or "?")
    if how == "garbled":
        return unreadable_message()
    return _("Python itself stopped while this check ran (it ran out of memory, or crashed "
             "inside a library), so it was started again and the other checks were run without "
             "this one. Look for arrays or lists that grow without bound, or recursion without "
             "end.")


def unreadable_message() -> str:
    return _("Your code wrote something the grader could not read in place of its result "
             "(to the channel the grader listens on), so this check does not count. Return "
             "values; print only to the usual output.")


class InProcess:
    """The learner's side in this interpreter, with nothing between learner code and the
    grader (docs/threat-model.md); the grader's own timer interrupts it (CheckTimeout raised
    through the call)."""
    in_process = True

    def __init__(self):
        self.host = learner_host.Host(in_process=True)

    def request(self, message: dict, time_limit_s: float | None) -> dict:
        return self.host.handle(message)

    def close(self) -> None:
        self.host.close()


class Callback:
    """A channel through `call(request_json, time_limit_s) -> response_json` (the browser)."""
    in_process = False

    def __init__(self, call):
        self._call = call

    def request(self, message: dict, time_limit_s: float | None) -> dict:
        text = self._call(json.dumps(message, allow_nan=False), time_limit_s)
        try:
            return json.loads(str(text))
        except (ValueError, RecursionError):
            return {}  # not JSON: the caller treats it as unreadable


class Learner:
    """The learner's module as the checks see it, on the far side of `channel`.

    `out`: the grading run's output buffer, which gets what learner code printed.
    `deadline`: when the running check's time is up (set by the runner), so each request
    carries the time left.
    """

    def __init__(self, lesson, source: str, lang: str, channel, out):
        self.lesson, self.source, self.lang = lesson, source, lang
        self.channel, self.out = channel, out
        self.stand_ins: dict[str, str] = {}
        self.deadline: float | None = None
        self.loaded = False      # the learner's side holds this run's module
        self.restarts = 0
        self._seq = 0

    @property
    def gone(self) -> bool:
        """The learner's side was replaced (a time limit, a crash, an unreadable answer):
        load again before the next call."""
        return not self.loaded

    def _limit(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())

    # --- requests -----------------------------------------------------------------------
    def _ask(self, message: dict, limit: float | None) -> dict:
        self._seq += 1
        message["seq"] = self._seq
        try:
            response = self.channel.request(message, limit)
        except BaseException:
            # A time limit or Stop raised here while the learner's side was busy: unless it
            # runs in this interpreter (where the exception came through it), it is in an
            # unknown state and is replaced.
            if not getattr(self.channel, "in_process", False):
                self.loaded = False
            raise
        if (type(response) is not dict or response.get("seq") != self._seq
                or type(response.get("kind")) is not str):
            self.loaded = False
            raise LearnerError(unreadable_message())
        kind = response["kind"]
        # What learner code printed (host-made answers may carry what came before them).
        text, cut = response.get("stdout", ""), response.get("stdout_truncated", False)
        if type(text) is not str or type(cut) is not bool:
            self.loaded = False
            raise LearnerError(unreadable_message())
        self.out.write(text)
        if cut:
            self.out.truncated = True
        if kind in ("timeout", "crashed", "stopped"):
            self.loaded = False
        if kind == "timeout":
            raise CheckTimeout()
        if kind == "stopped":
            raise KeyboardInterrupt
        if kind == "crashed":
            raise LearnerError(crash_message(response.get("how"), response.get("signal")))
        return response

    def warm(self) -> None:
        """Before a check's time starts: a channel whose learner side may still be starting
        (a child process) waits for it here (its `warm()`), so no time limit pays for that."""
        warm = getattr(self.channel, "warm", None)
        if warm is not None:
            warm()

    def load(self, time_limit_s: float | None) -> tuple[str | None, bool]:
        """The `load` request: a learner-facing problem, or None."""
        response = self._ask({"op": "load", "lesson_dir": str(self.lesson.path),
                              "source": self.source, "lang": self.lang,
                              "stand_ins": dict(self.stand_ins)}, time_limit_s)
        problem = response.get("problem")
        if response["kind"] != "loaded" or not (problem is None or type(problem) is str):
            self.loaded = False
            raise LearnerError(unreadable_message())
        self.loaded = problem is None
        return problem

    def revive(self, time_limit_s: float | None) -> str | None:
        """Load the file again in the fresh learner side that replaced a lost one (with the
        stand-ins); None when it worked, else what to tell the learner."""
        self.restarts += 1
        if self.restarts > PROTOCOL["max_restarts"]:
            return _("Python had to be started again too many times in this run; the remaining "
                     "checks were not run.")
        try:
            problem = self.load(time_limit_s)
        except CheckTimeout:
            problem = _("{what} was still running after {seconds} s, the time limit, and was "
                        "stopped.", what=_("your file (its top-level code)"),
                        seconds=f"{self.lesson.limits.check_seconds:g}")
        except LearnerError as exc:
            problem = exc.message
        if problem is None:
            return None
        return _("Your file could not be loaded again after Python was started afresh: "
                 "{problem}", problem=problem)

    def call(self, name: str, args: tuple):
        """Run learner function `name` on `args` on the learner's side: (the returned value,
        the inputs as the learner left them, parameter names, dtypes seen), all plain data."""
        try:
            encoded = [wire.encode(a) for a in args]
        except wire.WireError as exc:  # the check's own inputs: a bug in the lesson
            raise TypeError(f"the check passed {name} an input that is not plain data "
                            f"({exc})") from None
        if self.gone:  # within one check, after its earlier call lost the learner's side
            problem = self.revive(self._limit())
            if problem:
                raise LearnerError(problem)
        response = self._ask({"op": "call", "fn": name, "args": encoded}, self._limit())
        kind = response["kind"]
        try:
            if kind == "returned":
                after = response["after"]
                params, dtypes = response["params"], response["dtypes"]
                if type(after) is not list or len(after) != len(args) \
                        or type(params) is not list or type(dtypes) is not list \
                        or not all(type(p) is str for p in params + dtypes):
                    raise wire.WireError("malformed result")
                # An input left unchanged comes back as a marker: the one this request sent.
                left = (encoded[i] if a == _UNCHANGED else a for i, a in enumerate(after))
                return (wire.decode(response["got"]), tuple(wire.decode(a) for a in left),
                        tuple(params), set(dtypes))
            if kind == "raised" and type(response["message"]) is str:
                raise LearnerError(response["message"], line=response.get("line"))
            if kind == "timed_out_before" and type(response["name"]) is str \
                    and type(response["title"]) is str:
                exc = TimedOutBefore(response["name"], response["title"])
                exc.caller = name
                raise exc
        except LearnerError:
            raise
        except Exception:  # noqa: BLE001 - whatever reading the answer raised (a forged
            pass           # number too large, nesting too deep): the learner's, not a bug
        self.loaded = False
        raise LearnerError(unreadable_message())

    def stand_in(self, name: str, title: str) -> None:
        """`name` ran out of time in the check titled `title`: from now on in this run it
        raises at once wherever it is called (one time limit per loop, not one per check)."""
        self.stand_ins[name] = title
        if getattr(self.channel, "in_process", False):
            self.channel.host.stand_in(name, title)
        else:
            self.loaded = False  # the next load puts the stand-in in place
