"""lessonkit.wire: plain data round trips exactly, and a forged message is refused rather than
turned into something (no code runs, no length is trusted)."""
import base64
import json
import math

import numpy as np
import pytest

from lessonkit.wire import Unusable, WireError, decode, encode, same


def round_trip(value):
    # Through JSON text, as between processes and workers (NaN would not survive bare).
    return decode(json.loads(json.dumps(encode(value), allow_nan=False)))


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 2**70, 1.5, -0.0, "text", "", [], (), {},
    [1, [2.5, None], (3, "x")], (1,), {"a": 1, 2: [3.0]}, 1 + 2j,
    {"nested": ({"deep": [(1, 2)]},)},
], ids=repr)
def test_plain_values_round_trip_with_their_types(value):
    got = round_trip(value)
    assert got == value and type(got) is type(value)
    if isinstance(value, (list, tuple)):
        assert [type(v) for v in got] == [type(v) for v in value]


def test_non_finite_floats():
    got = round_trip([math.nan, math.inf, -math.inf, complex(math.nan, math.inf)])
    assert math.isnan(got[0]) and got[1] == math.inf and got[2] == -math.inf
    assert math.isnan(got[3].real) and got[3].imag == math.inf


@pytest.mark.parametrize("array", [
    np.arange(6.0).reshape(2, 3), np.array(3.5), np.zeros((0, 4)), np.arange(5, dtype=np.int64),
    np.array([True, False]), np.arange(4, dtype=np.float32)[::2], np.asfortranarray(np.eye(3)),
    np.array([1 + 2j, np.nan]), np.arange(4, dtype=">i4"),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_arrays_keep_dtype_shape_and_values(array):
    got = round_trip(array)
    assert type(got) is np.ndarray and got.dtype == array.dtype and got.shape == array.shape
    assert np.array_equal(got, array, equal_nan=True) and got.flags.writeable


def test_numpy_scalars_stay_numpy_scalars():
    for value in (np.float64(2.5), np.int64(-3), np.float32(1.0)):
        got = round_trip(value)
        assert type(got) is type(value) and got == value


def test_unusable_keeps_only_its_description():
    got = round_trip([Unusable("an object of type generator"), {Unusable("k"): 1}])
    assert isinstance(got[0], Unusable) and repr(got[0]) == "an object of type generator"
    assert [repr(k) for k in got[1]] == ["k"]


@pytest.mark.parametrize("value", [object(), np.array(["a"]), np.array([None], dtype=object),
                                   lambda: 1, {(1, 2): 3}, np.int64],
                         ids=["object", "str-array", "object-array", "function", "tuple-key", "type"])
def test_what_is_not_plain_data_is_not_encoded(value):
    with pytest.raises(WireError):
        encode(value)


def test_a_subclass_is_not_plain_data():
    # The learner's side turns subclasses into plain copies first; the wire never runs them.
    class Sneaky(np.ndarray):
        pass

    class Number(float):
        pass
    for value in (np.zeros(2).view(Sneaky), Number(1.0), [Number(2.0)]):
        with pytest.raises(WireError):
            encode(value)


def array(dtype="<f8", shape=(2,), data=None, **extra):
    data = base64.b64encode(np.zeros(2).tobytes()).decode() if data is None else data
    return {"array": {"dtype": dtype, "shape": list(shape), "data": data, **extra}}


@pytest.mark.parametrize("forged", [
    array(shape=(3,)),                       # a length the bytes do not hold
    array(shape=(10**9, 10**9)),             # a huge claimed shape
    array(shape=(-2,)),
    array(shape=(2.0,)),
    array(dtype="|O"),                       # objects: would need code to rebuild
    array(dtype="<U1"),
    array(dtype="float64"),                  # not the canonical form encode writes
    array(data="not base64!"),
    array(data=123),
    array(scalar=True),                      # a scalar of shape (2,)
    array(extra_field=1),
    {"array": [1, 2]},
    {"pickle": "gASV"}, {"eval": "__import__('os')"},
    {"float": "1e308"}, {"float": 1.0},
    {"complex": [1]}, {"complex": ["a", 1]},
    {"tuple": "ab"}, {"dict": [[[1], 2]]}, {"dict": [[1, 2, 3]]}, {"dict": {"a": 1}},
    {"tuple": [], "extra": 1}, {},
    float("nan"),
    {"unusable": 5},
], ids=lambda f: json.dumps(f, allow_nan=True)[:60])
def test_forged_messages_are_refused(forged):
    with pytest.raises(WireError):
        decode(forged)


def test_decoding_never_calls_anything_it_was_given():
    # A dict is only ever a tag: {"__reduce__": ...} or a class path is an error, not a call.
    for forged in ({"__reduce__": ["os.system", ["true"]]}, {"class": "numpy.ndarray"}):
        with pytest.raises(WireError):
            decode(forged)


def test_nesting_is_bounded():
    deep = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(WireError):
        encode(deep)
    forged = "x"
    for _ in range(200):
        forged = {"tuple": [forged]}
    with pytest.raises(WireError):
        decode(forged)


SAME_OR_NOT = [
    ([1], [1.0]), (True, 1), (0.0, -0.0), ({"a": 1}, {"b": 1}), ([1, 2], [1]), ((1,), [1]),
    (np.arange(3.0), np.arange(3)), (np.zeros(2), -np.zeros(2)),
    (np.arange(4.0), np.arange(4.0).reshape(2, 2)),
    (np.float64(1.5), 1.5), (np.float64(1.5), np.float32(1.5)), (1 + 2j, 1 - 2j),
    ({1: "x"}, {"1": "x"}), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), (Unusable("x"), Unusable("y")),
    (float("nan"), float("nan")), (float("nan"), -float("nan")), (float("inf"), float("inf")),
    (np.array([np.nan]), np.array([np.nan])), (np.linspace(-1, 1, 8), np.linspace(-1, 1, 8)),
    ([np.arange(3.0), (1, -0.0, "x"), {"k": [None, True]}],
     [np.arange(3.0), (1, -0.0, "x"), {"k": [None, True]}]),
    (Unusable("x"), Unusable("x")), ([], ()), ("a", "a"), (None, None),
]


@pytest.mark.parametrize("a,b", SAME_OR_NOT, ids=repr)
def test_same_says_whether_two_values_encode_alike(a, b):
    # The learner's side marks an input the call left `unchanged` by it, in place of encoding
    # both: `==` calls the first three pairs equal, yet each encodes (and decodes) differently.
    alike = json.dumps(encode(a)) == json.dumps(encode(b))
    assert same(a, b) == alike and same(b, a) == alike
    assert any(not same(a, b) for a, b in SAME_OR_NOT) and any(same(a, b) for a, b in SAME_OR_NOT)
