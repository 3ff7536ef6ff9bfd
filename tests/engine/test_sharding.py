"""lessonkit.sharding, what checks of a sharding function share: labelled matrices read back as
the columns and rows a block holds, and a returned per-GPU list taken apart with a message,
in English and Polish, that says what came back and what that usually means."""
import numpy as np
import pytest

from lessonkit import i18n
from lessonkit.checking import Call, CheckFailed
from lessonkit.sharding import columns_of, labelled, per_gpu, rows_of


def returned(got, n=4):
    A, B = labelled(2, 8), labelled(8, 2, 0.5)
    return Call("shard_mlp", (A, B, n), ("A", "B", "n"), got, ())


NO_LESSON = "/nonexistent-lesson"  # the kit's own catalog only: no lesson's


def message(c, n, names=("A", "B"), lang="en") -> str:
    with i18n.use(lang, NO_LESSON), pytest.raises(CheckFailed) as info:
        per_gpu(c, n, names)
    return str(info.value)


def test_a_labelled_block_names_its_columns_and_rows():
    rng = np.random.default_rng(0)
    A = labelled(3, 12, 0.25, rng)
    assert columns_of(A[:, 4:8]) == [4, 5, 6, 7] and rows_of(A[1:, 4:8]) == [1, 2]
    assert columns_of(A[:, 2::5]) == [2, 7] and rows_of(A) == [0, 1, 2]
    assert np.all((A - labelled(3, 12, 0.25) >= 0) & (A - labelled(3, 12, 0.25) < 0.4))
    assert columns_of(np.zeros((0, 3))) == [] and rows_of(np.zeros(3)) == []


def test_per_gpu_returns_float_arrays_in_gpu_order():
    A, B = labelled(2, 8), labelled(8, 2, 0.5)
    got = [([list(r) for r in A[:, 2 * i:2 * i + 2]], B[2 * i:2 * i + 2]) for i in range(4)]
    pairs = per_gpu(returned(got), 4, ("A", "B"))
    assert [columns_of(a) for a, _b in pairs] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert all(a.dtype == np.float64 and b.shape == (2, 2) for a, b in pairs)


def test_each_wrong_form_is_explained():
    A_0, B_0 = labelled(2, 8)[:, :4], labelled(8, 2, 0.5)[:4]
    assert message(returned(None), 4).startswith(
        "shard_mlp(A, B, n) returned None. Did you forget a `return` statement?\n  A = ")
    assert message(returned(A_0), 4).startswith(
        "shard_mlp(A, B, n) should return a list of 4 pairs (A_i, B_i); it returned ")
    assert message(returned([(A_0, B_0)] * 2), 4).startswith(
        "shard_mlp(A, B, n) returned 2 pairs; with n = 4 there must be one pair per GPU, 4 in "
        "all. It looks like n is ignored: the number of GPUs must come from the argument.\n")
    assert "ignored" not in message(returned([(A_0, B_0)] * 3, n=2), 2)
    assert message(returned([(A_0, B_0), A_0], n=2), 2).startswith(
        "Item 1 of the list should be a pair (A_1, B_1); it is ")
    assert "should return a list of 1 tuples (Wq_i, Wk_i, Wv_i, Wo_i)" in message(
        returned(A_0, n=1), 1, ("Wq", "Wk", "Wv", "Wo"))
    assert message(returned([(A_0, "B")], n=1), 1).startswith("B_0 (item 0 of what shard_mlp(A, B, n) returned)")


def test_the_messages_speak_polish_with_its_plural_forms():
    one, many = ([(np.eye(2), np.eye(2))] * k for k in (1, 5))
    assert message(returned(one), 4, lang="pl").startswith(
        "shard_mlp(A, B, n) zwróciło 1 parę; przy n = 4 musi być jedna para na GPU, razem 4.")
    assert message(returned(many), 4, lang="pl").startswith("shard_mlp(A, B, n) zwróciło 5 par;")
    two = [(np.eye(2),) * 4] * 2
    assert message(returned(two, n=3), 3, ("Wq", "Wk", "Wv", "Wo"), lang="pl").startswith(
        "shard_mlp(A, B, n) zwróciło 2 krotki; przy n = 3 musi być jedna krotka na każde GPU, "
        "razem 3. Wygląda na to, że n jest pomijane")
    assert message(returned(None), 4, lang="pl").startswith("shard_mlp(A, B, n) zwróciło None.")
