"""The learner's side of grading: where the learner's code runs, and nothing of the grader does.

One request in, one response out (docs/architecture.md, "The learner channel"):
- `load`: compile and run the learner's file as module `solution`, say what the `load` check
  needs to know (a learner-facing problem, or none), put the stand-ins for functions that ran
  out of time in place;
- `call`: run one of its functions on decoded arguments and turn the result, and the inputs as
  the learner left them, into plain data *here* (`__array__`, `__eq__`, a subclass's methods
  are learner code: they run on this side and never reach the grader);
- `run_calls`: the page's "try with my code" (`lessonkit.playground.run_calls`).

What learner code prints is captured per request and capped; its exceptions become the
learner-facing messages of `lessonkit.learner`. Learner code may change anything on this
side (numpy, builtins, this module): it can only spoil its own answers, which the grader, in
another process or worker, reads as data.

Entry points: `handle(message)` and `handle_json(text)` (the browser's learner worker),
`prepare(lesson_dir)`, and `python -m lessonkit.learner_host --serve FD_IN FD_OUT
[--memory-mb N]` (the command line's learner process: one JSON line in, one JSON line out).
"""
from __future__ import annotations

import functools
import inspect
import io
import json
import os
import sys
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

import numpy

from . import i18n, learner, wire
from .capture import CappedOutput, streams, warnings_shown
from .given import given_modules
from .i18n import _
from .learner import LearnerError, TimedOutBefore
from .lesson import Lesson, load_lesson
from .wire import Unusable

_np_array = numpy.array
_ndarray = numpy.ndarray
_np_generic = numpy.generic
_float64 = numpy.float64
_signature = inspect.signature


class Host:
    """The learner's side of one grading run at a time.

    `in_process`: the grader runs in this same interpreter (the non-isolated page, tests):
    it already holds the language and the output buffer, so this side leaves them to it;
    learner output then goes straight to the grader's buffer and time limits arrive as
    CheckTimeout from the grader's own timer.
    """

    def __init__(self, in_process: bool = False):
        self.in_process = in_process
        # Where learner output goes as it is written, `stream(seq, text)` (the command line's
        # child: so that what was printed before a time limit killed it is not lost); else it
        # travels in the response.
        self.stream = None
        self.lesson: Lesson | None = None
        self.module = None
        self._run: ExitStack | None = None

    def handle(self, message: dict) -> dict:
        op = message.get("op")
        if op == "load":
            return self._load(message)
        if op == "call":
            return self._call(message)
        if op == "run_calls":
            return self._run_calls(message)
        raise ValueError(f"unknown request {op!r}")

    def close(self) -> None:
        """End the current grading run's state (given modules, language)."""
        self.module = None
        if self._run is not None:
            run, self._run = self._run, None
            run.close()

    # --- load ---------------------------------------------------------------------------
    def _load(self, message: dict) -> dict:
        self.close()
        lesson = loaded_lesson(message["lesson_dir"])
        self.lesson = lesson
        run = ExitStack()
        if not self.in_process:
            run.enter_context(i18n.use(message.get("lang", i18n.DEFAULT), lesson.path))
            run.enter_context(warnings_shown())
        run.enter_context(given_modules(lesson))
        run.enter_context(learner.stack_headroom(lesson.limits.recursion))
        self._run = run
        module, problem = None, None
        with self._output(message) as out:
            try:
                code = learner.compile_source(message["source"])
                module = learner.new_module(code)
                # Looking at the module's functions may run learner code too (a module
                # __getattr__, a callable object's __signature__).
                problem = learner.run_learner(lambda: missing_functions(lesson, module),
                                              _("your file"))
            except LearnerError as exc:
                module, problem = None, exc.message
        if module is not None:
            for name, title in dict(message.get("stand_ins") or {}).items():
                if name in {f.name for f in lesson.functions}:
                    vars(module)[name] = learner.stand_in(name, title)
        self.module = module
        return self._answer(message, out, kind="loaded", problem=problem)

    def stand_in(self, name: str, title: str) -> None:
        """From now on `name` raises TimedOutBefore at once (it ran out of time in the check
        titled `title`); for a grader in this interpreter, whose learner side cannot be
        replaced by a fresh one."""
        if self.module is not None:
            vars(self.module)[name] = learner.stand_in(name, title)

    # --- call ---------------------------------------------------------------------------
    def _call(self, message: dict) -> dict:
        name = message["fn"]
        args = wire.decode(message["args"])
        sent = _copied(args)  # before any learner code: the inputs as they came
        fn = self._function(name)
        dtypes: set = set()

        def learner_side():
            # Everything that touches learner objects happens here, inside one learner call:
            # the result and the inputs as the learner left them become plain data now,
            # because a returned object's own methods (__array__, __iter__, __eq__) are
            # learner code.
            value = fn(*args)
            return plain(value, dtypes), as_left(tuple(args)), params(fn, len(args))

        with self._output(message) as out:
            try:
                got, after, names = learner.run_learner(learner_side, name)
            except TimedOutBefore as exc:  # `name` itself, or a learner function it calls
                return self._answer(message, out, kind="timed_out_before", name=exc.name,
                                    title=exc.title)
            except LearnerError as exc:
                return self._answer(message, out, kind="raised", message=exc.message,
                                    line=exc.line)
        # An input the call left as it came is not sent back: the grader has it (half of a
        # call's bytes where the checks pass large arrays, and nothing a learner could not
        # already say by sending the input back as it got it).
        try:
            encoded = wire.encode(got), [
                _UNCHANGED if wire.same(left, given) else wire.encode(left)
                for left, given in zip(after, sent)]
        except (wire.WireError, RecursionError) as exc:
            return self._answer(message, out, kind="raised", line=None, message=_(
                "{name} returned a value the grader cannot read ({problem}). Return numbers, "
                "arrays, lists or tuples of them.", name=name, problem=str(exc)))
        size = _bytes_in((got, after))
        if size > _MAX_ANSWER_BYTES:  # it could not cross the channel whole (protocol.json)
            return self._answer(message, out, kind="raised", line=None, message=_(
                "{name} returned about {mb} MB of numbers, far more than any check expects, "
                "so it was not checked. Look at the shape of what you return.",
                name=name, mb=f"{size / 2**20:.0f}"))
        return self._answer(message, out, kind="returned", got=encoded[0], after=encoded[1],
                            params=list(names), dtypes=sorted(dtypes))

    def _function(self, name: str):
        """The learner's function `name`; or, for `module.function` naming a function of one
        of the lesson's given modules, that driver with the learner's module as its first
        argument: it runs the learner's functions on objects that cannot cross the wire (a
        simulated GPU group, a cache from one call to the next) and returns plain data."""
        if self.module is None:
            return None
        given, dot, attr = name.partition(".")
        if not dot:
            return vars(self.module).get(name)
        module = sys.modules.get(given) if given in self.lesson.given else None
        driver = vars(module).get(attr) if module is not None else None
        if not callable(driver):
            return None
        return functools.partial(driver, self.module)

    # --- run_calls ----------------------------------------------------------------------
    def _run_calls(self, message: dict) -> dict:
        from .playground import run_calls  # the page's helper; grading never needs it
        self.close()
        result = run_calls(loaded_lesson(message["lesson_dir"]), message["source"],
                           message["calls"], message.get("lang", i18n.DEFAULT))
        return {"seq": message.get("seq"), "kind": "ran", "result": result}

    # --- output -------------------------------------------------------------------------
    def _output(self, request: dict):
        """What learner code writes during one request, capped (in split mode); in-process
        it goes to the grader's own buffer, which is already in place."""
        if self.in_process:
            return nullcontext(None)
        limits = self.lesson.limits
        out = _Streamed(limits.output_lines, limits.output_bytes)
        if self.stream is not None:
            out.send = lambda text: self.stream(request.get("seq"), text)
        return _captured(out)

    def _answer(self, request: dict, out, **fields) -> dict:
        sent = out is None or self.stream is not None
        return {"seq": request.get("seq"), **fields,
                "stdout": "" if sent else out.kept(),
                "stdout_truncated": bool(out is not None and out.truncated)}


class _Streamed(CappedOutput):
    """A capped buffer that also hands each piece it keeps to `send` (when set)."""
    send = None

    def write(self, s) -> int:
        count = len(self._parts)
        written = super().write(s)
        if self.send is not None and len(self._parts) > count:
            self.send(self._parts[-1])
        return written


@contextmanager
def _captured(out: CappedOutput):
    with streams(out):
        yield out


def missing_functions(lesson: Lesson, module) -> str | None:
    """What is wrong with the loaded module's functions, in learner terms, or None."""
    problems = []
    for f in lesson.functions:
        fn = vars(module).get(f.name)
        if fn is None:
            problems.append(_("solution.py does not define {signature}. Keep the function "
                              "from the starter, with this name.", signature=f.signature))
        elif not callable(fn):
            problems.append(_("{name} in solution.py is a {type}, not a function.",
                              name=f.name, type=type(fn).__name__))
        else:
            try:
                inspect.signature(fn).bind(*f.params)
            except TypeError:
                problems.append(_("{name} must accept {count} argument(s), as in {signature}; "
                                  "yours cannot be called that way.", name=f.name,
                                  count=len(f.params), signature=f.signature))
            except ValueError:
                pass  # builtins without a signature: let the checks find out
    return "\n".join(problems) or None


# The bytes of arrays an answer may hold: base64 makes 4 of every 3, and the page's channel
# holds protocol.json's `bytes_capacity`.
_MAX_ANSWER_BYTES = wire.PROTOCOL["sab"]["bytes_capacity"] * 3 // 4 - 2**20
# A call's input returned exactly as the request encoded it (channel.Learner.call).
_UNCHANGED = wire.PROTOCOL["unchanged_input"]


def _copied(value):
    """A copy of decoded plain data (arrays copied, lists, tuples and dicts rebuilt; numbers,
    text, numpy scalars and descriptions cannot change in place), to tell afterwards which
    inputs a call left as they came without encoding them (`wire.same`)."""
    if type(value) is _ndarray:
        return value.copy()
    if type(value) in (list, tuple):
        items = [_copied(v) for v in value]
        return items if type(value) is list else tuple(items)
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    return value


def _bytes_in(value) -> int:
    """The bytes of the arrays in plain data."""
    if isinstance(value, _ndarray):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(_bytes_in(v) for v in value)
    if isinstance(value, dict):
        return sum(_bytes_in(v) for v in value.values())
    return 0


# --- learner values as plain data (run inside the learner call) ----------------------------
def unusable(value) -> Unusable:
    """The description the checks get for a value that is not numbers, lists or tuples."""
    if isinstance(value, str):
        return Unusable(_("text {value}", value=repr(value))[:80])
    if isinstance(value, (_ndarray, _np_generic)):
        what = _("text") if value.dtype.kind in "US" else _("{dtype} values",
                                                            dtype=value.dtype)
        return Unusable(_("an array of {what} of shape {shape}", what=what,
                          shape=tuple(value.shape)))
    return Unusable(_("an object of type {type}", type=type(value).__name__))


def plain(value, dtypes: set):
    """Plain data (float64 or complex copies, lists, tuples, Python numbers): no learner
    method (__array__, __float__, __eq__, ...) runs once the checks start comparing.
    Whatever numpy reads as numbers becomes them here: an object array of floats
    (np.frompyfunc's), an array.array, a Fraction, a Decimal, a learner's number class."""
    if isinstance(value, (_ndarray, _np_generic)):
        dtypes.add(str(value.dtype))
        kind = value.dtype.kind
        if kind in "biuf":
            return _np_array(value, dtype=_float64)
        if kind == "c":
            return _np_array(value, dtype=complex)
        if kind == "O":
            numbers = _object_numbers(value)
            return unusable(value) if numbers is None else numbers
        return unusable(value)
    if isinstance(value, tuple):
        return tuple(plain(v, dtypes) for v in value)
    if isinstance(value, list):
        return [plain(v, dtypes) for v in value]
    if type(value) is dict:  # keys as plain as the values: a learner's key class is code too
        return {k if type(k) in (str, int) else unusable(k): plain(v, dtypes)
                for k, v in value.items()}
    if isinstance(value, bool) or value is None:
        return value if value is None else bool(value)
    if isinstance(value, int):
        if not -wire.MAX_INT < value < wire.MAX_INT:
            return Unusable(_("a whole number too large for any float"))
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return complex(value)
    if isinstance(value, (str, bytes, bytearray)):  # numpy reads "1.5" as a number: no
        return unusable(value)
    # Anything else numpy reads (an array-like of the learner's making, array.array, a
    # Fraction, a Decimal): converted now, on this side.
    try:
        array = _np_array(value)
    except (TypeError, ValueError, ArithmeticError):
        return unusable(value)
    if array.dtype.kind == "O" and _object_numbers(array) is None:
        return unusable(value)  # it says what the learner's object is, not "an array"
    converted = plain(array, dtypes)
    if array.ndim == 0 and isinstance(converted, _ndarray):  # one number: a Python number
        return converted[()].item()
    return converted


def _object_numbers(array):
    """An object array's numbers as float64 (or complex) copies, or None if some entry is
    not a number numpy can read (text is not one here)."""
    if any(isinstance(v, (str, bytes, bytearray)) for v in array.flat):
        return None
    for dtype in (_float64, complex):
        try:
            return _np_array(array, dtype=dtype)
        except (TypeError, ValueError, ArithmeticError):
            continue
    return None


def as_left(value):
    """The inputs as the learner left them, as plain data of the same types (dtype kept), so
    that `expect_unchanged` compares without running learner code."""
    if isinstance(value, _ndarray):
        return _np_array(value, copy=True, subok=False)
    if isinstance(value, (list, tuple)):
        items = [as_left(v) for v in value]
        return items if type(value) is list else tuple(items)
    if type(value) is dict:  # a model's parameters: keys as plain as in `plain`
        return {k if type(k) in (str, int) else unusable(k): as_left(v) for k, v in value.items()}
    if type(value) in (int, float, bool, complex, str, type(None)):
        return value
    return unusable(value)


def params(fn, count: int) -> tuple:
    """The names of `fn`'s first `count` parameters, for messages (`arg2` where unknown)."""
    try:
        names = [p.name for p in _signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i + 1}" for i in range(len(names), count)]
    return tuple(str(n) for n in names[:count])


# --- entry points -------------------------------------------------------------------------
_lessons: dict = {}


def loaded_lesson(lesson_dir: str) -> Lesson:
    """The lesson at `lesson_dir`, read once per interpreter: every request names its folder.
    The browser's entry points (`lessonkit.browser`) use it too, so a page without isolation,
    whose grader and learner side share one interpreter, reads it once."""
    if lesson_dir not in _lessons:
        _lessons[lesson_dir] = load_lesson(lesson_dir)
    return _lessons[lesson_dir]


_host = Host()


def handle(message: dict) -> dict:
    """One request of the learner channel, answered by this process's learner side."""
    return _host.handle(message)


def handle_json(request_json: str) -> str:
    """`handle` with JSON text in and out: the browser's learner worker's only entry point."""
    return json.dumps(handle(json.loads(request_json)), allow_nan=False)


def prepare(lesson_dir: str) -> str:
    """Warm up this side without running learner code: numpy imported, the lesson and its
    message catalogs read. Returns the lesson's id as JSON."""
    lesson = loaded_lesson(lesson_dir)
    for lang in lesson.languages:
        i18n.catalog(lang, lesson.path)
    return json.dumps({"id": lesson.id})


def serve(fd_in: int, fd_out: int, memory_mb: int | None = None,
          confine: tuple[str, str] | None = None, readable: list[str] = ()) -> None:
    """Answer requests from `fd_in` on `fd_out`, one JSON line each, until `fd_in` closes.
    `confine`: (scratch folder, author's lesson folder), with `readable` folders (the lesson
    copy, pinned packages): see lessonkit.confine."""
    _limit_memory(memory_mb)
    confined = "none: not asked to"
    if confine:
        from .confine import confine as apply
        work, hidden = map(Path, confine)
        confined = apply(work, [Path(p) for p in readable], hidden.resolve())
    sys.stdin = io.StringIO("")
    def send(message: dict) -> None:
        data = (json.dumps(message, allow_nan=False) + "\n").encode()
        while data:
            data = data[os.write(fd_out, data):]

    _host.stream = lambda seq, text: send({"seq": seq, "kind": "output", "text": text})
    send({"kind": "ready", "confined": confined})  # booted: requests are answered at once
    reader = os.fdopen(fd_in, "rb", buffering=0)
    pending = b""
    while True:
        chunk = reader.read(1 << 20)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            message = json.loads(line)
            try:
                response = handle(message)
            except Exception as exc:  # noqa: BLE001 - a bug on this side, not the learner's
                response = {"seq": message.get("seq"), "kind": "raised", "line": None,
                            "stdout": "", "stdout_truncated": False,
                            "message": _("The grader's learner side failed ({error}); this "
                                         "is a bug in the grader, not in your code.",
                                         error=type(exc).__name__)}
            send(response)
    # Leave at once: no atexit handlers or finalizers from learner code run after this.
    os._exit(0)


def _limit_memory(memory_mb) -> None:
    """Cap the address space at what Python uses now plus `memory_mb`, the hard limit too (so
    learner code cannot raise it again): allocating more ends in MemoryError, or at worst the
    process dies and the grader says why."""
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
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no RLIMIT_AS (macOS): the machine's own limits apply


def main(argv=None) -> None:
    import argparse
    parser = argparse.ArgumentParser(prog="python -m lessonkit.learner_host")
    parser.add_argument("--serve", nargs=2, type=int, metavar=("FD_IN", "FD_OUT"),
                        required=True)
    parser.add_argument("--memory-mb", type=int, default=None)
    parser.add_argument("--confine", nargs=2, metavar=("WORK", "HIDDEN"))
    parser.add_argument("--readable", action="append", default=[])
    args = parser.parse_args(argv)
    serve(*args.serve, memory_mb=args.memory_mb, confine=args.confine, readable=args.readable)


if __name__ == "__main__":
    main()
