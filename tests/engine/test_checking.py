"""lessonkit.checking: expect_close on structured results (parts compared in one call, failures
named by their part, tolerances relative to the whole result's magnitude), and expect_raises."""
import types

import numpy as np
import pytest

from lessonkit import i18n
from lessonkit.capture import CappedOutput
from lessonkit.channel import InProcess, Learner
from lessonkit.checking import Call, CheckFailed, call, expect_close, expect_raises


def returned(value, name="tp_backward"):
    """A Call as `call()` makes it, for a learner function that returned `value`."""
    return Call(name, (np.zeros(2),), ("X",), value, (np.zeros(2),))


def failure(c, expected, **kw) -> str:
    with pytest.raises(CheckFailed) as info:
        expect_close(c, expected, **{"rtol": 1e-6, "atol": 0.0, **kw})
    return str(info.value)


GRADS = (np.array([1.0, 2.0]), [(np.eye(2), np.ones(2)), (2 * np.eye(2), 3 * np.ones(2))])
LABELS = ("dX", [("dA_0", "dB_0"), ("dA_1", "dB_1")])


def plain(tree):
    """What `call` hands checks: float64 arrays inside lists and tuples."""
    if isinstance(tree, (list, tuple)):
        return type(tree)(plain(v) for v in tree)
    return np.array(tree, dtype=np.float64)


def test_a_matching_structure_passes_and_comes_back_as_arrays():
    got = expect_close(returned(plain(GRADS)), GRADS, rtol=1e-9, atol=0)
    assert np.array_equal(got[1][1][0], 2 * np.eye(2))


def test_the_failing_part_is_named_with_its_label():
    bad = plain(GRADS)
    bad[1][1] = (bad[1][1][0] + 0.5, bad[1][1][1])
    message = failure(returned(bad), GRADS, labels=LABELS)
    assert message.startswith("tp_backward(X), part [1][1][0] (dA_1), returned wrong values "
                              "(4 of 4 entries are off).")
    assert "expected: [[2., 0.], [0., 2.]]" in message


def test_tolerance_is_relative_to_the_whole_result():
    # One part ~1e-16 beside parts ~1: float32 rounding there is 100% of that part's size.
    tiny = np.array([1e-16, -2e-16])
    expected = (np.array([1.0, 3.0]), tiny)
    passed = expect_close(returned((np.array([1.0, 3.0]), tiny * 1.5)), expected, rtol=1e-6, atol=0)
    assert np.allclose(passed[1], tiny * 1.5, rtol=0, atol=1e-30)
    # Off by more than rtol * 3 (the largest entry of the whole result): caught, and located.
    message = failure(returned((np.array([1.0, 3.0]), tiny + 1e-5)), expected)
    assert "part [1]" in message and "allowed 3e-06" in message


def test_one_part_of_a_tuple_return():
    c = returned(plain(GRADS))
    got = expect_close(c, GRADS[1][0][1], rtol=1e-9, atol=0, part=(1, 0, 1))
    assert np.array_equal(got, np.ones(2))
    message = failure(c, np.zeros(2), part=(1, 0, 1), labels="dB_0")
    assert message.startswith("tp_backward(X), part [1][0][1] (dB_0), returned wrong values")


def test_a_part_that_is_not_there():
    message = failure(returned((np.ones(2),)), np.ones(2), part=1)
    assert "expected it to have a part [1]" in message


def test_wrong_number_of_items_is_named():
    bad = plain(GRADS)
    bad = (bad[0], bad[1][:1])
    message = failure(returned(bad), GRADS, labels=LABELS)
    assert "as [1]; expected 2 items." in message


def in_process(**functions) -> Learner:
    """The `solution` a check gets, with `functions` as the loaded learner module."""
    channel = InProcess()
    channel.host.module = types.SimpleNamespace(**functions)
    solution = Learner(None, "", "en", channel, CappedOutput(10, 1000))
    solution.loaded = True
    return solution


def test_a_returned_dict_reaches_the_checks_as_plain_data():
    solution = in_process(loss=lambda x: {"loss": np.float32(x.sum()), "grad": x * 2})
    c = call(solution, "loss", np.array([1.0, 2.0]))
    assert c.got == {"loss": 3.0, "grad": c.got["grad"]} and c.got["grad"].dtype == np.float64
    expect_close(c, {"loss": 3.0, "grad": np.array([2.0, 4.0])}, rtol=1e-9, atol=0)


def test_dicts_compare_by_key():
    expected = {"loss": np.array(2.0), "grad": np.array([1.0, -1.0])}
    assert expect_close(returned({"loss": 2.0, "grad": [1.0, -1.0]}), expected, rtol=1e-9, atol=0)
    assert "part ['grad']" in failure(returned({"loss": 2.0, "grad": [1.0, 1.0]}), expected)
    assert "expected a dict with the keys 'loss', 'grad'" in failure(returned({"loss": 2.0}), expected)


def test_a_mistake_on_the_whole_structure_is_named():
    forgot = (GRADS[0], [(a, 0 * b) for a, b in GRADS[1]])
    bad = plain(forgot)
    message = failure(returned(bad), GRADS, mistakes=[("you dropped dB", lambda: forgot)])
    assert message.endswith("Hint: you dropped dB")


def test_a_tuple_of_numbers_is_one_array():
    # (start, stop) compared as an array: a learner may return a tuple, a list or an array.
    for value in [(4, 8), [4.0, 8.0], np.array([4, 8])]:
        expect_close(returned(value), (4, 8), rtol=0, atol=0)
    assert "returned wrong values" in failure(returned((4, 9)), (4, 8))


SHARES = [np.array([1.0, 2.0]), np.array([10.0, 20.0]), np.array([100.0, 300.0])]


@pytest.mark.parametrize("got,words", [
    (SHARES[1], "your result is GPU 1's share alone, Y_1: the all-reduce that adds up every "
                "GPU's share, Y = Y_0 + Y_1 + Y_2, is missing."),
    (SHARES[0] + SHARES[2], "your result adds up the shares of GPUs 0, 2 only"),
    (sum(SHARES) / 3, "your result is the mean of the GPUs' shares"),
    (np.stack(SHARES), "you returned the 3 GPUs' shares side by side, never added up"),
])
def test_missed_sum_names_what_was_summed(got, words):
    from lessonkit.checking import missed_sum
    message = failure(returned(got), sum(SHARES), mistakes=missed_sum(SHARES, total="Y"))
    assert f"Hint: {words}" in message


def test_missed_sum_on_a_part_and_with_many_gpus():
    from lessonkit.checking import missed_sum
    shares = [np.full(2, 2.0**i) for i in range(8)]
    # A loop that stopped one GPU short, on part [0] (dX) of a (dX, grads) result.
    c = returned((sum(shares[:7]), [np.zeros(2)]))
    message = failure(c, sum(shares), part=0, mistakes=missed_sum(shares, total="dX"))
    assert message.endswith("Hint: your result adds up the shares of GPUs 0, 1, 2, 3, 4, 5, 6 "
                            "only: the all-reduce adds every GPU's share, dX = dX_0 + dX_1 + … "
                            "+ dX_7.")
    assert missed_sum(shares[:1]) == []  # one GPU: its share is the answer


def test_a_single_wrong_number_is_not_counted_as_entries():
    assert "returned a wrong value.\n" in failure(returned(3.0), 2.0)
    assert "(1 of 2 entries is off)" in failure(returned([1.0, 3.0]), [1.0, 2.0])
    assert "(2 of 2 entries are off)" in failure(returned([2.0, 3.0]), [1.0, 2.0])


def raising(exc):
    def rate(n):
        raise exc
    return in_process(rate=rate)


def refusal(solution, lang="en", **how) -> str:
    with i18n.use(lang, "/no-lesson"), pytest.raises(CheckFailed) as info:
        expect_raises(solution, "rate", 0, what="rate with n = 0", **how)
    return str(info.value)


def test_expect_raises_passes_the_named_error_that_names_its_argument():
    expect_raises(raising(ValueError("n must be at least 1")), "rate", 0, what="rate", naming="n")
    expect_raises(raising(ValueError("bad")), "rate", 0, what="rate")  # no name asked for


def test_expect_raises_explains_each_other_outcome_in_english_and_polish():
    fix, why = "Check n on entry.", "A count below 1 is a mistake in the caller's configuration."
    other = refusal(raising(TypeError("n")), naming="n", fix=fix)
    assert other.startswith("rate with n = 0 should raise ValueError; it raised another error instead:\n")
    assert "TypeError" in other and other.endswith("\nCheck n on entry.")
    unnamed = refusal(raising(ValueError("count must be positive")), naming="n")
    assert unnamed.startswith("rate with n = 0 raised ValueError, but its message does not name n:\n")
    assert unnamed.endswith('Say which argument is wrong, e.g. ValueError("n must be ...").')
    quiet = in_process(rate=lambda n: 0.0)
    assert refusal(quiet, naming="n", why=why) == (
        "rate with n = 0 returned 0.0; it should raise ValueError naming n. " + why)
    assert refusal(quiet) == "rate with n = 0 returned 0.0; it should raise ValueError."
    assert refusal(quiet, "pl", naming="n") == (
        "rate with n = 0 zwróciło 0.0; powinno zgłosić ValueError z nazwą n.")


def test_an_array_where_one_number_belongs_is_refused():
    """What the GeLU lessons' python-float checks rely on: one number expected, shape (1,) back."""
    c = call(in_process(gelu=lambda x: np.array([x])), "gelu", 1.0)
    assert failure(c, np.float64(1.0)).startswith(
        "gelu(x) returned an array of shape (1,); expected shape ().\n  x = 1.0\n")
