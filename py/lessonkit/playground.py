"""Run the learner's functions on the page's own inputs ("try with my code").

    run_calls(lesson, source, [
        {"fn": "shard_mlp", "args": [A, B, 2], "as": "shards"},
        {"fn": "tp_mlp", "args": [X, {"ref": "shards"}]},
    ])

Arguments are JSON values: a rectangular list of numbers becomes a float64 array, other lists
stay lists (of converted items), numbers and strings stay as they are, and `{"ref": name}` is
a copy of the result of an earlier call saved with `"as": name`; `{"ints": [...]}` is an int64
array (token ids, targets: indices a float64 array could not serve as). Only the functions the
lesson declares can be called. `lang` is the page's language: the learner's error (their
exception, the hint under it) comes in it, as a Run's messages do. Returns `{"ok": true, "results": [...], "stdout": ...,
"stdout_truncated": ...}` with results as JSON values (arrays as nested lists; NaN and
infinities as the strings "nan", "inf", "-inf"), or `{"ok": false, "message": ..., ...}`
with a message for the learner.
"""
from __future__ import annotations

import copy
import math
import numbers

import numpy

from . import i18n, learner
from .capture import CappedOutput, redirected
from .given import given_modules
from .i18n import _
from .learner import LearnerError
from .lesson import Lesson
from .timelimit import CheckTimeout, alarm_handler, time_limit


def run_calls(lesson: Lesson, source: str, calls: list, lang: str = i18n.DEFAULT) -> dict:
    declared = {f.name for f in lesson.functions}
    for spec in calls:  # the page's mistakes are ValueErrors, not learner messages
        if not isinstance(spec, dict) or spec.get("fn") not in declared:
            raise ValueError(f"each call must be {{'fn': one of {sorted(declared)}, "
                             f"'args': [...]}}; got {spec!r}")
        if not isinstance(spec.get("args", []), list):
            raise ValueError(f"'args' must be a list in {spec!r}")
    out = CappedOutput(lesson.limits.output_lines, lesson.limits.output_bytes)
    limit = lesson.limits.check_seconds
    if lang not in lesson.languages:
        lang = i18n.DEFAULT
    with i18n.use(lang, lesson.path), given_modules(lesson), redirected(out), alarm_handler(), \
            learner.stack_headroom(lesson.limits.recursion):
        try:
            with time_limit(limit):
                module = learner.new_module(learner.compile_source(source))
            saved, results = {}, []
            for spec in calls:
                name = spec["fn"]
                if not callable(getattr(module, name, None)):
                    raise LearnerError(_("solution.py does not define the function {name}.",
                                         name=name))
                args = [_argument(a, saved) for a in spec.get("args", [])]
                fn = getattr(module, name)
                try:
                    with time_limit(limit):
                        value = learner.run_learner(lambda: fn(*args), name)
                except CheckTimeout:
                    raise LearnerError(_("{name} was still running after {limit} s and was "
                                         "stopped. Look for a loop that never ends.", name=name,
                                         limit=i18n.number(limit, "g"))) from None
                if "as" in spec:
                    saved[spec["as"]] = value
                results.append(learner.run_learner(lambda: _json_value(value), name))
        except CheckTimeout:
            return _answer(out, ok=False, message=_("Your file was still running after {limit} s "
                                                    "and was stopped.",
                                                    limit=i18n.number(limit, "g")))
        except LearnerError as exc:
            return _answer(out, ok=False, message=exc.message)
    return _answer(out, ok=True, results=results)


def _answer(out: CappedOutput, **fields) -> dict:
    return {**fields, "stdout": out.text(), "stdout_truncated": out.truncated}


def _argument(value, saved: dict):
    if isinstance(value, dict) and set(value) == {"ints"}:
        # Token ids and targets: indices must reach the learner as integers, not float64.
        if not (isinstance(value["ints"], list)
                and all(type(v) is int for v in value["ints"])):
            raise ValueError(f"{value!r}: 'ints' must be a list of integers")
        return numpy.array(value["ints"], dtype=numpy.int64)
    if isinstance(value, dict) and set(value) == {"dict"} and isinstance(value["dict"], dict):
        # Named arrays (a model's parameters), each entry read like any argument.
        return {str(k): _argument(v, saved) for k, v in value["dict"].items()}
    if isinstance(value, dict):
        if set(value) != {"ref"} or value["ref"] not in saved:
            raise ValueError(f"{value!r} must be {{'ref': name}} naming an earlier 'as'")
        return copy.deepcopy(saved[value["ref"]])
    if isinstance(value, list):
        if _numeric_tree(value):
            try:
                return numpy.array(value, dtype=numpy.float64)
            except ValueError:  # ragged: keep it a list
                pass
        return [_argument(v, saved) for v in value]
    return value


def _numeric_tree(value) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_numeric_tree(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_value(value):
    if isinstance(value, (numpy.ndarray, numpy.generic)):
        if value.dtype.kind in "biuf":
            return _json_value(value.astype(numpy.float64).tolist())
        return _json_value(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, numbers.Real):
        v = float(value) if not isinstance(value, int) else value
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return v
    return repr(value)
