"""What hidden checks use: call learner code safely, compare, and explain.

    from lessonkit.checking import call, expect_close, expect_unchanged, fail, missed_sum

    c = call(solution, "gelu", x)       # deep-copied inputs; learner errors -> "error" status
    expect_close(c, reference(x), rtol=1e-6, atol=1e-8, mistakes=[("Hint ...", lambda: ...)])
    expect_close(c, Y, rtol=1e-6, atol=1e-8, mistakes=missed_sum(partials, total="Y"))

Rules that keep grading honest:
- `solution` is a `lessonkit.channel.Learner`: the call goes to the learner's side as plain
  data (`lessonkit.wire`), which may be another process or worker, and comes back as plain
  data: the returned value as float64 copies, lists, tuples and dicts, and `Call.after` the
  inputs as the learner left them, converted there (learner_host.plain / as_left);
- compute expected values *after* `call` returns, so they never sit in a frame that learner
  code could inspect while it runs (where it runs in this interpreter);
- every numpy function used here was captured when lessonkit was imported, before any learner
  code ran (where learner code shares this interpreter it can still reach them: that mode
  protects no verdict against code written to cheat, docs/threat-model.md).
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

import numpy

from itertools import combinations

from .i18n import _, _n, number
from .learner import LearnerError, TimedOutBefore  # noqa: F401 (checks catch both)
from .timelimit import CheckTimeout
from .wire import Unusable

_deepcopy = copy.deepcopy
_re_search, _re_escape = re.search, re.escape
_ndarray_copy = numpy.ndarray.copy
_np_errstate = numpy.errstate
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


# Told the name of each learner function a check calls, just before it runs (the runner sets
# it for the grading run): a host that ends Python at a time limit learns which function was
# running, so the fresh Python it grades again in can skip that function as this one would.
announce_call = [lambda name: None]


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
    """Call learner function `name` on copies of `args` (the learner's side receives them as
    plain data), under the grading limits; `solution` is the `solution` fixture."""
    announce_call[0](name)
    private = _copy(args)
    try:
        got, after, params, dtypes = solution.call(name, args)
    except CheckTimeout:
        raise CheckTimeout(f"{name}") from None
    # Where learner code runs in this interpreter it could reach the check's own inputs
    # (through frames or the garbage collector): compared with a private copy.
    if not _same(args, private):
        raise LearnerError(_(
            "{name} changed the check's own copy of its inputs, which it was never given. A "
            "function may use only its arguments; reaching around them (through frames or the "
            "garbage collector) does not count as a solution.", name=name))
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
    if type(value) is dict:
        return "{" + ", ".join(f"{k!r}: {_full(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        text = f"{value:.6g}"
        return text if any(ch in text for ch in ".ein") else text + ".0"
    if value is None or isinstance(value, (bool, int, complex, str, Unusable)):
        return repr(value)
    return _("a {type} object", type=type(value).__name__)


def _summary(value) -> str:
    if isinstance(value, (_ndarray, _np_generic)):
        return _("array of shape {shape}", shape=tuple(value.shape))
    if isinstance(value, (list, tuple)):
        shown = ", ".join(_summary(v) for v in value[:4])
        more = ", ... " + _n("{count} item in all", "{count} items in all", len(value),
                             count=len(value)) if len(value) > 4 else ""
        return f"({shown}{more})" if isinstance(value, tuple) else f"[{shown}{more}]"
    if type(value) is dict:
        return "{" + ", ".join(f"{k!r}: {_summary(v)}" for k, v in value.items()) + "}"
    return _full(value)


def _size(value) -> int:
    if type(value) is dict:
        return sum(_size(v) for v in value.values())
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
        fail(_("{what} returned None. Did you forget a `return` statement?", what=what)
             + "\n" + c.inputs())
    try:
        a = None if _contains_unusable(got) else _np_array(got)
    except (TypeError, ValueError):
        a = None
    if a is not None and a.dtype.kind == "c":
        fail(_("{what} returned complex numbers ({got}); the result should be real. Look for a "
               "square root or power of a negative number.", what=what, got=describe(got))
             + "\n" + c.inputs())
    if a is None or a.dtype.kind not in "iuf":
        fail(_("{what} returned {got}, which numpy cannot turn into one array of numbers.",
               what=what, got=describe(got)) + "\n" + c.inputs())
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
                 what: str | None = None, part=None, labels=None):
    """Fail unless the returned value matches `expected` within atol + rtol * scale, where
    scale is the largest |entry| of the whole expected result (so a part that is ~1e-16 in a
    result of size ~1 does not fail a correct float32 solution).

    `expected` is an array (or anything numpy turns into one), or a structure: a tuple, a dict,
    or a list holding arrays, tuples or dicts, nested as the learner's function returns it.
    Each part is compared in turn and a failure names it: `[1][0]`, `["dA"]`. `labels`, with
    the nesting of `expected`, gives parts human names (`labels=[("dA_0", "dB_0"),
    ("dA_1", "dB_1")]` names `[1][0]` "dA_1"); a string names everything below it.
    `part`: compare only that part of the return value (an index or key, or a tuple of them:
    `part=(1, 0)`); `expected` and `labels` are then that part's.
    `mistakes`: (hint, make_value) pairs for common wrong answers, make_value giving a value
    of `expected`'s form; a hint is shown when the learner's result matches it.
    Returns the learner's value (that part, with `part=`) with arrays as float64 arrays."""
    what = what or c.text()
    path = () if part is None else part if isinstance(part, tuple) else (part,)
    for key in reversed(path):  # `labels` are the part's: nest them under its path
        labels = {key: labels}
    got = _select(c, c.got, path, what)
    exp = _tree(expected)
    scale = _largest(exp)
    problem = _compare(got, exp, path, rtol, atol + rtol * scale, labels, what, c)
    if problem is None:
        return _as_tree(got, exp)
    lines, got_part, exp_part = problem
    lines += _hints(c, got, exp, got_part, exp_part, rtol, atol, mistakes)
    fail("\n".join(lines))


def _is_structure(value) -> bool:
    """A tuple, dict, or list that holds arrays or structures (a list of numbers is an array)."""
    if isinstance(value, (tuple, dict)):
        return not (isinstance(value, tuple) and all(_is_number_tree(v) for v in value))
    return isinstance(value, list) and not all(_is_number_tree(v) for v in value)


def _is_number_tree(value) -> bool:
    if isinstance(value, list):
        return all(_is_number_tree(v) for v in value)
    return isinstance(value, (int, float, _np_generic)) and not isinstance(value, bool)


def _tree(expected):
    """`expected` with every array part as a float64 array."""
    if isinstance(expected, dict):
        return {k: _tree(v) for k, v in expected.items()}
    if _is_structure(expected):
        items = [_tree(v) for v in expected]
        return tuple(items) if isinstance(expected, tuple) else items
    return _np_array(expected, dtype=_float64)


def _leaves(tree):
    if isinstance(tree, dict):
        for v in tree.values():
            yield from _leaves(v)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            yield from _leaves(v)
    else:
        yield tree


def _largest(tree) -> float:
    largest = 0.0
    for leaf in _leaves(tree):
        finite = _np_abs(leaf[_np_isfinite(leaf)])
        if finite.size:
            largest = max(largest, float(finite.max()))
    return largest


def _part_name(path, labels) -> str:
    """`[1][0] (dA_1)`: the indexes and keys, then the label `labels` gives that path."""
    text = "".join(f"[{k!r}]" if isinstance(k, str) else f"[{k}]" for k in path)
    label = None
    for k in path:
        if isinstance(labels, str) or labels is None:
            break
        try:
            labels = labels[k]
        except (KeyError, IndexError, TypeError):
            labels = None
            break
    if isinstance(labels, str):
        label = labels
    return f"{text} ({label})" if label else text


def _items(got):
    """The parts of a returned list, tuple or array (an array's rows), or None."""
    if isinstance(got, (list, tuple)):
        return list(got)
    if isinstance(got, _ndarray) and got.ndim > 0:
        return list(got)
    return None


def _select(c: Call, got, path, what):
    for depth, key in enumerate(path):
        here = _part_name(path[:depth], None)
        if isinstance(got, dict) and key in got:
            got = got[key]
            continue
        items = None if isinstance(key, str) else _items(got)
        if items is None or not -len(items) <= key < len(items):
            fail(_("{what} returned {got}{where}; expected it to have a part {key}.", what=what,
                   got=describe(got), where=_(" as {part}", part=here) if here else "",
                   key=_part_name((key,), None)) + "\n" + c.inputs())
        got = items[key]
    return got


def _compare(got, exp, path, rtol, allowed, labels, what, c):
    """None when `got` matches `exp`; else (message lines, the failing part of got, of exp)."""
    name = _part_name(path, labels)
    if isinstance(exp, dict):
        if not isinstance(got, dict) or set(got) != set(exp):
            keys = ", ".join(repr(k) for k in exp)
            return ([_("{what} returned {got}{where}; expected a dict with the keys {keys}.",
                       what=what, got=describe(got), keys=keys,
                       where=_(" as {part}", part=name) if name else ""), c.inputs()], None, None)
        for k, v in exp.items():
            found = _compare(got[k], v, (*path, k), rtol, allowed, labels, what, c)
            if found:
                return found
        return None
    if isinstance(exp, (list, tuple)):
        items = _items(got)
        if items is None or len(items) != len(exp):
            count = len(exp)
            return ([_n("{what} returned {got}{where}; expected {count} item.",
                        "{what} returned {got}{where}; expected {count} items.", count, what=what,
                        got=describe(got), count=count,
                       where=_(" as {part}", part=name) if name else ""), c.inputs()], None, None)
        for i, (g, e) in enumerate(zip(items, exp)):
            found = _compare(g, e, (*path, i), rtol, allowed, labels, what, c)
            if found:
                return found
        return None
    subject = _("{what}, part {part},", what=what, part=name) if name else what
    if got is None:
        return ([_("{what} returned None. Did you forget a `return` statement?", what=subject),
                 c.inputs()], None, None)
    g = to_array(got, subject) if path else as_array(c, what)
    if g.shape != exp.shape:
        return ([_("{what} returned an array of shape {got}; expected shape {want}.",
                   what=subject, got=g.shape, want=exp.shape),
                 c.inputs(), "  " + _("expected: {value}", value=describe(exp)),
                 "  " + _("got:      {value}", value=describe(g))], g, exp)
    diff = _np_abs(g - exp)
    bad = ~(diff <= allowed)  # NaN counts as bad
    if not bad.any():
        return None
    excess = _np_where(_np_isnan(diff), numpy.inf, diff - allowed)
    worst = _np_unravel(int(_np_argmax(excess)), exp.shape) if exp.shape else ()
    count = int(bad.sum())
    head = (_("{what} returned a wrong value.", what=subject) if bad.size == 1 else
            _n("{what} returned wrong values ({bad} of {size} entries is off).",
               "{what} returned wrong values ({bad} of {size} entries are off).", count,
               what=subject, bad=count, size=bad.size))
    lines = [head, c.inputs(), "  " + _("expected: {value}", value=describe(exp)),
             "  " + _("got:      {value}", value=describe(g))]
    fields = dict(want=number(exp[worst], ".6g"), got=number(g[worst], ".6g"),
                  off=number(diff[worst], ".3g"), allowed=number(allowed, ".3g"))
    lines.append("  " + (_("largest difference at index {index}: expected {want}, got {got} (off "
                           "by {off}; allowed {allowed})", index=[int(i) for i in worst],
                           **fields) if worst else
                         _("largest difference: expected {want}, got {got} (off by {off}; "
                           "allowed {allowed})", **fields)))
    return lines, g, exp


def _as_tree(got, exp):
    """The learner's matching value with its array parts as float64 arrays."""
    if isinstance(exp, dict):
        return {k: _as_tree(got[k], v) for k, v in exp.items()}
    if isinstance(exp, (list, tuple)):
        return [_as_tree(g, e) for g, e in zip(_items(got), exp)]
    return _np_array(got, dtype=_float64)


def _close(got, exp, rtol, atol) -> bool:
    """`got` (learner data) matches the structure or array `exp`, within atol + rtol*scale."""
    allowed = atol + rtol * _largest(exp)

    def same(g, e):
        if isinstance(e, dict):
            return isinstance(g, dict) and set(g) == set(e) and all(same(g[k], e[k]) for k in e)
        if isinstance(e, (list, tuple)):
            items = _items(g)
            return items is not None and len(items) == len(e) and all(map(same, items, e))
        try:
            a = None if _contains_unusable(g) else _np_array(g, dtype=_float64)
        except (TypeError, ValueError):
            return False
        return a is not None and a.shape == e.shape and bool((_np_abs(a - e) <= allowed).all())
    return same(got, exp)


def _hints(c: Call, got, exp, got_part, exp_part, rtol, atol, mistakes) -> list[str]:
    """A hint for the learner's whole result (`got` against `exp`), or for the failing part."""
    for hint, make in mistakes:
        try:
            with _np_errstate(all="ignore"):  # a wrong formula may overflow: not their output
                alt = _tree(make())
        except (TypeError, ValueError):
            continue
        # A looser match than the check itself: the learner's version of the mistake may be
        # computed a little differently from ours.
        if _close(got, alt, max(rtol, 1e-6) * 10, max(atol, 1e-9) * 10):
            return [_("Hint: {hint}", hint=hint)]
    if got_part is None:
        return []
    got, exp = got_part, exp_part
    if "float16" in c.dtypes:
        return [_("Hint: your result is float16, which keeps only about 3 significant digits; "
                  "compute in float64 (numpy's default) or at least float32.")]
    if not _np_isfinite(got).all() and _np_isfinite(exp).all():
        return [_("Hint: your result contains NaN or infinity; look for an overflow (for "
                  "example exp or a power of a large number) or a division by zero.")]
    if got.ndim == 2 and got.shape == exp.shape[::-1] and got.shape != exp.shape:
        return [_("Hint: your result has rows and columns swapped (it is transposed).")]
    if got.ndim == exp.ndim + 1 and got.shape[1:] == exp.shape and got.shape[0] != 1:
        return [_n("Hint: you returned {count} result of the right shape stacked together; one "
                   "combined result was expected.",
                   "Hint: you returned {count} results of the right shape stacked together; one "
                   "combined result was expected.", got.shape[0], count=got.shape[0])]
    if got.ndim == 0 and exp.ndim > 0:
        return [_("Hint: you returned one number where an array of shape {shape} was expected; "
                  "a sum or mean without `axis=` adds up every entry.", shape=exp.shape)]
    return []


def missed_sum(shares, *, total: str = "Y", share: str | None = None,
               op: str = "all-reduce") -> list:
    """Mistakes (for `expect_close`'s `mistakes=`) of a result that is a sum over the GPUs,
    given each GPU's share of it (`shares[i]`, in the form of the expected result): GPU i's
    share alone (the communication forgotten, or a loop that kept only its last value), some
    of the shares added up but not all, the shares side by side, or their mean. Each hint says
    in one sentence what the learner's result is. `total` and `share` name the result and the
    shares in the lesson's notation (`Y` and `Y_i`; `dX` and `dX_i`); `op` is the collective
    that adds them up."""
    shares = [_tree(s) for s in shares]
    n, share = len(shares), share or total
    if n < 2:
        return []
    terms = " + ".join(f"{share}_{i}" for i in range(n)) if n <= 3 else \
        f"{share}_0 + {share}_1 + … + {share}_{n - 1}"
    fields = dict(total=total, share=share, op=op, terms=terms, n=n)

    def added(gpus):
        return _tree_sum([shares[i] for i in gpus])

    found = [(_("your result is GPU {i}'s share alone, {share}_{i}: the {op} that adds up "
                "every GPU's share, {total} = {terms}, is missing.", i=i, **fields),
              lambda i=i: shares[i]) for i in range(n)]
    for gpus in _subsets(n):
        found.append((_("your result adds up the shares of GPUs {gpus} only: the {op} adds "
                        "every GPU's share, {total} = {terms}.",
                        gpus=", ".join(str(i) for i in gpus), **fields),
                      lambda gpus=gpus: added(gpus)))
    found.append((_("your result is the mean of the GPUs' shares: the {op} adds them up, "
                    "{total} = {terms}, so dividing by n = {n} leaves it n times too small.",
                    **fields), lambda: _tree_scale(added(range(n)), 1.0 / n)))
    if not isinstance(shares[0], (dict, list, tuple)):
        found.append((_("you returned the {n} GPUs' shares side by side, never added up: the "
                        "{op} sums them into one {total} = {terms}.", **fields),
                      lambda: _np_array(shares)))
    return found


def _subsets(n: int):
    """The sets of two or more GPUs, not all n, that a wrong loop may add up: every such set
    for up to 4 GPUs; beyond that all but one, and the first or last k (a loop bound off)."""
    if n <= 4:
        return [g for k in range(2, n) for g in combinations(range(n), k)]
    found = {tuple(i for i in range(n) if i != j) for j in range(n)}
    found |= {tuple(range(k)) for k in range(2, n)} | {tuple(range(n - k, n)) for k in range(2, n)}
    return sorted(found, key=lambda g: (-len(g), g))


def _tree_sum(trees):
    first = trees[0]
    if isinstance(first, dict):
        return {k: _tree_sum([t[k] for t in trees]) for k in first}
    if isinstance(first, (list, tuple)):
        items = [_tree_sum([t[i] for t in trees]) for i in range(len(first))]
        return tuple(items) if isinstance(first, tuple) else items
    return sum(trees[1:], first)


def _tree_scale(tree, factor):
    if isinstance(tree, dict):
        return {k: _tree_scale(v, factor) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [_tree_scale(v, factor) for v in tree]
        return tuple(items) if isinstance(tree, tuple) else items
    return tree * factor


def expect_unchanged(c: Call):
    """Fail if learner code changed any argument it was given."""
    for param, before, after in zip(c.params, c.args, c.after):
        if not _same(before, after):
            fail(_("{call} changed its argument `{param}` in place.", call=c.text(), param=param)
                 + "\n  " + _("before the call: {value}", value=describe(before))
                 + "\n  " + _("after the call:  {value}", value=describe(after)) + "\n"
                 + _("A function should leave its inputs as they were: the caller may still "
                     "need them. Build new arrays instead (for example `y = 0.5 * x`, not "
                     "`x *= 0.5`, and slice copies rather than writing into slices)."))


def expect_raises(solution, name: str, *args, what: str, error: str = "ValueError",
                  naming: str | None = None, fix: str = "", why: str = ""):
    """Call learner function `name` on `args` and fail unless it raises `error` (by name), and,
    with `naming`, unless the exception's own text names that argument. `what` says which call
    it was in the learner's words ("tp_speedup with t = 0"); `fix` follows the message when
    another error came, `why` when a value came back: why a bad argument must raise."""
    try:
        c = call(solution, name, *args)
    except LearnerError as exc:
        # The kit reports the learner's exception by name ("... raised ValueError at line
        # ..."); any other exception is itself the wrong answer.
        if error not in exc.message:
            fail(_("{what} should raise {error}; it raised another error instead:\n{message}",
                   what=what, error=error, message=exc.message) + (f"\n{fix}" if fix else ""))
        # The exception's own text follows the last "ValueError:" of the traceback; the
        # learner's source lines above it may mention the name without the message saying it.
        said = exc.message.rsplit(f"{error}:", 1)[-1] if f"{error}:" in exc.message else ""
        if naming and not _re_search(rf"(?<![A-Za-z0-9_]){_re_escape(naming)}(?![A-Za-z0-9_])", said):
            fail(_("{what} raised {error}, but its message does not name {name}:\n{message}\n"
                   "Say which argument is wrong, e.g. {error}(\"{name} must be ...\").",
                   what=what, error=error, name=naming, message=exc.message))
        return
    fail((_("{what} returned {got}; it should raise {error} naming {name}.", what=what,
            got=repr(c.got), error=error, name=naming) if naming else
          _("{what} returned {got}; it should raise {error}.", what=what, got=repr(c.got),
            error=error)) + (f" {why}" if why else ""))


def _same(a, b) -> bool:
    if isinstance(a, _ndarray):
        return (isinstance(b, _ndarray) and a.dtype == b.dtype
                and _np_array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if type(a) is dict:  # a dict of arrays (a model's parameters) has no plain ==
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
