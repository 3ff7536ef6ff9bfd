"""Plain data between the grader and the learner's side: `encode(value)` makes a JSON-able
object, `decode(obj)` makes the value again. No pickle, no eval: decoding builds only numbers,
text, lists, tuples, dicts, numeric numpy arrays and `Unusable` descriptions, and refuses
anything malformed (`WireError`), a forged array length included.

    None, bool, int, str, list          as themselves (a float as itself when finite)
    float nan / inf / -inf              {"float": "nan" | "inf" | "-inf"}
    complex                             {"complex": [re, im]}
    tuple                               {"tuple": [...]}
    dict (str or int keys)              {"dict": [[key, value], ...]}
    numeric ndarray                     {"array": {"dtype": "<f8", "shape": [2, 3], "data": base64}}
    numpy scalar                        the same, with "scalar": true (decoded as a numpy scalar)
    anything else                       {"unusable": "<description for messages>"}
"""
from __future__ import annotations

import base64
import binascii
import json
import math
from importlib import resources

import numpy

# The protocol's constants, shared with the page's bundles (grace, restarts, the answer
# channel's layout): docs/architecture.md, "The learner channel".
PROTOCOL = json.loads(resources.files(__package__).joinpath("protocol.json")
                      .read_text(encoding="utf-8"))

# Numeric dtypes only (bool, ints, floats, complex): an object or void array could not be
# rebuilt without running code, and text arrays reach checks as descriptions anyway.
_KINDS = "biufc"
MAX_DIMS = 32
# Nesting of lists, tuples and dicts a message may have (a deeper one is a forged message).
MAX_DEPTH = 100
# The largest whole number plain data holds: a float64's range (no answer needs more, and
# numpy or complex() overflow beyond it).
MAX_INT = 2**1024


class WireError(ValueError):
    """A message that is not well-formed plain data."""


class Unusable:
    """Stands in for a value that is not plain data (text, a generator, an object of the
    learner's class): the checks see its description, never the value."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text


def encode(value, depth: int = 0):
    """`value` as JSON-able data (see the module's table); what has no plain form becomes
    `{"unusable": repr-free description}` made by the caller beforehand (an `Unusable`)."""
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if type(value) is int and not -MAX_INT < value < MAX_INT:
        raise WireError("a whole number beyond a float's range")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if math.isfinite(value):
            return value
        return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if type(value) is complex:
        return {"complex": [encode(value.real), encode(value.imag)]}
    if type(value) is list:
        return [encode(v, depth + 1) for v in value]
    if type(value) is tuple:
        return {"tuple": [encode(v, depth + 1) for v in value]}
    if type(value) is dict:
        if not all(type(k) in (str, int, Unusable) for k in value):
            raise WireError("dict keys are text or integers")
        return {"dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if type(value) is numpy.ndarray or isinstance(value, numpy.generic):
        if value.dtype.kind not in _KINDS:
            raise WireError(f"arrays of dtype {value.dtype} are not plain data")
        out = {"dtype": value.dtype.str, "shape": list(value.shape),
               "data": base64.b64encode(value.tobytes(order="C")).decode("ascii")}
        if isinstance(value, numpy.generic):
            out["scalar"] = True
        return {"array": out}
    if type(value) is Unusable:
        return {"unusable": str(value.text)}
    raise WireError(f"{type(value).__name__} is not plain data")


def same(a, b) -> bool:
    """Whether `a` and `b` encode to the same data, found without encoding them (base64 of
    large arrays is the slow part of a call in Pyodide): types, dtypes, shapes, zeros' signs and
    array bytes included (`==` says 1 == 1.0 == True and 0.0 == -0.0, which encode
    differently), every NaN float alike (each encodes as "nan")."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return len(a) == len(b) and all(same(ka, kb) and same(va, vb) for (ka, va), (kb, vb)
                                        in zip(a.items(), b.items()))
    if type(a) is float:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if type(a) is complex:
        return same(a.real, b.real) and same(a.imag, b.imag)
    if type(a) is numpy.ndarray or isinstance(a, numpy.generic):
        return a.dtype.str == b.dtype.str and a.shape == b.shape and a.tobytes() == b.tobytes()
    if type(a) is Unusable:
        return str(a.text) == str(b.text)
    return a == b


def decode(obj, depth: int = 0):
    """The value `obj` (from `encode`, or forged) stands for; WireError if it is not plain."""
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if type(obj) is int and not -MAX_INT < obj < MAX_INT:
        raise WireError("a whole number beyond a float's range")
    if obj is None or type(obj) in (bool, int, str):
        return obj
    if type(obj) is float:
        if not math.isfinite(obj):
            raise WireError("a bare non-finite float")
        return obj
    if type(obj) is list:
        return [decode(v, depth + 1) for v in obj]
    if type(obj) is not dict or len(obj) != 1:
        raise WireError(f"not an encoded value: {type(obj).__name__}")
    (tag, body), = obj.items()
    if tag == "float":
        if body not in ("nan", "inf", "-inf"):
            raise WireError(f"float {body!r}")
        return float(body)
    if tag == "complex":
        if type(body) is not list or len(body) != 2:
            raise WireError("complex needs [re, im]")
        re, im = (decode(v, depth + 1) for v in body)
        if type(re) not in (int, float) or type(im) not in (int, float):
            raise WireError("complex parts must be numbers")
        return complex(re, im)
    if tag == "tuple":
        if type(body) is not list:
            raise WireError("tuple needs a list")
        return tuple(decode(v, depth + 1) for v in body)
    if tag == "dict":
        if type(body) is not list:
            raise WireError("dict needs a list of pairs")
        out = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise WireError("dict items are [key, value] pairs")
            key = decode(pair[0], depth + 1)
            if type(key) not in (str, int, Unusable):
                raise WireError("dict keys are text or integers")
            out[key] = decode(pair[1], depth + 1)
        return out
    if tag == "array":
        return _array(body)
    if tag == "unusable":
        if type(body) is not str:
            raise WireError("unusable needs a description")
        return Unusable(body)
    raise WireError(f"unknown tag {tag!r}")


def _array(body):
    if type(body) is not dict or not {"dtype", "shape", "data"} <= set(body) \
            or not set(body) <= {"dtype", "shape", "data", "scalar"}:
        raise WireError("array needs dtype, shape and data")
    try:
        dtype = numpy.dtype(body["dtype"]) if type(body["dtype"]) is str else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in _KINDS or dtype.str != body["dtype"]:
        raise WireError(f"array dtype {body['dtype']!r}")
    shape = body["shape"]
    if type(shape) is not list or len(shape) > MAX_DIMS \
            or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError(f"array shape {shape!r}")
    if type(body["data"]) is not str:
        raise WireError("array data must be base64 text")
    try:
        raw = base64.b64decode(body["data"], validate=True)
    except (binascii.Error, ValueError):
        raise WireError("array data is not base64") from None
    count = math.prod(shape)
    if len(raw) != count * dtype.itemsize:
        raise WireError(f"array data holds {len(raw)} bytes; shape {shape} of {dtype} "
                        f"needs {count * dtype.itemsize}")
    array = numpy.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    scalar = body.get("scalar", False)
    if type(scalar) is not bool or (scalar and shape):
        raise WireError("only a 0-d array is a scalar")
    return array[()] if scalar else array
