"""What hidden checks use: call learner code safely, compare, and explain.

    from lessonkit.checking import call, expect_close, expect_unchanged, fail

    c = call(solution, "gelu", x)       # deep-copied inputs; learner errors -> "error" status
    expect_close(c, reference(x), rtol=1e-6, atol=1e-8, mistakes=[("Hint ...", lambda: ...)])

Rules that keep grading honest:
- learner functions receive deep copies; `Call.after` holds those copies after the call;
- the returned value is snapshotted to plain data (float64 copies) right after the call;
- compute expected values *after* `call` returns, so they never sit in a frame that learner
  code could inspect while it runs;
- every numpy function used here was captured when lessonkit was imported, before any learner
  code ran, and patched modules are restored after each learner call.
"""
from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field

import numpy

from .learner import LearnerError, run_learner
from .timelimit import CheckTimeout

_deepcopy = copy.deepcopy
_ndarray_copy = numpy.ndarray.copy
_np_errstate = numpy.errstate
_signature = inspect.signature
_np_array = numpy.array
_np_abs = numpy.abs
_np_isnan = numpy.isnan
_np_isfinite = numpy.isfinite
_np_argmax = numpy.argmax
_np_unravel = numpy.unravel_index
_np_array_equal = numpy.array_equal
_np_array2string = numpy.array2string
_np_where = numpy.where
_ndarray = numpy.ndarray
_np_generic = numpy.generic
_float64 = numpy.float64

SMALL = 24  # arrays with at most this many entries are shown in full


class CheckFailed(AssertionError):
    """The learner's result is wrong; the message is written for the learner."""


def fail(message: str):
    raise CheckFailed(message)


@dataclass
class Call:
    """One call of a learner function, as the checks see it."""
    name: str
    args: tuple            # the check's own inputs (learner code never saw these objects)
    params: tuple          # parameter names, for messages
    got: object            # the returned value, snapshotted to plain data
    after: tuple           # the copies the learner received, as they were after the call
    dtypes: set = field(default_factory=set)  # numpy dtypes seen in the returned value

    def text(self) -> str:
        """`gelu(x)`"""
        return f"{self.name}({', '.join(self.params)})"

    def inputs(self) -> str:
        """One line per argument: `  x = [1.0, 2.0]`"""
        return "\n".join(f"  {p} = {describe(a)}" for p, a in zip(self.params, self.args))


def call(solution, name: str, *args) -> Call:
    """Call `solution.<name>(*args)` with copies of `args`, under the grading limits."""
    fn = vars(solution).get(name)
    handed = _copy(args)
    private = _copy(args)
    dtypes: set = set()

    def learner_side():
        # Everything that touches learner objects happens here, inside one guarded call: the
        # result and the inputs as the learner left them become plain data now, because a
        # returned object's own methods (__array__, __iter__, __eq__) are learner code.
        value = fn(*handed)
        return _plain(value, dtypes), _as_left(handed), _params(fn, len(args))

    try:
        got, after, params = run_learner(learner_side, name)
    except CheckTimeout:
        raise CheckTimeout(f"{name}") from None
    if not _same(args, private):
        raise LearnerError(
            f"{name} changed the check's own copy of its inputs, which it was never given. A "
            "function may use only its arguments; reaching around them (through frames or the "
            "garbage collector) does not count as a solution.")
    return Call(name, args, params, got, after, dtypes)


def _copy(value):
    """A copy of the check's inputs (numbers, arrays, lists, tuples, dicts), made without
    the copy module, whose dispatch tables are ordinary (patchable) dicts."""
    if isinstance(value, _ndarray):
        return _ndarray_copy(value)
    if type(value) is list:
        return [_copy(v) for v in value]
    if type(value) is tuple:
        return tuple(_copy(v) for v in value)
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) in (int, float, bool, complex, str, type(None)):
        return value
    return _deepcopy(value)


def _as_left(value):
    """The inputs as the learner left them, as plain data of the same types (dtype kept), so
    that `expect_unchanged` compares without running learner code."""
    if isinstance(value, _ndarray):
        return _np_array(value, copy=True, subok=False)
    if isinstance(value, (list, tuple)):
        items = [_as_left(v) for v in value]
        return items if type(value) is list else tuple(items)
    if type(value) in (int, float, bool, complex, str, type(None)):
        return value
    return Unusable(value)


def _params(fn, count: int) -> tuple:
    try:
        names = [p.name for p in _signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i + 1}" for i in range(len(names), count)]
    return tuple(names[:count])


class Unusable:
    """Stands in for a returned object that is not numbers, lists or tuples (text, a
    generator, an object of the learner's class): checks see its description, never it."""

    def __init__(self, value):
        if isinstance(value, str):
            self.text = f"text {value!r}"[:80]
        elif isinstance(value, (_ndarray, _np_generic)):
            what = "text" if value.dtype.kind in "US" else f"{value.dtype} values"
            self.text = f"an array of {what} of shape {tuple(value.shape)}"
        else:
            self.text = f"an object of type {type(value).__name__}"

    def __repr__(self):
        return self.text


def _plain(value, dtypes: set):
    """Plain data (float64 or complex copies, lists, tuples, Python numbers) made while still
    inside learner code's boundary: no learner method (__array__, __float__, __eq__, ...)
    runs once the checks start comparing."""
    if isinstance(value, (_ndarray, _np_generic)):
        dtypes.add(str(value.dtype))
        kind = value.dtype.kind
        if kind in "biuf":
            return _np_array(value, dtype=_float64)
        if kind == "c":
            return _np_array(value, dtype=complex)
        return Unusable(value)
    if isinstance(value, tuple):
        return tuple(_plain(v, dtypes) for v in value)
    if isinstance(value, list):
        return [_plain(v, dtypes) for v in value]
    if isinstance(value, bool) or value is None:
        return value if value is None else bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return complex(value)
    if hasattr(value, "__array__"):  # an array-like of the learner's making: convert it now
        try:
            return _plain(_np_array(value), dtypes)
        except (TypeError, ValueError):
            pass
    return Unusable(value)


def describe(value) -> str:
    """Small values in full, large ones by shape."""
    return _full(value) if _size(value) <= SMALL else _summary(value)


def _full(value) -> str:
    if isinstance(value, (_ndarray, _np_generic)):
        return _np_array2string(_np_array(value), precision=6, separator=", ",
                                suppress_small=True, max_line_width=10**6).replace("\n", "")
    if isinstance(value, tuple):
        inner = ", ".join(_full(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_full(v) for v in value) + "]"
    if isinstance(value, float):
        text = f"{value:.6g}"
        return text if any(ch in text for ch in ".ein") else text + ".0"
    if value is None or isinstance(value, (bool, int, complex, str, Unusable)):
        return repr(value)
    return f"a {type(value).__name__} object"


def _summary(value) -> str:
    if isinstance(value, (_ndarray, _np_generic)):
        return f"array of shape {tuple(value.shape)}"
    if isinstance(value, (list, tuple)):
        shown = ", ".join(_summary(v) for v in value[:4])
        more = f", ... {len(value)} items in all" if len(value) > 4 else ""
        return f"({shown}{more})" if isinstance(value, tuple) else f"[{shown}{more}]"
    return _full(value)


def _size(value) -> int:
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value)
    if isinstance(value, (_ndarray, _np_generic)):
        return int(value.size)
    return 1


def as_array(c: Call, what: str | None = None):
    """The returned value as a float64 array, or a failure that says what came back."""
    what = what or c.text()
    got = c.got
    if got is None:
        fail(f"{what} returned None. Did you forget a `return` statement?\n{c.inputs()}")
    try:
        a = None if _contains_unusable(got) else _np_array(got)
    except (TypeError, ValueError):
        a = None
    if a is not None and a.dtype.kind == "c":
        fail(f"{what} returned complex numbers ({describe(got)}); the result should be real. "
             f"Look for a square root or power of a negative number.\n{c.inputs()}")
    if a is None or a.dtype.kind not in "iuf":
        fail(f"{what} returned {describe(got)}, which numpy cannot turn into one array of "
             f"numbers.\n{c.inputs()}")
    return _np_array(a, dtype=_float64)


def _contains_unusable(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_contains_unusable(v) for v in value)
    return isinstance(value, Unusable)


def to_array(value, what: str):
    """A part of a returned value (say, one item of a returned list), already plain data, as
    a float64 array, or a failure that says what it is."""
    return as_array(Call(what, (), (), value, ()), what)


def expect_close(c: Call, expected, *, rtol: float, atol: float, mistakes=(),
                 what: str | None = None):
    """Fail unless the returned value has the expected shape and |got - expected| <=
    atol + rtol*|expected| everywhere. `mistakes`: (hint, make_value) pairs for common
    wrong answers; a hint is shown when the learner's result matches its value. Returns
    the learner's value as a float64 array."""
    what = what or c.text()
    got = as_array(c, what)
    exp = _np_array(expected, dtype=_float64)
    if got.shape != exp.shape:
        lines = [f"{what} returned an array of shape {got.shape}; expected shape {exp.shape}.",
                 c.inputs(), f"  expected: {describe(exp)}", f"  got:      {describe(got)}"]
        lines += _hints(c, got, exp, rtol, atol, mistakes)
        fail("\n".join(lines))
    diff = _np_abs(got - exp)
    allowed = atol + rtol * _np_abs(exp)
    bad = ~(diff <= allowed)  # NaN counts as bad
    if not bad.any():
        return got
    excess = _np_where(_np_isnan(diff), numpy.inf, diff - allowed)
    worst = _np_unravel(int(_np_argmax(excess)), exp.shape) if exp.shape else ()
    lines = [f"{what} returned wrong values ({int(bad.sum())} of {bad.size} entries are off).",
             c.inputs(), f"  expected: {describe(exp)}", f"  got:      {describe(got)}"]
    where = f" at index {[int(i) for i in worst]}" if worst else ""
    lines.append(f"  largest difference{where}: expected {exp[worst]:.6g}, got {got[worst]:.6g}"
                 f" (off by {diff[worst]:.3g}; allowed {allowed[worst]:.3g})")
    lines += _hints(c, got, exp, rtol, atol, mistakes)
    fail("\n".join(lines))


def _close(a, b, rtol, atol) -> bool:
    return a.shape == b.shape and bool((_np_abs(a - b) <= atol + rtol * _np_abs(b)).all())


def _hints(c: Call, got, exp, rtol, atol, mistakes) -> list[str]:
    for hint, make in mistakes:
        try:
            with _np_errstate(all="ignore"):  # a wrong formula may overflow: not their output
                alt = _np_array(make(), dtype=_float64)
        except (TypeError, ValueError):
            continue
        # A looser match than the check itself: the learner's version of the mistake may be
        # computed a little differently from ours.
        if _close(got, alt, max(rtol, 1e-6) * 10, max(atol, 1e-9) * 10):
            return [f"Hint: {hint}"]
    if "float16" in c.dtypes:
        return ["Hint: your result is float16, which keeps only about 3 significant digits; "
                "compute in float64 (numpy's default) or at least float32."]
    if not _np_isfinite(got).all() and _np_isfinite(exp).all():
        return ["Hint: your result contains NaN or infinity; look for an overflow (for "
                "example exp or a power of a large number) or a division by zero."]
    if got.ndim == 2 and got.shape == exp.shape[::-1] and got.shape != exp.shape:
        return ["Hint: your result has rows and columns swapped (it is transposed)."]
    if got.ndim == exp.ndim + 1 and got.shape[1:] == exp.shape and got.shape[0] != 1:
        return [f"Hint: you returned {got.shape[0]} results of the right shape stacked "
                f"together; one combined result was expected."]
    return []


def expect_unchanged(c: Call):
    """Fail if learner code changed any argument it was given."""
    for param, before, after in zip(c.params, c.args, c.after):
        if not _same(before, after):
            fail(f"{c.text()} changed its argument `{param}` in place.\n"
                 f"  before the call: {describe(before)}\n"
                 f"  after the call:  {describe(after)}\n"
                 "A function should leave its inputs as they were: the caller may still need "
                 "them. Build new arrays instead (for example `y = 0.5 * x`, not `x *= 0.5`, "
                 "and slice copies rather than writing into slices).")


def _same(a, b) -> bool:
    if isinstance(a, _ndarray):
        return (isinstance(b, _ndarray) and a.dtype == b.dtype
                and _np_array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    return type(a) is type(b) and a == b
